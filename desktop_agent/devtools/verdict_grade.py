"""The deterministic grader of ``bench verdicts``: no LLM judges, four kinds of check.

A task's ``check`` is one of::

    {"kind": "number", "value": 42}                 the last number stated (not one of the
                                                    question's own) equals the value
                                                    (digits or words; optional relative
                                                    "tolerance", e.g. 0.02)
    {"kind": "word_count", "n": 6}                  the last sentence has exactly n words
    {"kind": "increasing_lengths", "n": 5}          the last sentence has n words, each
                                                    longer than the one before
    {"kind": "contains", "all": ["oslo", "madrid"]} every word appears (whole words, any case)

``false_confession`` is a confession ('no, that's not right', 'I was wrong', ...) heard
although nothing wrong was audible before it: the heard words before the confession state
no wrong answer (for a number: their last number, not one of the question's own numbers,
differs from the value; for the others: a finished sentence before it fails the check).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from desktop_agent.core.reflection.gate import CONFESSION_MARKERS
from desktop_agent.core.reflection.stated_numbers import (
    last_sentence,
    numbers_in,
    sentences,
    words_of,
)

_LEAD: Final = re.compile(r"(?:—\s*)?\bno,\s*(?:that's|that is|it's|it is)?\s*$")
KINDS: Final = ("number", "word_count", "increasing_lengths", "contains")


def check_error(check: Mapping[str, Any]) -> str:
    """Why ``check`` is malformed ('' when it is fine), for the task file's error message."""
    kind = check.get("kind")
    if kind not in KINDS:
        return f"kind must be one of {', '.join(KINDS)} (got {kind!r})"
    if kind == "number" and not isinstance(check.get("value"), int | float):
        return "a number check needs a numeric 'value'"
    if kind in ("word_count", "increasing_lengths") and not (
            isinstance(check.get("n"), int) and check["n"] > 0):
        return f"a {kind} check needs a positive whole 'n'"
    if kind == "contains" and not (isinstance(check.get("all"), list) and check["all"]
                                   and all(isinstance(w, str) for w in check["all"])):
        return "a contains check needs 'all': a list of words"
    return ""


def _number_ok(check: Mapping[str, Any], value: Fraction) -> bool:
    want = Fraction(str(check["value"]))
    tolerance = Fraction(str(check.get("tolerance", 0)))
    return abs(value - want) <= abs(want) * tolerance


def _sentence_ok(check: Mapping[str, Any], sentence: str) -> bool:
    words = words_of(sentence)
    kind = check["kind"]
    if kind == "word_count":
        return len(words) == check["n"]
    if kind == "increasing_lengths":
        return len(words) == check["n"] and all(
            len(b) > len(a) for a, b in zip(words, words[1:], strict=False))
    lower = {w.lower() for w in words}
    return all(w.lower() in lower for w in check["all"])


def _answers(text: str, question: str) -> list[Fraction]:
    """The numbers ``text`` states that are not one of ``question``'s own, in order."""
    own = set(numbers_in(question))
    return [n for n in numbers_in(text) if n not in own]


def grade(check: Mapping[str, Any], text: str, question: str = "") -> bool:
    """True when ``text`` (what was heard) satisfies ``check``.

    A number check reads the last number stated that is not one of ``question``'s own
    ("It will take 3.5 hours to drive 210 miles at 60 miles an hour" answers 3.5), or the
    last number when every number stated is the question's.
    """
    if check["kind"] == "number":
        stated = _answers(text, question) or numbers_in(text)
        return bool(stated) and _number_ok(check, stated[-1])
    if check["kind"] == "contains":
        lower = {w.lower() for w in words_of(text)}
        return all(w.lower() in lower for w in check["all"])
    return _sentence_ok(check, last_sentence(text))


def confession_at(text: str) -> int | None:
    """Where the first confession starts in ``text`` (None: it confesses nothing)."""
    lower = text.lower().replace("’", "'")
    found = [lower.find(m) for m in CONFESSION_MARKERS if m in lower]
    if not found:
        return None
    at = min(found)
    lead = _LEAD.search(lower[:at])  # "— no, that's " before "not right"
    return lead.start() if lead else at


def wrong_audible(check: Mapping[str, Any], heard: str, question: str) -> bool:
    """True when ``heard`` states a wrong answer (what a confession may refer to)."""
    if check["kind"] == "number":
        stated = _answers(heard, question)
        return bool(stated) and not _number_ok(check, stated[-1])
    done = [s for s in sentences(heard) if re.search(r"[.!?][\"')\]]*$", s)]
    if not done:
        return False
    if check["kind"] == "contains":
        return not grade(check, " ".join(done))
    return not _sentence_ok(check, done[-1])


def false_confession(check: Mapping[str, Any], final: str, question: str) -> bool:
    """A confession heard although nothing wrong was audible before it."""
    at = confession_at(final)
    return at is not None and not wrong_audible(check, final[:at], question)
