"""The time between two clock times a question states: 'how many minutes from 9:40 to 11:15?'.

``find_clock_span(question)`` reads a question that states exactly two clock times and asks
how long lies between them ("how many minutes / hours", "how long", "how much time"), and
returns a ``SpanCheck`` that knows the answer. The times may be written or spoken:

- '9:40', '10:20 am', '5 pm', 'eight o'clock', 'noon', 'midnight';
- 'quarter to eight', 'ten past eleven', 'half past eight', 'twenty five after six';
- a bare hour with its part of the day: 'five in the afternoon', '8 in the morning';
- followed by 'in the morning', 'that afternoon', 'in the evening', 'at night' (or am/pm).

The second time is after the first: without am/pm, an end at or before the start is read
12 hours later ('11:15 to 1:05' is 1 h 50 min), then 12 more if needed ('9 pm to 1 am').

``SpanCheck.judge`` reads the answer as a duration in any unit: '95 minutes', '1 hour and 35
minutes', 'an hour and a half', '8.5 hours', or a bare number in the question's unit; the
small model's usual slip is a span subtracted digit by digit (11:15 - 9:40 -> "35 minutes").

Pure: stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from desktop_agent.core.reflection.stated_numbers import number_word, numbers_in
from desktop_agent.core.reflection.verdict import Judgement, Verdict
from desktop_agent.core.tools.calc_words import clean_spoken, replace_quantity_words

CHECKER: Final = "clock_span"
_HOUR_WORDS: Final = {w: i for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split(), 1)}
_MINUTE_WORDS: Final = {"five": 5, "ten": 10, "quarter": 15, "a quarter": 15, "twenty": 20,
                        "twenty five": 25, "half": 30}
_HOUR: Final = r"(1[0-2]|0?[1-9]|" + "|".join(sorted(_HOUR_WORDS, key=len, reverse=True)) + ")"
_PART: Final = (r"(?:\s*(a\.?m\.?|p\.?m\.?)(?![a-z])"
                r"|\s+(?:in the|this|that|at)\s+(morning|afternoon|evening|night))?")
_NOT_AMOUNT: Final = (r"(?!\s+(?:minutes?|hours?|days?|weeks?|seconds?|miles?|kilometers?|km|"
                      r"people|of|percent)\b)")
"""'ten to eleven people', 'five to ten minutes': a range, not a time."""
_TIME: Final = re.compile(
    r"\b(?:(noon|midday|midnight)"
    r"|(\d{1,2}):([0-5]\d)" + _PART +
    r"|(a quarter|quarter|half|twenty five|twenty|ten|five|[1-5]?\d)(?: minutes)? "
    r"(past|after|to|before|till) " + _HOUR + _NOT_AMOUNT + _PART +
    r"|" + _HOUR + r" ?(?:o'?clock)" + _PART +
    r"|" + _HOUR + r"(?:\s*(a\.?m\.?|p\.?m\.?)(?![a-z])"
    r"|\s+(?:in the|this|that|at)\s+(morning|afternoon|evening|night)))")
"""One clock time; groups: noon | h:mm part | minutes relation hour part | hour o'clock part
| hour part (a bare hour needs its part of the day)."""
_ASKS_SPAN: Final = re.compile(r"\bhow (?:many (minutes|hours)|long|much time)\b")
_IN_UNIT: Final = re.compile(r"\bin (minutes|hours)\b")
_DURATION: Final = re.compile(
    r"(\d+(?:\.\d+)?) hours?(?:,? (?:and )?(\d+(?:\.\d+)?) minutes?)?"
    r"|(\d+(?:\.\d+)?) minutes?"
    r"|\b(\d{1,2}):([0-5]\d)\b(?! ?[ap]\.?m)")


_HOURS_SAID: Final = (
    (re.compile(r"\b(?:an|one) hour and a half\b"), "1.5 hours"),
    (re.compile(r"\b(\d+) hours? and a half\b"), r"\1.5 hours"),
    (re.compile(r"\b(?:an|one) hour\b"), "1 hour"),
)
"""Durations the quantity words leave as words: 'an hour and a half', '2 hours and a half'."""


@dataclass(frozen=True, slots=True)
class ClockTime:
    """A time of day as the question said it."""

    minutes: int
    """Minutes after midnight (0-1439), as first read (12-hour times in the morning)."""
    marked: bool
    """The question said which half of the day (am/pm, morning, afternoon, noon)."""

    def said(self) -> str:
        """On a 12-hour clock, as digits: '7:45'."""
        hour, minute = divmod(self.minutes % (24 * 60), 60)
        return f"{(hour - 1) % 12 + 1}:{minute:02d}"


def _part_of_day(hour: int, part: str | None) -> tuple[int, bool]:
    """The 24-hour hour of a 12-hour ``hour`` in its part of the day; and whether one was said."""
    if not part:
        return hour % 24, False
    part = part.replace(".", "")
    if part in ("am", "morning"):
        return hour % 12, True
    if part == "night" and (hour < 6 or hour == 12):
        return hour % 12, True  # "two at night" is 2:00, "twelve at night" midnight
    return hour % 12 + 12, True  # pm, afternoon, evening, "nine at night"


def _hour_of(text: str) -> int:
    return _HOUR_WORDS.get(text) or int(text)


def clock_times(text: str) -> list[ClockTime]:
    """Every clock time in ``text`` (lower case, hyphens as spaces), in order."""
    found = []
    for m in _TIME.finditer(text):
        g = m.groups()
        if g[0]:
            found.append(ClockTime(0 if g[0] == "midnight" else 12 * 60, True))
            continue
        if g[1]:
            hour, minute, part = int(g[1]), int(g[2]), g[3] or g[4]
            if hour > 23:
                continue
            if hour > 12:
                found.append(ClockTime(hour * 60 + minute, True))
                continue
        elif g[5]:
            amount = _MINUTE_WORDS.get(g[5]) or int(g[5])
            if amount >= 60 or (g[5] == "half" and g[6] not in ("past", "after")):
                continue
            hour, part = _hour_of(g[7]), g[8] or g[9]
            sign = 1 if g[6] in ("past", "after") else -1
            minute = sign * amount
        elif g[10]:
            hour, minute, part = _hour_of(g[10]), 0, g[11] or g[12]
        else:
            hour, minute, part = _hour_of(g[13]), 0, g[14] or g[15]
        hour24, marked = _part_of_day(hour, part)
        found.append(ClockTime((hour24 * 60 + minute) % (24 * 60), marked))
    return found


def span_minutes(start: ClockTime, end: ClockTime) -> int:
    """Minutes from ``start`` to the next ``end`` after it (see the module docstring)."""
    span = end.minutes - start.minutes
    step = 12 * 60 if not (start.marked and end.marked) else 24 * 60
    while span <= 0:
        span += step
    return span


@dataclass(frozen=True, slots=True)
class SpanCheck:
    """The time between two clock times: the answer stated as a duration must equal it."""

    minutes: int
    unit: str
    """'minutes', 'hours' or '' (the question did not say)."""
    start: str
    end: str
    given: tuple[Fraction, ...]
    """The numbers of the question's times: said alone, they are not an answer."""
    clocks: frozenset[str] = frozenset()
    """The question's 'h:mm' readings: restated, they are not a duration."""
    checker: str = CHECKER

    @property
    def statement(self) -> str:
        """The answer as a clause: 'from 9:40 to 11:15 is 95 minutes'."""
        return f"from {self.start} to {self.end} is {_spoken(self.minutes, self.unit)}"

    def stated(self, utterance: str) -> tuple[Fraction, int] | None:
        """The last duration said, in minutes, and the index of its first number (or None).

        A clock reading the question states ('from 9:40 ...') is not a duration said.
        """
        text = " ".join(replace_quantity_words(clean_spoken(utterance)).split())
        for pattern, words in _HOURS_SAID:
            text = pattern.sub(words, text)
        last = None
        for m in _DURATION.finditer(text):
            if m.group(4) is None or m.group() not in self.clocks:
                last = m
        if last is not None:
            hours, minutes, alone, h, mm = last.group(1, 2, 3, 4, 5)
            if h is not None:
                value = Fraction(int(h) * 60 + int(mm))
            elif hours is not None:
                value = Fraction(hours) * 60 + Fraction(minutes or 0)
            else:
                value = Fraction(alone)
            return value, len(numbers_in(text[:last.start()]))
        said = numbers_in(utterance)
        if not said or said[-1] in self.given:
            return None
        return said[-1] * (60 if self.unit == "hours" else 1), len(said) - 1

    def judge(self, utterance: str) -> Judgement:
        """Good when the duration said is the span; repair when it is another."""
        stated = self.stated(utterance)
        if stated is None:
            return Judgement(Verdict.REFINE, f"The answer is missing: {self.statement}.",
                             self.statement, None, self.checker)
        value, index = stated
        if value == self.minutes:
            return Judgement(Verdict.GOOD, "", "", None, self.checker)
        wrong = _spoken(value, "minutes" if self.unit == "minutes" else "")
        return Judgement(Verdict.REPAIR, f"{wrong} is wrong: {self.statement}.",
                         self.statement, number_word(utterance, index), self.checker)


