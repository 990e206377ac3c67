"""False starts and a recogniser's sure slips, read as meant (``core.tools.slips``)."""

from __future__ import annotations

import pytest

from desktop_agent.core.tools.slips import as_meant


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
