"""Heard-so-far: exact word boundaries from played samples."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import estimate_words, heard_so_far
from desktop_agent.core.ports import WordTiming


@dataclass(frozen=True)
class Chunk:
    text: str
    n_samples: int
    sample_rate: int = 1000
    words: tuple[WordTiming, ...] = ()
    aligned: bool = True


T = TurnId(7)
HELLO = Chunk(
    "Hello brave world.",
    400,
    words=(
        WordTiming("Hello", 0, 100),
        WordTiming("brave", 120, 220),
        WordTiming("world", 240, 340),
    ),
)


@pytest.mark.parametrize(
    ("played", "heard", "unheard"),
    [
        (0, "", "Hello brave world."),
        (49, "", "Hello brave world."),
        (50, "Hello", "brave world."),
        (169, "Hello", "brave world."),
        (170, "Hello brave", "world."),
        (290, "Hello brave world.", ""),
        (10_000, "Hello brave world.", ""),
    ],
)
def test_a_word_is_heard_when_half_its_samples_played(
    played: int, heard: str, unheard: str
) -> None:
    report = heard_so_far(T, [HELLO], played)
    assert (report.heard_text, report.unheard_text) == (heard, unheard)
    assert report.full_text == "Hello brave world."
    assert report.turn_id == T and report.interrupted


def test_samples_carry_across_chunks_and_cut_at_counts_each_chunk_rate() -> None:
    second = Chunk(
        "Bye now",
        2000,
        sample_rate=2000,
        words=(WordTiming("Bye", 0, 800), WordTiming("now", 1000, 1800)),
    )
    report = heard_so_far(T, [HELLO, second], 400 + 400, unsynthesised_text="See you  later")
    assert report.heard_text == "Hello brave world. Bye"
    assert report.unheard_text == "now See you later"
    assert report.full_text == "Hello brave world. Bye now See you later"
    assert report.cut_at_s == pytest.approx(0.4 + 0.2)


def test_the_heard_text_is_a_prefix_even_when_a_later_word_would_qualify() -> None:
    odd = Chunk(
        "a b c",
        300,
        words=(WordTiming("a", 0, 10), WordTiming("b", 100, 300), WordTiming("c", 20, 30)),
    )
    assert heard_so_far(T, [odd], 50).heard_text == "a"


def test_estimate_words_spreads_samples_by_characters() -> None:
    assert estimate_words("ab  cd", 50) == (WordTiming("ab", 0, 20), WordTiming("cd", 30, 50))
    assert estimate_words("   ", 50) == ()


@pytest.mark.parametrize(("played", "heard"), [(39, "ab"), (40, "ab cd")])
def test_without_timings_words_are_estimated(played: int, heard: str) -> None:
    assert heard_so_far(T, [Chunk("ab cd", 50)], played).heard_text == heard


def test_timings_that_do_not_match_the_text_are_replaced_by_an_estimate() -> None:
    chunk = Chunk("ab cd", 50, words=(WordTiming("abcd", 0, 50),))
    assert heard_so_far(T, [chunk], 39).heard_text == "ab"


def test_a_reply_played_to_the_end_is_not_interrupted() -> None:
    report = heard_so_far(T, [HELLO], 400, interrupted=False)
    assert not report.interrupted and report.cut_at_s == pytest.approx(0.4)


def test_a_cut_in_an_estimated_chunk_is_marked_approximate() -> None:
    estimated = Chunk("Rome is old.", 300, aligned=False)  # a remote voice's: no alignments
    assert not heard_so_far(T, [HELLO, estimated], 200).approximate  # cut in the aligned one
    report = heard_so_far(T, [HELLO, estimated], 450)
    assert report.approximate and report.heard_text.startswith("Hello brave world.")
