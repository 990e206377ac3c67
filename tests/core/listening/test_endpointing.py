"""Tests for adaptive endpointing and the ASR hallucination gate."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.errors import SettingsError
from desktop_agent.core.listening import (
    Endpointer,
    EndpointingSettings,
    HallucinationSettings,
    is_hallucination,
)

SHORT, MEDIUM, LONG = 0.5, 0.9, 1.6


@pytest.mark.parametrize(
    ("partial", "seconds"),
    [
        # complete-looking sentences
        ("What time is it?", SHORT),
        ("Turn on the lights.", SHORT),
        ("That's amazing!", SHORT),
        ("What is it for?", SHORT),  # "?" beats a trailing "for"
        ('He said "go."', SHORT),
        # bare complete words, any case or punctuation
        ("yes", SHORT),
        ("No", SHORT),
        ("okay", SHORT),
        ("Stop", SHORT),
        # words that hold the floor: the request usually follows
        ("Wait, stop.", MEDIUM),
        ("Hold on.", MEDIUM),
        ("No, wait!", MEDIUM),
        ("Actually", MEDIUM),
        ("Wait, what time is it?", SHORT),
        ("thanks", SHORT),
        ("Thank you", SHORT),
        ("never mind", SHORT),
        # trailing words that promise more
        ("I want to", LONG),
        ("Book a table for", LONG),
        ("salt and", LONG),
        ("Tell me about the", LONG),
        ("Set a", LONG),
        ("the history of", LONG),
        ("um", LONG),
        ("Play something uh", LONG),
        ("I think so", LONG),
        ("I was going to, but", LONG),
        ("because", LONG),
        ("Call it with", LONG),
        ("Text my", LONG),
        ("I want to go to.", LONG),  # Whisper's period loses to a trailing "to"
        ("Let me think,", LONG),
        ("So what I mean is...", LONG),
        ("Remind me to call …", LONG),
        # nothing to go on
        ("", MEDIUM),
        ("   ", MEDIUM),
        ("...", MEDIUM),
        ("Play some jazz", MEDIUM),
        ("yes please do it now", MEDIUM),
    ],
)
def test_silence_needed(partial: str, seconds: float) -> None:
    assert Endpointer().silence_needed_s(partial) == seconds


def test_settings_change_the_answers_and_clamp() -> None:
    endpointer = Endpointer(
        EndpointingSettings(short_s=0.1, medium_s=1.0, long_s=5.0, min_s=0.3, max_s=2.0)
    )
    assert endpointer.silence_needed_s("Yes.") == 0.3
    assert endpointer.silence_needed_s("Play jazz") == 1.0
    assert endpointer.silence_needed_s("Play jazz and") == 2.0


def test_custom_word_lists() -> None:
    endpointer = Endpointer(
        EndpointingSettings(complete_phrases=("roger",), continuation_words=("please",))
    )
    assert endpointer.silence_needed_s("Roger") == SHORT
    assert endpointer.silence_needed_s("yes") == MEDIUM
    assert endpointer.silence_needed_s("Call mom please") == LONG
    assert endpointer.silence_needed_s("I want to") == MEDIUM


@pytest.mark.parametrize(
    "kwargs",
    [{"min_s": 2.0, "max_s": 1.0}, {"short_s": -0.1}],
)
def test_invalid_endpointing_settings(kwargs: dict[str, Any]) -> None:
    with pytest.raises(SettingsError) as info:
        EndpointingSettings(**kwargs)
    assert info.value.code == "endpointing_settings"


# ---- hallucination gate -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["", "   ", "...", "?!", "[BLANK_AUDIO]", "(music)", "[Music] (applause)", "*laughs*", "♪ ♪"],
)
def test_wordless_transcripts_are_always_rejected(text: str) -> None:
    assert is_hallucination(text, no_speech_prob=0.0, speech_ratio=1.0)


@pytest.mark.parametrize(
    "text",
    [
        "Thank you.",
        "Thanks for watching!",
        "you",
        " you",
        "Thank you. Thank you.",
        "Please subscribe.",
        "Bye.",
        "THANK YOU FOR WATCHING",
    ],
)
def test_stock_phrases_need_only_one_piece_of_evidence(text: str) -> None:
    assert is_hallucination(text, no_speech_prob=0.8, speech_ratio=1.0)  # Whisper says silent
    assert is_hallucination(text, no_speech_prob=0.0, speech_ratio=0.1)  # VAD says silent
    assert not is_hallucination(text, no_speech_prob=0.1, speech_ratio=0.9)  # really said


def test_ordinary_text_needs_both_pieces_of_evidence() -> None:
    text = "Turn off the kitchen lights."
    assert not is_hallucination(text, no_speech_prob=0.9, speech_ratio=0.9)
    assert not is_hallucination(text, no_speech_prob=0.1, speech_ratio=0.05)
    assert is_hallucination(text, no_speech_prob=0.9, speech_ratio=0.05)


def test_thresholds_are_inclusive_and_configurable() -> None:
    assert is_hallucination("you", no_speech_prob=0.6, speech_ratio=1.0)
    assert not is_hallucination("you", no_speech_prob=0.59, speech_ratio=0.3)
    strict = HallucinationSettings(no_speech_threshold=0.95, min_speech_ratio=0.05)
    assert not is_hallucination("you", no_speech_prob=0.8, speech_ratio=0.1, settings=strict)
    custom = HallucinationSettings(phrases=("merci",))
    assert is_hallucination("Merci.", no_speech_prob=0.7, speech_ratio=1.0, settings=custom)
    assert not is_hallucination("Thank you.", 0.7, 1.0, settings=custom)