def _spoken(minutes: Fraction | int, unit: str) -> str:
    """Minutes said in ``unit`` ('minutes', 'hours', or '' for hours and minutes)."""
    minutes = Fraction(minutes)
    if unit == "minutes" or (not unit and minutes.denominator != 1):
        return f"{_number(minutes)} minutes"
    if unit == "hours":
        return f"{_number(minutes / 60)} hours"
    hours, rest = divmod(int(minutes), 60)
    if not hours:
        return f"{rest} minutes"
    said = f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{said} and {rest} minutes" if rest else said


def _number(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):.2f}".rstrip("0")


def find_clock_span(question: str) -> SpanCheck | None:
    """The span check of ``question`` (two clock times, a 'how long' asked), or None."""
    text = " ".join(clean_spoken(question).split())
    asked = _ASKS_SPAN.search(text)
    if asked is None:
        return None
    times = clock_times(text)
    if len(times) != 2:
        return None
    unit = asked.group(1) or ((m := _IN_UNIT.search(text)) and m.group(1)) or ""
    minutes = span_minutes(times[0], times[1])
    given = tuple(numbers_in(question))
    clocks = frozenset(re.findall(r"\b\d{1,2}:[0-5]\d\b", text))
    return SpanCheck(minutes, unit, times[0].said(), times[1].said(), given, clocks)
