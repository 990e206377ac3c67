"""Requests and near misses of the eleventh and twelfth blind tuning sets, read by the rules.

Each rule (issue 24, sixteenth session) was written for a line of
``tool_utterances_tune11.jsonl`` (requests rich in arguments: details before the verb,
corrections, reasons after a comma) or ``tool_utterances_tune12.jsonl`` (regional and
generational English: "pet", "gonnae", "would you ever", "arvo", "ngl", "rn") and is tested
here on that line's shape and on a near miss it must leave alone: what the router offers
(``candidate_tools``) and the call the words decide (``plan_decision``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.core.tools.said import decided, offered


@pytest.mark.parametrize(("text", "want"), [
    # what people call the listener, and their tags, are not part of what is asked
    ("Have I got any notes about the caravan, pet? I'm sure I jotted something down.",
     ("search_notes", {"query": "caravan"})),
    ("Open up the calendar app, eh, I gotta check when the Leafs are playing.",
     ("open_app", {"app": "calendar"})),
    ("yo get discord open real quick, the squad's waiting", ("open_app", {"app": "discord"})),
    ("Jot this down for me, hen: Morag owes me a tenner for the raffle.",
     ("add_note", {"text": "Morag owes me a tenner for the raffle"})),
    ("Would you ever search my notes for Auntie Breda's Eircode? I wrote it down somewhere.",
     ("search_notes", {"query": "Auntie Breda's Eircode"})),
    ("Gonnae remind me at half six tonight to take the messages in from the car?",
     ("set_reminder", {"text": "take the messages in from the car",
                       "when": "at half six tonight"})),
    ("Would you be so kind as to open the email programme, dear?",
     ("open_app", {"app": "email programme"})),
    # which one it is, or where, after a comma: not part of its name
    ("Could you open the folder called Wedding 2025, the one with the seating plans in?",
     ("open_location", {"target": "Wedding 2025"})),
    ("Open the mortgage comparison spreadsheet, it's in my documents.",
     ("open_location", {"target": "mortgage comparison spreadsheet"})),
    ("Open my holiday photos folder, would you, I want to show our Shona the pictures.",
     ("open_location", {"target": "holiday photos folder"})),
    ("Remove the notes that mention the Christmas presents, the kids keep snooping.",
     ("delete_notes", {"query": "Christmas presents"})),
    # cancelling said another way
    ("They've just rung to say they're running late, so ditch the reminder about leaving for "
     "the station.", ("cancel_timer", {"which": "leaving for the station"})),
    ("bin the essay reminder, I handed it in early for once", ("cancel_timer", {"which": "essay"})),
    ("I took the noodles off already, you can kill that noodle timer.",
     ("cancel_timer", {"which": "noodle"})),
    ("Scrap the lot, every timer and reminder, we're off to Blackpool for the weekend.",
     ("cancel_timer", {"which": "all"})),
    # music and sound
    ("This playlist's gone a bit miserable, move on to the next one.",
     ("media_control", {"action": "next"})),
    ("This song's pure mince, gonnae put the next one on?", ("media_control", {"action": "next"})),
    ("Sugar, back it up one song, I wasn't done with that one.",
     ("media_control", {"action": "previous"})),
    ("Put the one before this back on, my daughter wants to learn the words.",
     ("media_control", {"action": "previous"})),
    ("Right, dinner's done and the dishwasher's on, get the music going again.",
     ("media_control", {"action": "play"})),
    ("Stick the music back on, cheers.", ("media_control", {"action": "play"})),
    ("yo this song slaps, who even is this", ("now_playing", {})),
    ("Kill the sound for now, I'm about to record a voice message.",
     ("set_volume", {"setting": "mute"})),
    ("It'd be grand if the computer was a bit quieter, Father Murphy's just after calling in.",
     ("set_volume", {"setting": "down"})),
    # notes, the clipboard, typing
    ("Save this for me, Dad's new mobile number is 07700 900461.",
     ("add_note", {"text": "Dad's new mobile number is 07700 900461"})),
    ("I'm off to the shops in a bit so jot this down: tinned tomatoes, two onions and a bag of "
     "rice.", ("add_note", {"text": "tinned tomatoes, two onions and a bag of rice"})),
    ("Honey, put down in my notes that Miss Loretta wants her casserole dish back by Sunday.",
     ("add_note", {"text": "Miss Loretta wants her casserole dish back by Sunday"})),
    ("There's a note somewhere with that Thai restaurant Mark recommended, can you find it?",
     ("search_notes", {"query": "Thai restaurant Mark recommended"})),
    ("Look through my notes for anything that mentions the 14th of March.",
     ("search_notes", {"query": "14th of March"})),
    ("Lovely, pop that conversion on the clipboard, I'll paste it into my recipe card.",
     ("copy_last_answer", {})),
    ("ngl that's actually useful, lemme have it copied so I can paste it in the group chat",
     ("copy_last_answer", {})),
    ("Type: Meeting moved to 2:15 pm, room 4B. Bring the Q3 figures!",
     ("type_text", {"text": "Meeting moved to 2:15 pm, room 4B. Bring the Q3 figures!"})),
    # timers and reminders
    ("Boet, start a twenty minute countdown for the boerewors.",
     ("set_timer", {"duration": "twenty minute", "label": "boerewors"})),
    ("timer for ninety secs, noodles", ("set_timer", {"duration": "ninety secs",
                                                      "label": "noodles"})),
    ("Remind me in a fortnight that the car rego's due, sweet as.",
     ("set_reminder", {"text": "the car rego's due", "when": "in a fortnight"})),
    ("Remind me at three this arvo to put the sausages in the esky.",
     ("set_reminder", {"text": "put the sausages in the esky", "when": "at three this arvo"})),
    ("I keep forgetting to ring the chemist, could you remind me at half ten tomorrow?",
     ("set_reminder", {"text": "ring the chemist", "when": "at half ten tomorrow"})),
    ("Tomorrow at 7:45 am, take the blue folder to school, remind me of that would you.",
     ("set_reminder", {"text": "take the blue folder to school",
                       "when": "Tomorrow at 7:45 am"})),
    ("ngl I'm trash at maths, what's eighteen percent of sixty-five",
     ("calculate", {"expression": "eighteen percent of sixty-five"})),
    # a review's sentences: a name or tag inside the words to keep is kept
    ("note: buy eggs, bread, honey", ("add_note", {"text": "buy eggs, bread, honey"})),
    ("type: see you soon, love", ("type_text", {"text": "see you soon, love"})),
    ("type: that was so funny lol", ("type_text", {"text": "that was so funny lol"})),
    ("remind me at 5 to buy butter, honey",
     ("set_reminder", {"text": "buy butter, honey", "when": "at 5"})),
    ("search my notes for the recipe with garlic, honey, and lemon",
     ("search_notes", {"query": "recipe with garlic, honey, and lemon"})),
    ("what's fifteen percent of a hundred",
     ("calculate", {"expression": "fifteen percent of a hundred"})),
    ("timer for 8 minutes, the usual", ("set_timer", {"duration": "8 minutes"})),
    ("timer for twenty minutes, no rush", ("set_timer", {"duration": "twenty minutes"})),
    ("type well done", ("type_text", {"text": "well done"})),
    ("copy the date to the clipboard", ("get_current_time", {})),
])
def test_a_request_said_another_way_is_read(text: str, want: tuple[str, dict[str, Any]]) -> None:
    assert decided(text) == want


@pytest.mark.parametrize(("text", "want"), [
    ("Is twenty percent a normal tip in America?", []),  # a percentage of nothing
    ("set the volume to 40 percent", ["set_volume"]),  # not the calculator too
    ("A jacket costs eighty dollars and it's twenty percent off. What's the sale price?",
     ["calculate"]),  # two numbers: a percentage of something
    ("Can you type faster on your phone or on a proper keyboard, do you reckon?", []),
    ("How do I turn the volume up on my hearing aid, dear?", []),  # another device's
    ("How do I copy and paste on a Mac?", []),
    ("how do I set a timer on my phone", []),
    ("how do I set a timer on my laptop", ["set_timer"]),  # this computer's: the model decides
    ("save this file", []),
    ("move on to the next one", []),  # a list's next one, not a track's
    ("who is this", []),  # no music spoken of
    ("my friend, who is this guy's brother, set a timer", []),
    ("it would be nice if it stopped raining", []),
    ("open the spreadsheet app", ["open_app"]),  # the application, not a file
    ("cancel all timers, except the pasta one", ["cancel_timer"]),
    # a review's sentences: statements that the new request words must not make requests
    ("Get this: my reminder went off at 3am", []),
    ("Get a load of this, my notes app crashed", []),
    ("Stick around, the timer app is loading", []),
    ("Double trouble, both timers went off at once", []),
    ("It'd be handy if my notes were sorted", []),
    ("some guy keeps texting me about music, who even is this", []),
    ("open Google Slides", ["open_app"]),
])
def test_what_is_offered(text: str, want: list[str]) -> None:
    assert offered(text) == want


def test_all_but_one_is_not_all() -> None:
    assert decided("cancel all timers, except the pasta one") is None
