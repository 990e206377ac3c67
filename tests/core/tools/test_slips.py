"""False starts and a recogniser's sure slips, read as meant (``core.tools.slips``)."""

from __future__ import annotations

import pytest

from desktop_agent.core.tools.slips import as_meant, unaddressed


@pytest.mark.parametrize(("heard", "meant"), [
    ("can you- could you set a timer four 12 minutes for the rice",
     "could you set a timer for 12 minutes for the rice"),
    ("so I- I bought 6 bags", "so I bought 6 bags"),
    ("Did I write down the- the locker code somewhere?",
     "Did I write down the locker code somewhere?"),
    ("Um, I can't- I can't hear a word", "Um, I can't hear a word"),
    ("Can you type, um- type thanks", "Can you type thanks"),
    ("Can you open the, uh, the gov.uk website?", "Can you open the gov.uk website?"),
    ("remind me too ring nan at 7:30", "remind me to ring nan at 7:30"),
    ("right that down, I lent Priya £40", "write that down, I lent Priya £40"),
    ("Turn it down to like 25%", "Turn it down to 25%"),
    ("put a timer on for ten, no, fifteen minutes", "put a timer on for fifteen minutes"),
    ("S-s-set a timer for, for 8 minutes, it's f-for the eggs.",
     "set a timer for 8 minutes, it's for the eggs."),
    ("P-please type, I'm on my way", "please type, I'm on my way"),
    ("Can you pa-remind me on Friday", "Can you remind me on Friday"),
    ("play the the music", "play the music"),
])
def test_what_was_meant(heard: str, meant: str) -> None:
    assert as_meant(heard) == meant


@pytest.mark.parametrize("said", [
    "a back-to-back meeting at four",  # a hyphen inside a word is no false start
    "the four 2nd-years",  # "four" is "for" only before a duration in digits
    "four 3s make 12",
    "I'd like 5 minutes",  # "like" is a verb here
    "me too",
    "that's all right, that down there is mine",
    "bye bye",
    "type re-enter your password",  # a prefix is no stammer
    "to-do list",
    "the co-op",
])
def test_what_needs_no_mending_is_left_as_said(said: str) -> None:
    assert as_meant(said) == said


@pytest.mark.parametrize(("said", "meant"), [
    ("Have I got any notes about the caravan, pet? I'm sure",
     "Have I got any notes about the caravan? I'm sure"),
    ("Jot this down for me, hen: Morag owes me a tenner",
     "Jot this down for me: Morag owes me a tenner"),
    ("Mate, what's a hundred", "what's a hundred"),
    ("yo get discord open real quick, the squad's waiting",
     "get discord open, the squad's waiting"),
    ("mute it rn, my mum's coming", "mute it, my mum's coming"),
    ("This song's pure mince, gonnae put the next one on?",
     "This song's pure mince, will you put the next one on?"),
    ("Would you ever search my notes for X?", "would you search my notes for X?"),
    ("note that I love my mate", "note that I love my mate"),  # inside the words: kept
    ("Sugar, flour and eggs", "Sugar, flour and eggs"),  # a list, not a name
])
def test_names_and_tags_for_the_listener_are_dropped(said: str, meant: str) -> None:
    assert unaddressed(as_meant(said)) == meant


@pytest.mark.parametrize(("said", "kept"), [
    ("note: buy eggs, bread, honey", "note: buy eggs, bread, honey"),
    ("remind me at 5 to buy butter, honey", "remind me at 5 to buy butter, honey"),
    ("Remind me in a fortnight that the car rego's due, sweet as.",
     "Remind me in a fortnight that the car rego's due."),  # a tag, never a note's words
])
def test_words_kept_as_said_keep_a_name_but_not_a_tag(said: str, kept: str) -> None:
    assert unaddressed(as_meant(said), names=False) == kept


def test_a_name_inside_a_list_is_kept() -> None:
    said = "search my notes for the recipe with garlic, honey, and lemon"
    assert unaddressed(said) == said
