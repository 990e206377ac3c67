"""Tests for the streaming clause chunker."""

from __future__ import annotations

import random
from typing import Any

import pytest

from desktop_agent.core.errors import SettingsError
from desktop_agent.core.text import ClauseChunker


def chunk_all(text: str, step: int = 0, **kwargs: int) -> list[str]:
    """Push ``text`` in pieces of ``step`` characters (all at once when 0), then flush."""
    chunker = ClauseChunker(**kwargs)
    chunks: list[str] = []
    size = step or max(1, len(text))
    for start in range(0, len(text), size):
        chunks += chunker.push(text[start : start + size])
    return chunks + chunker.flush()


CASES = [
    (
        "Sure, I can help with that. The meeting is at 9:40 tomorrow.",
        ["Sure, I can help with that.", "The meeting is at 9:40 tomorrow."],
    ),
    (
        "Well I think, honestly, that we should go. Then, we eat.",
        ["Well I think,", "honestly, that we should go.", "Then, we eat."],
    ),
    (
        "one two three four five six seven eight nine ten",
        ["one two three four five six seven eight", "nine ten"],
    ),
    ("Sure. I can help.", ["Sure.", "I can help."]),
    (
        "It costs 3.5 dollars. We sold 1,234 units.",
        ["It costs 3.5 dollars.", "We sold 1,234 units."],
    ),
    (
        "Dr. Smith said e.g. apples are good. Mr. J. R. Tolkien wrote books.",
        ["Dr. Smith said e.g. apples are good.", "Mr. J. R. Tolkien wrote books."],
    ),
    (
        "We met at 9 a.m. then left. It was 10 a.m. Then we ate.",
        ["We met at 9 a.m. then left.", "It was 10 a.m.", "Then we ate."],
    ),
    (
        "Bring pens, paper, etc. and snacks. Okay?",
        ["Bring pens, paper,", "etc. and snacks.", "Okay?"],
    ),
    (
        "See example.com/a.b for more. Done?",
        ["See example.com/a.b for more.", "Done?"],
    ),
    (
        "At 9:40 we will meet: the whole team. Bye!",
        ["At 9:40 we will meet:", "the whole team.", "Bye!"],
    ),
    (
        "Here is the list:\n- Buy milk\n- Buy eggs\n\nThat's all",
        ["Here is the list:", "- Buy milk", "- Buy eggs", "That's all"],
    ),
    (
        "# Title\nSome text here\nthat wraps lines. Next.",
        ["# Title", "Some text here\nthat wraps lines.", "Next."],
    ),
    ("1. First step\n2. Second step", ["1. First step", "2. Second step"]),
    (
        "Here is some code:\n```python\nprint('a. b. c')\nx = 1\n```\nRun it. Then relax.",
        ["Here is some code:", "```python\nprint('a. b. c')\nx = 1\n```", "Run it.", "Then relax."],
    ),
    ("Use ```x = 1``` inline. Next one.", ["Use ```x = 1``` inline.", "Next one."]),
    (
        "I was going to say—never mind, it is fine.",
        ["I was going to say—", "never mind, it is fine."],
    ),
    ("OK so we go - right now. Fine.", ["OK so we go -", "right now.", "Fine."]),
    ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
    ("This is **important.** Really.", ["This is **important.**", "Really."]),
    ("Well... I guess so.", ["Well...", "I guess so."]),
    ("Really?! Yes.", ["Really?!", "Yes."]),
    ("  \n\n  Hello there, my friend.  \n", ["Hello there, my friend."]),
    ("   \n\n  ", []),
    ("", []),
]


@pytest.mark.parametrize(("text", "chunks"), CASES)
def test_chunks_whole_text(text: str, chunks: list[str]) -> None:
    assert chunk_all(text) == chunks


@pytest.mark.parametrize(("text", "chunks"), CASES)
def test_chunks_do_not_depend_on_token_boundaries(text: str, chunks: list[str]) -> None:
    for step in (1, 2, 3, 7):
        assert chunk_all(text, step) == chunks, step


def test_random_token_splits_match_whole_text() -> None:
    rng = random.Random(7)
    text = " ".join(text for text, _ in CASES)
    expected = chunk_all(text)
    for _ in range(50):
        chunker = ClauseChunker()
        chunks: list[str] = []
        index = 0
        while index < len(text):
            size = rng.randint(1, 6)
            chunks += chunker.push(text[index : index + size])
            index += size
        assert chunks + chunker.flush() == expected


