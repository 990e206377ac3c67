"""Deterministic checks: the literal constraint of a question, checked against what was said.

Each ``find_*`` reads one kind of constraint out of the question (an arithmetic
expression, a letter count, a unit or date sum, a word constraint) and returns a ``Check``
that knows the right answer; ``Check.judge`` compares the utterance with it. A question no
finder understands has no check: the model judges it (mode 'on') or it is not reflected
(mode 'checkable'). The model never decides what a check can compute: the small model's
blind spots (digits, letters, calendars) are exactly what these see.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.reflection.clock_spans import SpanCheck, find_clock_span
from desktop_agent.core.reflection.stated_numbers import (
    last_number,
    last_number_word,
    last_sentence,
    numbers_in,
    word_index_of_last_sentence,
    words_of,
)
from desktop_agent.core.reflection.verdict import Judgement, Verdict
from desktop_agent.core.tools.calc import evaluate, format_number
from desktop_agent.core.tools.calc_words import clean_spoken, replace_quantity_words
from desktop_agent.core.tools.units import convert, parse_unit

MAX_QUESTION_WORDS: Final = 40
"""Longer questions are not searched for an arithmetic span (the search is quadratic)."""
_OPERATOR: Final = re.compile(
    r"\b(?:times|plus|minus|divided|multiplied|squared|cubed|percent|root|power|twice|double"
    r"|(?:half|quarters?|thirds?) of)\b"
    r"|[-+*/×÷^%]|\d\s*x\s*\d")
_ASKING: Final = re.compile(r"^(?:(?:so|ok|okay|hey|please|quick question)[, ]+)*(?:what\s+is|"
                            r"what's|whats|how\s+much\s+is|calculate|compute|work\s+out|"
                            r"tell\s+me|can\s+you\s+tell\s+me)\s+", re.IGNORECASE)
_MONTHS: Final = ("january", "february", "march", "april", "may", "june", "july", "august",
                  "september", "october", "november", "december")
_MONTH_RE: Final = "|".join(_MONTHS)
_VOWELS: Final = "aeiou"


@dataclass(frozen=True, slots=True)
class NumberCheck:
    """The answer is one number: the last number stated must equal it."""

    checker: str
    expected: Fraction
    statement: str
    """The correct answer as a clause ('23 times 47 is 1081')."""
    given: tuple[Fraction, ...] = ()
    """Numbers of the question: a restated operand is not an answer yet."""
    tolerance: Fraction = Fraction(0)
    """Relative tolerance (rounded conversions)."""

    def judge(self, utterance: str) -> Judgement:
        """Good when the last number stated is the answer; repair when it is another."""
        value = last_number(utterance)
        if value is None or (value in self.given and value != self.expected):
            return Judgement(Verdict.REFINE, f"The answer is missing: {self.statement}.",
                             self.statement, None, self.checker)
        if abs(value - self.expected) <= abs(self.expected) * self.tolerance:
            return Judgement(Verdict.GOOD, "", "", None, self.checker)
        return Judgement(
            Verdict.REPAIR, f"{format_number(value)} is wrong: {self.statement}.",
            self.statement, last_number_word(utterance), self.checker)


@dataclass(frozen=True, slots=True)
class SentenceCheck:
    """A constraint on the last sentence said: word count, increasing lengths, must-contain."""

    checker: str
    n: int | None = None
    """Exactly this many words (None: any number)."""
    increasing: bool = False
    """Each word longer than the one before."""
    contains: tuple[str, ...] = ()
    """Words the sentence must contain (lower case)."""
    starts: str = ""
    """The word the sentence must start with (lower case; '' for any)."""

    def problem(self, sentence: str) -> str:
        """What the sentence breaks, in words for the guidance ('' when it keeps it all)."""
        words = words_of(sentence)
        if self.n is not None and len(words) != self.n:
            return f"the sentence has {len(words)} words; it needs exactly {self.n}"
        if self.increasing:
            for i in range(1, len(words)):
                if len(words[i]) <= len(words[i - 1]):
                    return (f"word {i + 1} '{words[i]}' ({len(words[i])} letters) is not longer "
                            f"than word {i} '{words[i - 1]}' ({len(words[i - 1])} letters)")
        lower = {w.lower() for w in words}
        missing = [w for w in self.contains if w not in lower]
        if missing:
            return "the sentence must contain " + " and ".join(f"'{w}'" for w in missing)
        if self.starts and (not words or words[0].lower() != self.starts):
            return f"the sentence must start with '{self.starts}'"
        return ""

    def judge(self, utterance: str) -> Judgement:
        """Good when the last sentence keeps every constraint; else repair, with why."""
        sentence = last_sentence(utterance)
        if not words_of(sentence):
            return Judgement(Verdict.REFINE, "No sentence yet.", "", None, self.checker)
        why = self.problem(sentence)
        if not why:
            return Judgement(Verdict.GOOD, "", "", None, self.checker)
        # An unfinished sentence ("A dense forest", a run that stopped there) claims
        # nothing wrong yet: flagged past the words said, so the repair does not confess.
        unfinished = not _FINISHED.search(sentence)
        flagged = len(utterance.split()) if unfinished else word_index_of_last_sentence(utterance)
        return Judgement(Verdict.REPAIR, why[0].upper() + why[1:] + ".", "", flagged,
                         self.checker)


_FINISHED: Final = re.compile(r"[.!?][\"')\]]*\s*$")
Check = NumberCheck | SentenceCheck | SpanCheck


def _plain(question: str) -> str:
    """Lower case, numbers as digits, quotes and question marks gone, spaces collapsed."""
    text = replace_quantity_words(clean_spoken(question))
    text = re.sub(r"[\"“”‘’?!]|(?<!\w)'|'(?!\w)", " ", text)
    return " ".join(text.split())


def _count_word(text: str) -> int | None:
    found = numbers_in(text)
    return int(found[0]) if found and found[0].denominator == 1 else None


def say(value: Fraction) -> str:
    """A value for speech: whole numbers as they are, others rounded to two places."""
    if value.denominator == 1:
        return str(value.numerator)
    return format_number(round(value, 2))


def find_arithmetic(question: str) -> NumberCheck | None:
    """'what is 23 times 47', 'how much is 15 percent of 80'."""
    if not _OPERATOR.search(question.lower()):
        return None
    words = _ASKING.sub("", re.sub(r"[?!]", " ", question).strip()).split()
    if len(words) > MAX_QUESTION_WORDS:
        return None
    # A calculation states every number of the question: a span that leaves one out is a
    # part of a word problem ("... 40 dollars, on sale for 25 percent off"), not its answer.
    stated = sorted(numbers_in(" ".join(words)))
    for size in range(len(words), 1, -1):
        for start in range(len(words) - size + 1):
            span = " ".join(words[start:start + size]).strip(" ,.")
            if not _OPERATOR.search(span.lower()):
                continue
            try:
                value = evaluate(span)
            except AgentError:
                continue
            given = tuple(numbers_in(span))
            if sorted(given) != stated:
                continue
            if isinstance(value, float):
                return None  # irrational: no exact answer to compare with
            return NumberCheck("arithmetic", value, f"{span} is {say(value)}", given)
    return None


_LETTER_PATTERNS: Final = (
    re.compile(r"how many (?:letters? )([a-z]) (?:are |is )?(?:there )?in (?:the word )?([a-z]+)"),
    re.compile(r"how many (?:times does |times is )?(?:the )?letter ([a-z])s? (?:appear |occur "
               r"|is there |are there |are |is )?(?:there )?in (?:the word )?([a-z]+)"),
    re.compile(r"how many ([a-z])'?s (?:are |is )?(?:there )?in (?:the word )?([a-z]+)"),
    re.compile(r"how many times does ([a-z]) (?:appear|occur) in (?:the word )?([a-z]+)"),
)
_LETTERS_IN: Final = re.compile(r"how many (letters|vowels|consonants) (?:are |does )?(?:there )?"
                                r"(?:in |have )?(?:the word )?([a-z]+)(?: have)?$")


def find_letters(question: str) -> NumberCheck | None:
    """'how many r's in strawberry', 'how many letters are in the word banana'."""
    text = _plain(question)
    for pattern in _LETTER_PATTERNS:
        m = pattern.search(text)
        if m:
            letter, word = m.group(1), m.group(2)
            n = word.count(letter)
            times = "time" if n == 1 else "times"
            return NumberCheck("letters", Fraction(n),
                               f"the letter {letter} appears {n} {times} in {word}")
    m = _LETTERS_IN.search(text) or _LETTERS_IN.search(text.removesuffix(" have"))
    if m:
        kind, word = m.group(1), m.group(2)
        counts = {"letters": len(word), "vowels": sum(c in _VOWELS for c in word),
                  "consonants": sum(c.isalpha() and c not in _VOWELS for c in word)}
        n = counts[kind]
        return NumberCheck("letters", Fraction(n), f"{word} has {n} {kind}")
    return None


