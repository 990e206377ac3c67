"""Arguments cut from the user's own words (core.tools.args)."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.tools.args import arguments_from_words, is_grounded


@pytest.mark.parametrize(("tool", "text", "args"), [
    ("set_timer", "Hey, could you set a timer for twenty five minutes please?",
     {"duration": "twenty five minutes"}),
    ("set_timer", "egg timer for 7 minutes", {"duration": "7 minutes", "label": "egg"}),
    ("set_timer", "start a 10 minute timer for the pasta",
     {"duration": "10 minute", "label": "pasta"}),
    ("set_reminder", "in ten minutes remind me to take the cake out",
     {"text": "take the cake out", "when": "in ten minutes"}),  # time first (issue 24)
    ("set_timer", "in ten minutes remind me to take the cake out", None),  # a reminder
    ("set_reminder", "remind me on friday at 3 pm to call the vet",
     {"text": "call the vet", "when": "on friday at 3 pm"}),
    ("set_reminder", "Remind me to water the plants tonight.",
     {"text": "water the plants", "when": "tonight"}),
    ("add_note", "jot this down: the wifi password is on the router",
     {"text": "the wifi password is on the router"}),
    ("add_note", "add eggs to my notes", {"text": "eggs"}),
    ("delete_notes", "delete all of my notes", {"query": "all"}),
    ("delete_notes", "remove the notes about the gym", {"query": "gym"}),
    ("search_notes", "search my notes for the car", {"query": "car"}),
    ("search_notes", "look through my notes for anything on passwords", {"query": "passwords"}),
    ("search_notes", "check my notes for something about the dentist", {"query": "dentist"}),
    ("cancel_timer", "cancel all my reminders", {"which": "all"}),
    ("cancel_timer", "stop the tea timer", {"which": "tea"}),
    ("convert_units", "what's 30 celsius in fahrenheit",
     {"value": 30, "from_unit": "celsius", "to_unit": "fahrenheit"}),
    ("convert_units", "how many ounces in a pound",
     {"value": 1, "from_unit": "pound", "to_unit": "ounces"}),
    ("calculate", "What's 12 squared?", {"expression": "12 squared"}),
    ("get_current_time", "what time is it", {}),
    # The request in the last clause, after some context (issue 21).
    ("media_control", "ugh, I hate this one, skip it", {"action": "next"}),
    # ... or in the first clause, before some context.
    ("cancel_timer", "cancel the tea timer, I've already made it", {"which": "tea"}),
    ("cancel_timer", "cancel the tea timer, because I'm done", {"which": "tea"}),
    # "called" as in a phone call, not a name ("the one called pasta")
    ("cancel_timer", "Actually, scrap the reminder about ringing my mum, I've already called "
     "her.", {"which": "ringing my mum"}),
    ("add_note", "Note to self, buy more printer ink.", {"text": "buy more printer ink"}),
    ("add_note", "make a note to self: call the bank", {"text": "call the bank"}),
    ("delete_notes", "wipe everything I've saved", {"query": "all"}),
    ("search_notes", "Did I write anything down about the plumber? Have a look in my notes.",
     {"query": "plumber"}),
    ("search_notes", "what was that thing I noted about the boiler", {"query": "boiler"}),
    # "went" as in going somewhere, not as in "and he went, ..."
    ("delete_notes", "get rid of my shopping list note, I already went",
     {"query": "shopping list"}),
    ("media_control", "hold the music a sec, my phone's ringing", {"action": "pause"}),
    ("media_control", "pause whatever is playing", {"action": "pause"}),
    ("set_volume", "I can barely hear anything, turn the volume up", {"setting": "up"}),
    ("open_app", "I need to write an email, open my mail program", {"app": "mail"}),
    ("open_location", "pull up wikipedia dot org", {"target": "wikipedia dot org"}),
    ("open_location", "show me the holiday photos folder",
     {"target": "holiday photos folder"}),
])
def test_arguments_in_the_users_words(tool: str, text: str, args: Any) -> None:
    assert arguments_from_words(tool, text) == args


@pytest.mark.parametrize(("tool", "text"), [
    ("set_timer", "I set a timer yesterday and it went off twice"),
    ("add_note", "my notes from the lecture are a mess"),
    ("set_reminder", "the reminder app on my phone is annoying"),
    ("delete_notes", "I deleted my old photos"),
    ("convert_units", "she converted the garage into an office"),
    ("cancel_timer", "I had to cancel my trip"),
    ("search_notes", "a note in music is a sound"),
    ("set_timer", "the meeting ran twenty minutes over"),
    ("set_reminder", "I need to remember to breathe sometimes"),
    ("convert_units", "how many ounces are in a cup, roughly, when baking"),
    ("convert_units", "how many days are there in a leap year"),
    # A question stays a question in its last clause; a place verb opens no application.
    ("set_volume", "is it bad to listen to music at full volume, or should I turn it down?"),
    ("media_control", "when a song is bad, do you skip it?"),
    ("open_app", "go to sleep"),
    ("open_app", "take me to github dot com"),
    ("open_app", "pull up a chair"),
    # A last clause that waits, reports someone else's words or is taken back.
    ("open_app", "hmm, if it freezes again, open task manager"),
    ("open_app", "so yeah, when I get home, open spotify"),
    ("open_app", "I was going to say, open Spotify, but never mind"),
    ("open_app", "the error message says, open the settings"),
    ("open_location", "my teacher said, go to example dot org"),
    ("open_app", "tell me, open spotify or not?"),
    ("media_control", "this hold music is awful"),
    # A first clause that a later one makes wait or takes back.
    ("cancel_timer", "cancel the tea timer, if it's still running"),
    ("cancel_timer", "cancel the tea timer, but only once it rings"),
    ("cancel_timer", "cancel the tea timer, actually no"),
    ("cancel_timer", "he told me cancel the tea timer, then left"),
    # ... or that a later one corrects, delays, doubts, adds to or reports (a review's cases).
    ("delete_notes", "delete my shopping notes, not those, the work ones"),
    ("delete_notes", "delete the old notes, no, keep them"),
    ("delete_notes", "delete my shopping notes, actually keep them"),
    ("delete_notes", "delete my shopping notes, he said"),
    ("delete_notes", "delete my shopping notes, my wife told me to"),
    ("delete_notes", "delete my shopping notes, is that a good idea"),
    ("delete_notes", "delete my shopping notes, maybe"),
    ("delete_notes", "delete my shopping notes, but wait until tonight"),
    ("cancel_timer", "cancel the tea timer, no wait, keep it"),
    ("cancel_timer", "cancel the tea timer, on second thought, leave it running"),
    ("cancel_timer", "cancel the tea timer, not yet"),
    ("cancel_timer", "cancel the pasta timer, I changed my mind"),
    ("cancel_timer", "cancel the tea timer, I mean the egg timer"),
    ("cancel_timer", "cancel the tea timer, and the pasta timer"),
    ("cancel_timer", "cancel the tea timer, that's what my wife yells every morning"),
    ("cancel_timer", "cancel the tea timer, that's the name of my band"),
    ("cancel_timer", "cancel the tea timer, provided it hasn't gone off"),
    ("cancel_timer", "cancel the tea timer, in a minute"),
    ("cancel_timer", "cancel the tea timer, tomorrow"),
    # A last clause after a story, a dream, words someone shouted, or a condition.
    ("open_app", "he yelled, open spotify"),
    ("open_app", "she was like, open spotify"),
    ("open_app", "in my dream, open spotify"),
    ("open_app", "unless it crashes, open spotify"),
    ("open_app", "until I say so, open spotify"),
    # A request taken back in a clause of its own.
    ("open_app", "open the terminal, actually no, don't"),
    ("set_timer", "set a timer for 5 minutes, never mind"),
])
def test_statements_give_no_arguments(tool: str, text: str) -> None:
    assert arguments_from_words(tool, text) is None


def test_unknown_tools_and_hostile_text() -> None:
    assert arguments_from_words("launch_rockets", "launch them") is None
    for text in ("", "   ", "\u0000" * 50, "remind me " * 2000, "timer " + "9" * 5000):
        for tool in ("set_timer", "set_reminder", "add_note", "calculate", "convert_units"):
            arguments_from_words(tool, text)  # never raises


@pytest.mark.parametrize(("value", "text", "grounded"), [
    ("36 * 7", "multiply 36 by 7", True),
    ("36 * 7", "what's thirty six times seven", True),
    ("90 / 4", "split 90 dollars between 4 people", True),
    ("1000 - 350", "take 350 away from 1000", True),
    ("15% of 80", "fifteen percent of 80", True),
    ("36 * 7", "what's 36 and 7", False),  # no word for the operator was said
    ("36 * 8", "multiply 36 by 7", False),  # a number the user never said
    ("20 minutes", "I set a timer yesterday", False),
    # numbers as the model writes them, said in words: halves, dozens, percent of
    ("17.5% * 260", "what's seventeen and a half percent of 260", True),
    ("17.5% * 260", "what's seventeen percent of 260", False),
    ("12 * 3", "a dozen eggs times three", True),
    ("23 - 7.49", "I've got twenty-three quid and spend seven pounds forty-nine", True),
])
def test_a_models_argument_must_use_the_users_words(value: str, text: str,
                                                    grounded: bool) -> None:
    assert is_grounded({"expression": value}, text) is grounded


@pytest.mark.parametrize(("tool", "text", "args"), [
    # a hesitation inside the request, with Whisper's commas around it
    ("set_timer", "start a countdown, uh, an hour and a half", {"duration": "an hour and a half"}),
    ("calculate", "what is um 12 times 4", {"expression": "12 times 4"}),
    # a pointing word is no part of a label: "that pizza timer" is the pizza's
    ("cancel_timer", "you can cancel that pizza timer", {"which": "pizza"}),
    # notes looked in, notes that mention, and a vague "thing" after the words
    ("search_notes", "Look in my notes for the dentist thing", {"query": "dentist"}),
    ("search_notes", "which of my notes mention grandma's birthday",
     {"query": "grandma's birthday"}),
])
def test_everyday_forms_give_the_arguments_said(tool: str, text: str,
                                                args: dict[str, str]) -> None:
    assert arguments_from_words(tool, text) == args


@pytest.mark.parametrize(("tool", "text", "args"), [
    ("delete_notes", "Delete the note about the printer ink, I've bought some now.",
     {"query": "printer ink"}),
    ("open_location", "Open the tax folder, I need to dig out last year's return.",
     {"target": "tax folder"}),
    ("set_timer", "Um, set a seven-minute timer for the eggs, I've just put them on.",
     {"duration": "seven-minute", "label": "eggs"}),
    ("open_app", "Could you bring up the calculator? I want to do a few sums myself.",
     {"app": "calculator"}),
    ("cancel_timer", "Sorry, cancel the pasta timer, it's done.", {"which": "pasta"}),
])
def test_context_said_after_the_request_is_not_part_of_a_name(
        tool: str, text: str, args: dict[str, str]) -> None:
    assert arguments_from_words(tool, text) == args


def test_context_said_after_a_note_stays_in_the_note() -> None:
    assert arguments_from_words("add_note", "note that the milk is off, it smells") == {
        "text": "the milk is off, it smells"}
