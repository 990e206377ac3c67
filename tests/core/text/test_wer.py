"""Word and entity error rates: hand-counted alignments and the normalisation rules."""

from __future__ import annotations

import pytest

from desktop_agent.core.text.wer import (
    ErrorCounts,
    align_counts,
    entity_errors,
    normalize_words,
    pooled,
    reference_entities,
    word_errors,
)


@pytest.mark.parametrize(("ref", "hyp", "s", "d", "i"), [
    ("the cat sat on the mat", "the cat sat on the mat", 0, 0, 0),
    ("the cat sat on the mat", "the cat sit on mat", 1, 1, 0),  # sat->sit, "the" lost
    ("hello world", "hello big world", 0, 0, 1),
    ("a b c", "", 0, 3, 0),
    ("yes", "no no", 1, 0, 1),
    ("one two three", "three one two", 0, 1, 1),  # a shifted word: 2 edits, not 3
    ("a b c d", "x b c y", 2, 0, 0),
])
def test_alignment_counts_substitutions_deletions_insertions(
        ref: str, hyp: str, s: int, d: int, i: int) -> None:
    counts = align_counts(ref.split(), hyp.split())
    assert (counts.substitutions, counts.deletions, counts.insertions) == (s, d, i)
    assert counts.ref_words == len(ref.split())
    assert counts.wer == (s + d + i) / len(ref.split())


def test_wer_of_an_empty_reference_is_undefined_but_its_insertions_pool() -> None:
    empty = align_counts([], ["uh", "hello"])
    assert empty.wer is None and empty.insertions == 2
    total = pooled([empty, align_counts(["a", "b"], ["a", "b"])])
    assert total.wer == 1.0  # 2 insertions over 2 reference words


def test_pooled_wer_is_all_errors_over_all_words_not_a_mean_of_files() -> None:
    short = word_errors("press four", "press forward")  # 1 error in 2 words
    long = word_errors("please enter your mailbox number followed by pound",
                       "please enter your mailbox number followed by pound")
    total = pooled([short, long])
    assert total == ErrorCounts(1, 0, 0, 10)
    assert total.wer == pytest.approx(0.1)  # a mean of the files' WERs would say 0.25


@pytest.mark.parametrize(("written", "spoken"), [
    ("Press 1,234 now.", "press one thousand two hundred thirty-four now"),
    ("dial 1234", "dial one two three four"),
    ("a 28.8 kilobit modem", "a twenty eight point eight kilobit modem"),
    ("Mr. Smith", "mister smith"),
    ("Mrs. Jones", "missus jones"),
    ("at 10:00 a.m.", "at ten o'clock AM"),
    ("at 3:30 PM", "at three thirty p.m."),
    ("the 21st of May", "the twenty-first of may"),
    ("in 1905", "in nineteen oh five"),
    ("in 2026", "in twenty twenty-six"),
    ("in 2007", "in two thousand and seven"),
    ("$5", "five dollars"),
    ("50%", "fifty percent"),
    ("Call-Forward on Busy.", "call forward on busy"),
    ("re-record it", "rerecord it"),
    ("You're here, aren't you?", "you are here are not you"),
    ("Um, I'm ready... uh, OK!", "I am ready okay"),
    ("plus [+]", "plus"),
])
def test_written_and_spoken_forms_normalise_alike(written: str, spoken: str) -> None:
    assert normalize_words(written) == normalize_words(spoken)
    assert word_errors(written, spoken).errors == 0


def test_numbers_become_one_digit_per_word() -> None:
    assert normalize_words("seventeen") == ["1", "7"]
    assert normalize_words("two five") == ["2", "5"]
    assert normalize_words("twenty five") == ["2", "5"]
    assert normalize_words("press 0 for help") == ["press", "0", "for", "help"]
    assert normalize_words("first") == ["1", "th"]
    # A wrong digit costs one word, not the whole number.
    assert word_errors("call 4242", "call four two four three").errors == 1


def test_differences_that_are_real_errors_still_count() -> None:
    assert word_errors("press 4 to place a call", "press forward to place a call").errors == 1
    assert word_errors("seventy", "7D").errors == 2  # "7 0" vs "7d": one wrong, one lost
    assert word_errors("lowercase", "lower case").errors == 2  # compounds are not merged
    assert word_errors("he was ill disposed", "he was old-sposed").errors == 2


def test_entities_are_numbers_times_and_capitalised_names() -> None:
    entities = reference_entities(
        "Thank you for calling Super Awesome Company, Waldo's premier provider. "
        "Press 1 at 3:30 p.m. or dial five hundred.")
    assert entities == [("3", "3", "0", "pm"), ("1",), ("5", "0", "0"),
                        ("super", "awesome", "company"), ("waldo's",)]
    # Title Case text: capitals say nothing about names; sentence starts are no names.
    assert reference_entities("Call-Forward on No Answer.") == []
    assert reference_entities("Goodbye. Please hang up.") == []


def test_entity_errors_count_each_missing_occurrence() -> None:
    ref = "press 1 to mute or 1 to unmute, then call Digium"
    assert entity_errors(ref, "press one to mute or one to unmute then call Digium") == (0, 3)
    assert entity_errors(ref, "press one to mute or won to unmute then call the gym") == (2, 3)
    assert entity_errors("dial 500", "dial five zero zero") == (0, 1)
    assert entity_errors("dial 500", "dial fifty") == (1, 1)