_CONVERT: Final = re.compile(r"(?:convert |what is |how much is |how many [a-z ]+ is )?"
                             r"(\d+(?:\.\d+)?) ([a-z° ]+?) (?:in|to|into|as) ([a-z° ]+)$")
_HOW_MANY_IN: Final = re.compile(r"how many ([a-z° ]+?) (?:are |is )?(?:there )?in "
                                 r"(?:a |an |one )?(\d+(?:\.\d+)?)? ?([a-z° ]+)$")
_IS_HOW_MANY: Final = re.compile(r"^(?:(?:a |an |one )|(\d+(?:\.\d+)?) )([a-z° ]+?) (?:is|are|"
                                 r"equals|makes) how many ([a-z° ]+)$")


def _unit(words: str) -> str | None:
    try:
        return parse_unit(words.strip())
    except AgentError:
        return None


def find_units(question: str) -> NumberCheck | None:
    """A unit conversion: 'how many feet are in a mile', 'convert 5 kilometers to miles'.

    Also 'half an hour is how many seconds' (spoken quantities are read: 'half an hour' is
    0.5 hour).
    """
    text = _plain(question).rstrip(". ")
    m = _CONVERT.search(text)
    if m:
        amount, source, target = Fraction(m.group(1)), m.group(2), m.group(3)
    elif m := _IS_HOW_MANY.search(text):  # "half an hour is how many seconds"
        amount, source, target = Fraction(m.group(1) or 1), m.group(2), m.group(3)
    else:
        m = _HOW_MANY_IN.search(text)
        if not m:
            return None
        target, amount, source = m.group(1), Fraction(m.group(2) or 1), m.group(3)
    src, dst = _unit(source), _unit(target)
    if src is None or dst is None or src == dst:
        return None
    try:
        value = Fraction(convert(float(amount), src, dst)).limit_denominator(10**6)
    except AgentError:
        return None
    return NumberCheck("units", value, f"{say(amount)} {source.strip()} is {say(value)} "
                       f"{target.strip()}", (amount,), Fraction(1, 100))