def test_first_chunk_is_emitted_as_soon_as_its_boundary_is_certain() -> None:
    chunker = ClauseChunker()
    assert chunker.push("Well I think,") == []  # "3,5" would not be a boundary: wait
    assert chunker.push(" honestly") == ["Well I think,"]
    assert chunker.push(", that we") == []  # later chunks are sentences only
    assert chunker.push(" go.") == []
    assert chunker.push(" Next") == ["honestly, that we go."]
    assert chunker.flush() == ["Next"]


def test_decimal_point_waits_for_the_next_token() -> None:
    chunker = ClauseChunker()
    assert chunker.push("It costs 3.") == []
    assert chunker.push("5 dollars. And") == ["It costs 3.5 dollars."]
    assert chunker.pending == " And"


def test_forced_first_chunk_after_max_first_words() -> None:
    chunker = ClauseChunker(max_first_words=4)
    assert chunker.push("a b c d") == []  # "d" may still grow
    assert chunker.push(" e") == ["a b c d"]
    assert chunker.push(" f g h i j k.") == []
    assert chunker.flush() == ["e f g h i j k."]


def test_min_first_words_is_configurable() -> None:
    assert chunk_all("Yes, of course. Fine.", min_first_words=1) == ["Yes,", "of course.", "Fine."]
    assert chunk_all("Yes, of course. Fine.", min_first_words=3) == ["Yes, of course.", "Fine."]


def test_fenced_code_is_held_until_it_closes() -> None:
    chunker = ClauseChunker()
    assert chunker.push("```\n") == []
    assert chunker.push("a = 1. b = 2.\n") == []
    assert chunker.push("print(a, b)\n``") == []
    assert chunker.push("`\nDone.") == ["```\na = 1. b = 2.\nprint(a, b)\n```"]
    assert chunker.flush() == ["Done."]


def test_unclosed_fence_is_flushed_as_one_chunk() -> None:
    assert chunk_all("Look:\n```\nx = 1.\ny = 2.") == ["Look:", "```\nx = 1.\ny = 2."]


def test_long_sentences_are_capped_at_a_comma_or_space() -> None:
    text = "This sentence has many words in it, and it goes on and on without any stop at all."
    chunks = chunk_all(text, max_chars=40)
    assert chunks == [
        "This sentence has many words in it,",
        "and it goes on and on without any stop",
        "at all.",
    ]
    assert all(len(chunk) <= 40 for chunk in chunks)
    assert " ".join(chunks).split() == text.split()


def test_cap_never_splits_a_word() -> None:
    word = "x" * 60
    assert chunk_all(f"Start here. Then {word} end.", max_chars=30) == [
        "Start here.",
        "Then",
        word,  # alone: over the cap, but never cut
        "end.",
    ]


def test_flush_resets_for_the_next_reply() -> None:
    chunker = ClauseChunker()
    assert chunker.push("First reply here, with words") == ["First reply here,"]
    assert chunker.flush() == ["with words"]
    assert chunker.push("Again I say, hello") == ["Again I say,"]
    chunker.reset()
    assert chunker.pending == ""
    assert chunker.flush() == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_first_words": 0},
        {"min_first_words": 5, "max_first_words": 4},
        {"max_chars": 5},
    ],
)
def test_invalid_settings_raise(kwargs: dict[str, Any]) -> None:
    with pytest.raises(SettingsError) as info:
        ClauseChunker(**kwargs)
    assert info.value.code == "chunker_settings"


def test_the_runtime_chunker_opens_with_at_most_three_words() -> None:
    from desktop_agent.core.text.chunker import first_clause_chunker

    def chunks(text: str) -> list[str]:
        chunker = first_clause_chunker()
        out = [c for token in text.split(" ") for c in chunker.push(token + " ")]
        return [c.strip() for c in out + chunker.flush()]

    assert chunks("The capital of France is Paris.") == ["The capital of", "France is Paris."]
    assert chunks("Yes, it is. The sky is blue.") == ["Yes, it is.", "The sky is blue."]
    assert chunks("Well, spiders have eight legs.")[0] == "Well, spiders have"
    assert chunks("Sure.") == ["Sure."]