_DAYS_IN_MONTHS: Final = re.compile(
    rf"how many days (?:are |is )?(?:there )?in ((?:(?:{_MONTH_RE})(?:,| and|, and)? ?)+)")
_DAYS_BETWEEN: Final = re.compile(
    rf"how many days (?:are |is )?(?:there )?(?:from|between) ({_MONTH_RE}) (\d+)(?:st|nd|rd|th)?"
    rf"(?: to| and| until| till) ({_MONTH_RE}) (\d+)")
_DAYS_AFTER: Final = re.compile(r"how many (days|hours) (?:are |is )?(?:there )?in (\d+) "
                                r"(weeks|days)")


def _month_days(name: str) -> int:
    month = _MONTHS.index(name) + 1
    first = dt.date(2025, month, 1)  # a common year: February has 28 days
    following = dt.date(2025 + month // 12, month % 12 + 1, 1)
    return (following - first).days


def find_dates(question: str) -> NumberCheck | None:
    """'how many days in march, april and may', 'how many days from march 3 to april 10'."""
    text = _plain(question)
    m = _DAYS_BETWEEN.search(text)
    if m:
        try:
            start = dt.date(2025, _MONTHS.index(m.group(1)) + 1, int(m.group(2)))
            end = dt.date(2025, _MONTHS.index(m.group(3)) + 1, int(m.group(4)))
        except ValueError:
            return None
        if end < end.replace(month=start.month, day=start.day):
            return None
        days = (end - start).days
        if days < 0:
            return None
        return NumberCheck("dates", Fraction(days), f"from {m.group(1)} {m.group(2)} to "
                           f"{m.group(3)} {m.group(4)} is {days} days",
                           (Fraction(int(m.group(2))), Fraction(int(m.group(4)))))
    m = _DAYS_IN_MONTHS.search(text)
    if m:
        names = re.findall(_MONTH_RE, m.group(1))
        if len(names) >= 1:
            total = sum(_month_days(n.lower()) for n in names)
            names = [n.capitalize() for n in names]
            listed = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
            return NumberCheck("dates", Fraction(total), f"{listed} have {total} days together"
                               if len(names) > 1 else f"{listed} has {total} days")
    m = _DAYS_AFTER.search(text)
    if m:
        factor = {("days", "weeks"): 7, ("hours", "days"): 24}.get((m.group(1), m.group(3)))
        if factor is None:
            return None
        n = int(m.group(2))
        return NumberCheck("dates", Fraction(n * factor),
                           f"{n} {m.group(3)} have {n * factor} {m.group(1)}", (Fraction(n),))
    return None


_EXACTLY: Final = re.compile(r"(?:exactly|of) (\d+) words?")
_IN_WORDS: Final = re.compile(r"\b(?:in|using|with) (?:exactly |just |only )?(\d+) words\b"
                              r"(?! or| at most| at least| max)")
_EXACTLY_N: Final = re.compile(r"\bexactly (\d+) words\b(?! or| at most| at least| max)")
"""'a title for a mystery novel, exactly three words', 'a line that's exactly seven words
long' (no "sentence" said)."""
_N_WORD: Final = re.compile(r"\b(\d+) word (?:sentence|motto|slogan|phrase|summary|"
                            r"description|title|headline|tagline|answer|reply|line)s?\b")
"""'a five-word sentence', 'a four-word motto' (hyphens read as spaces)."""
_STARTS: Final = re.compile(r"(?:starts?|starting|begins?|beginning) with (?:the word ['\"“]?"
                            r"([a-z]+)|['\"“]([a-z]+))")
_INCREASING: Final = re.compile(
    r"(?:each|every) (?:word|1) (?:is |being |has |having )?(?:longer than|more letters than) "
    r"the (?:one|1|word|previous|last|preceding)|increasing (?:word )?length")
_CONTAINS: Final = re.compile(r"(?:contain|contains|containing|include|includes|including|use"
                              r"|uses|using|mention|mentions)(?: both)? (?:the words? )?"
                              r"['\"“]([a-z]+)['\"”]?(?:,? and ['\"“]([a-z]+)['\"”]?)?")


def find_words(question: str) -> SentenceCheck | None:
    """The word constraint of a sentence task ('one sentence of exactly six words').

    Also 'each word longer than the one before', 'use "oslo"', 'starts with the word
    "today"', and 'describe the moon in exactly six words' (no "sentence" needed).
    """
    text = " ".join(replace_quantity_words(clean_spoken(question)).split())
    within = _IN_WORDS.search(text) or _N_WORD.search(text) or _EXACTLY_N.search(text)
    if "sentence" not in text:
        if within is None:
            return None
        return SentenceCheck("words", int(within.group(1)))
    m = _EXACTLY.search(text) or within
    n = int(m.group(1)) if m else None
    increasing = bool(_INCREASING.search(text))
    contains = tuple(w for w in (_CONTAINS.search(text) or _NO_MATCH).groups() if w)
    start = _STARTS.search(text)
    starts = (start.group(1) or start.group(2)) if start else ""
    if n is None and not increasing and not contains and not starts:
        return None
    return SentenceCheck("words", n, increasing, contains, starts)


class _NoMatch:
    @staticmethod
    def groups() -> tuple[str | None, ...]:
        return ()


_NO_MATCH: Final = _NoMatch()
FINDERS: Final[tuple[Callable[[str], Check | None], ...]] = (
    find_words, find_letters, find_clock_span, find_dates, find_units, find_arithmetic)
"""In order: the first finder that understands the question decides."""


def find_check(question: str) -> Check | None:
    """The literal check that applies to ``question``, or None (a question of fact)."""
    for finder in FINDERS:
        check = finder(question)
        if check is not None:
            return check
    return None
