"""The time between two clock times a question states: 'how many minutes from 9:40 to 11:15?'.

``find_clock_span(question)`` reads a question that asks how long lies between two clock
times ("how many minutes / hours", "how long", "how much time") and says nothing else that
changes the span, and returns a ``SpanCheck`` that knows the answer. The times may be written
or spoken:

- '9:40', '10:20 am', '5 pm', 'eight o'clock', 'noon', 'midnight', '14:00', 'ten forty five';
- 'quarter to eight', 'ten past eleven', 'half past midnight', 'twenty five after six';
- a bare hour with its part of the day: 'five in the afternoon', '8 in the morning';
- followed by 'in the morning', 'that afternoon', 'in the evening', 'at night' (or am/pm).

Which time is the start is said by the words: 'from A to / until B', 'between A and B', or a
start word before A ('leaves', 'starts', 'takes off', 'opens') and an end word before B
('arrives', 'ends', 'lands', 'closes'), A first. Anything else about the span (a number
besides the times, 'per week', a weekday, a break, 'local time', a race time) and there is
no check: the question is more than the span, and the check would correct a right answer.
A time without am/pm takes the reading that makes the shortest span ('1:30 to 5 pm' is
3 h 30 min; '11:15 to 1:05' is 1 h 50 min).

``SpanCheck.judge`` reads the durations said ('95 minutes', '1 hour and 35 minutes', '1 hr
35', '1:35', 'an hour and a half'); any of them equal to the span is the answer said. A bare
number counts in the question's unit, and not at all when the question named none. The
small model's usual slip is a span subtracted digit by digit (11:15 - 9:40 -> "35 minutes").

Pure: stdlib only.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from desktop_agent.core.reflection.stated_numbers import number_word, numbers_in
from desktop_agent.core.reflection.verdict import Judgement, Verdict
from desktop_agent.core.tools.calc_words import clean_spoken, replace_quantity_words

CHECKER: Final = "clock_span"
DAY: Final = 24 * 60
_HOUR_WORDS: Final = {w: i for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split(), 1)}
_MINUTE_WORDS: Final = {"five": 5, "ten": 10, "quarter": 15, "a quarter": 15, "twenty": 20,
                        "twenty five": 25, "half": 30}
_HOUR: Final = r"(1[0-2]|0?[1-9]|" + "|".join(sorted(_HOUR_WORDS, key=len, reverse=True)) + ")"
_PART_SAID: Final = (r"(?:\s*(a\.?m\.?|p\.?m\.?)(?![a-z])"
                     r"|\s+(?:in the|this|that|at|last)\s+(morning|afternoon|evening|night))")
"""A part of the day after a time: am/pm, 'in the morning', 'that afternoon', 'at night',
'last night'."""
_PART: Final = _PART_SAID + "?"
_SAID_END: Final = (r"(?=\s*(?:[.,;:!?]|$|and\b|to\b|until\b|till\b|then\b|in the\b|this\b"
                    r"|that\b|at night\b|a\.?m|p\.?m|o'?clock))")
"""A spoken time ends the phrase: 'ten to twelve customers' is a range, not 11:50."""
_TIME: Final = re.compile(
    r"\b(?:(noon|midday|midnight)"
    r"|(\d{1,2}):([0-5]\d)" + _PART +
    r"|(a quarter|quarter|half|twenty five|twenty|ten|five|[1-5]?\d minutes) "
    r"(past|after|to|before|till) (" + _HOUR[1:-1] + r"|noon|midnight)" + _SAID_END + _PART +
    r"|" + _HOUR + r" ?(?:o'?clock)" + _PART +
    r"|" + _HOUR + _PART_SAID + ")")
"""One clock time; groups: noon | h:mm part | minutes relation hour part | hour o'clock part
| hour part (a bare hour needs its part of the day)."""
_ASKS_SPAN: Final = re.compile(r"\bhow (?:many (minutes|hours)|long|much time)\b")
_IN_UNIT: Final = re.compile(r"\bin (minutes|hours)\b")
_START_WORDS: Final = (r"(?:leaves?|leaving|departs?|starts?|starting|begins?|beginning|"
                       r"takes? off|opens?|opening|from|between|gets? up|wake up|asleep|"
                       r"(?:go|went|going) to (?:bed|sleep))")
_END_WORDS: Final = (r"(?:arrives?|arriving|gets? (?:in|there|back)|ends?|ending|finish(?:es)?|"
                     r"lands?|landing|closes?|closing|until|till|to|and|stops?|woke(?: up)?)")
_OTHER: Final = re.compile(
    r"\b(?:per|each|every|week|weeks|weekly|days|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|tomorrow|yesterday|next day|local|zone|break|breaks|lunch|pause|"
    r"faster|slower|earlier|later|before|after|late|early|delay|delayed|runs for|lasts for|"
    r"race|marathon|lap|video|song|track|clip|movie|film|timer|stopwatch|record)\b")
"""Words that make the question more than the span between its two times."""
_DURATION: Final = re.compile(
    r"(?<![\d:.])(?P<h>\d+(?:\.\d+)?) ?(?:hours?|hrs?|h)(?:\b|(?=\d))"
    r"(?:,? (?:and )?(?P<m>\d{1,2})(?: ?(?:minutes?|mins?|m)\b|(?= *(?:[.,;!?]|$)))"
    r"|(?P<m2>\d{2})\b)?"
    r"|(?<![\d:.])(?P<alone>\d+(?:\.\d+)?) ?(?:minutes?|mins?)\b"
    r"|(?<![\d.])(?P<ch>\d{1,2}):(?P<cm>[0-5]\d)(?![\d:])(?! ?[ap]\.?m)")
"""A duration said: 'N hours (and) M minutes' / '1 hr 35' / '1h35', 'N minutes', 'h:mm'."""
_CLOCK_WORDS: Final = re.compile(r"\b(?:at|from|to|until|till|by|arriving|leaving)\s*$")
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
    """The question said which half of the day (am/pm, morning, afternoon, noon, 14:00)."""
    at: int = 0
    """Where it starts in the question's text."""

    def readings(self) -> tuple[int, ...]:
        """The times of day it may mean: itself, or both halves of the day when unmarked."""
        if self.marked:
            return (self.minutes,)
        return (self.minutes % DAY, (self.minutes + DAY // 2) % DAY)


def said(minutes: int) -> str:
    """A time of day on a 12-hour clock, as digits: '7:45'."""
    hour, minute = divmod(minutes % DAY, 60)
    return f"{(hour - 1) % 12 + 1}:{minute:02d}"


def _part_of_day(hour: int, part: str | None) -> tuple[int, bool]:
    """The 24-hour hour of a 12-hour ``hour`` in its part of the day; and whether one was said."""
    if not part:
        return hour % 24, hour > 12 or hour == 0
    part = part.replace(".", "")
    if part in ("am", "morning"):
        return hour % 12, True
    if part == "night" and (hour < 6 or hour == 12):
        return hour % 12, True  # "two at night" is 2:00, "twelve at night" midnight
    return hour % 12 + 12, True  # pm, afternoon, evening, "nine at night"


def _hour_of(text: str) -> tuple[int, bool]:
    """An hour said ('eight', '8', 'noon', 'midnight') and whether it says the half of day."""
    if text == "noon":
        return 12, True
    if text == "midnight":
        return 0, True
    return _HOUR_WORDS.get(text) or int(text), False


def clock_times(text: str) -> list[ClockTime]:
    """Every clock time in ``text`` (lower case, hyphens as spaces), in order."""
    found = []
    for m in _TIME.finditer(text):
        g = m.groups()
        if g[0]:
            found.append(ClockTime(0 if g[0] == "midnight" else 12 * 60, True, m.start()))
            continue
        if g[1]:
            hour, minute, part = int(g[1]), int(g[2]), g[3] or g[4]
            if hour > 23:
                continue
            if hour > 12 or hour == 0:
                found.append(ClockTime(hour * 60 + minute, True, m.start()))
                continue
            hour24, marked = _part_of_day(hour, part)
        elif g[5]:
            amount = _MINUTE_WORDS.get(g[5]) or int(g[5].split()[0])
            if amount >= 60 or (g[5] == "half" and g[6] not in ("past", "after")):
                continue
            hour, named = _hour_of(g[7])
            sign = 1 if g[6] in ("past", "after") else -1
            minute = sign * amount
            hour24, marked = (hour, True) if named else _part_of_day(hour, g[8] or g[9])
        else:
            hour, minute = _hour_of(g[10] or g[13])[0], 0
            hour24, marked = _part_of_day(hour, g[11] or g[12] or g[14] or g[15])
        found.append(ClockTime((hour24 * 60 + minute) % DAY, marked, m.start()))
    return found


def span_minutes(start: ClockTime, end: ClockTime) -> int:
    """Minutes from ``start`` to ``end``: the shortest span any reading of the two allows."""
    spans = []
    for a, b in itertools.product(start.readings(), end.readings()):
        spans.append((b - a) % DAY or DAY)
    return min(spans)


def _in_order(text: str, first: ClockTime, second: ClockTime) -> bool:
    """The words say the first time is the start and the second the end."""
    before_first = text[max(0, first.at - 40):first.at]
    between = text[first.at:second.at]
    return bool(re.search(_START_WORDS + r"\b[^.?!]*$", before_first)
                and re.search(r"\b" + _END_WORDS + r"\b", between)
                and not re.search(r"[.?!]\s", between))


@dataclass(frozen=True, slots=True)
class SpanCheck:
    """The time between two clock times: a duration said must equal it."""

    minutes: int
    unit: str
    """'minutes', 'hours' or '' (the question did not say)."""
    start: str
    end: str
    given: tuple[Fraction, ...]
    """The numbers of the question's times: said alone, they are not an answer."""
    clocks: frozenset[str] = frozenset()
    """The two times as 'h:mm' (12- and 24-hour): restated, they are not a duration."""
    checker: str = CHECKER

    @property
    def statement(self) -> str:
        """The answer as a clause: 'from 9:40 to 11:15 is 95 minutes'."""
        return f"from {self.start} to {self.end} is {_spoken(self.minutes, self.unit)}"

    def durations(self, utterance: str) -> list[tuple[Fraction, int | None, Fraction]]:
        """Every duration said: minutes, the word its first number starts at, a tolerance.

        The tolerance is half the last digit said ('1.6 hours' is 93-99 minutes). The word
        is None when the utterance's own numbers cannot locate it ('an hour' read as
        '1 hour'). A bare number counts in the question's unit (not without one).
        """
        text = " ".join(replace_quantity_words(clean_spoken(utterance)).split())
        located = True
        for pattern, words in _HOURS_SAID:
            text, count = pattern.subn(words, text)
            located = located and not count
        found: list[tuple[Fraction, int | None, Fraction]] = []
        for m in _DURATION.finditer(text):
            hours, alone, clock = m.group("h"), m.group("alone"), m.group("ch")
            tolerance = Fraction(0)
            if clock is not None:
                if m.group() in self.clocks or _CLOCK_WORDS.search(text[:m.start()]):
                    continue  # a time of day restated ('arriving at 11:10'), not a duration
                value = Fraction(int(clock) * 60 + int(m.group("cm")))
            elif hours is not None:
                value = Fraction(hours) * 60 + Fraction(m.group("m") or m.group("m2") or 0)
                if "." in hours:  # '1.6 hours' for 95 minutes: as rounded as it was said
                    tolerance = Fraction(60, 2 * 10 ** len(hours.partition(".")[2]))
            else:
                value = Fraction(alone)
            word = number_word(utterance, len(numbers_in(text[:m.start()]))) if located else None
            found.append((value, word, tolerance))
        if found or not self.unit:
            return found
        bare = numbers_in(utterance)
        factor = 60 if self.unit == "hours" else 1
        if not bare or (bare[-1] in self.given and bare[-1] * factor != self.minutes):
            return []
        return [(bare[-1] * factor, number_word(utterance, len(bare) - 1), Fraction(0))]

    def judge(self, utterance: str) -> Judgement:
        """Good when a duration said is the span; repair when the last one is another."""
        found = self.durations(utterance)
        if any(abs(value - self.minutes) <= tolerance for value, _, tolerance in found):
            return Judgement(Verdict.GOOD, "", "", None, self.checker)
        if not found:
            if self.unit or not numbers_in(utterance):
                return Judgement(Verdict.REFINE, f"The answer is missing: {self.statement}.",
                                 self.statement, None, self.checker)
            return Judgement(Verdict.GOOD, "", "", None, self.checker)  # 'Four.': no unit
        value, word, _ = found[-1]
        wrong = _spoken(value, "minutes" if self.unit == "minutes" else "")
        return Judgement(Verdict.REPAIR, f"{wrong} is wrong: {self.statement}.",
                         self.statement, word, self.checker)


def durations_in(utterance: str) -> list[Fraction]:
    """The durations said in hours and minutes together, in minutes.

    '3 hours and 30 minutes' -> 210, 'an hour and a half' -> 90; a duration in one unit
    alone ('30 minutes'), and clock readings ('1:35'), are left out: they are numbers as
    they stand.
    """
    text = " ".join(replace_quantity_words(clean_spoken(utterance)).split())
    for pattern, words in _HOURS_SAID[:2]:
        text = pattern.sub(words, text)
    found = []
    for m in _DURATION.finditer(text):
        minutes = m.group("m") or m.group("m2")
        if m.group("h") is not None and (minutes is not None or "." in m.group("h")):
            found.append(Fraction(m.group("h")) * 60 + Fraction(minutes or 0))
    return found


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
    text = f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{text} and {rest} minutes" if rest else text


def _number(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):.2f}".rstrip("0")


_UNITS: Final = "one two three four five six seven eight nine".split()
_TENS: Final = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_TEENS: Final = {w: i for i, w in enumerate(
    "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(), 10)}
_SPOKEN_CLOCK: Final = re.compile(
    r"\b(" + "|".join(sorted(_HOUR_WORDS, key=len, reverse=True)) + r") "
    r"(oh (?:" + "|".join(_UNITS) + r")|(?:" + "|".join(_TENS) + r")(?: (?:" + "|".join(_UNITS)
    + r"))?|" + "|".join(_TEENS) + r")(?=" + _PART_SAID + r"|\s*(?:[.,;:!?]|$)|\s+(?:and|to|"
    r"until|till)\b)")
"""A time said as its hour and minutes: 'ten forty five', 'one twenty', 'nine oh five',
followed by its part of the day or the end of the phrase ('two twenty dollar bills' is not)."""


def _minutes_word(text: str) -> int:
    """The minutes of a spoken clock time: 'forty five' -> 45, 'oh five' -> 5, 'ten' -> 10."""
    words = text.split()
    if words[0] == "oh":
        return _UNITS.index(words[1]) + 1
    if words[0] in _TEENS:
        return _TEENS[words[0]]
    return _TENS[words[0]] + (_UNITS.index(words[1]) + 1 if len(words) > 1 else 0)


def _digits_for_spoken_times(text: str) -> str:
    """``text`` with each spoken clock time as digits: 'ten forty five' -> '10:45'."""
    return _SPOKEN_CLOCK.sub(
        lambda m: f"{_HOUR_WORDS[m.group(1)]}:{_minutes_word(m.group(2)):02d}", text)


def find_clock_span(question: str) -> SpanCheck | None:
    """The span check of ``question`` (module docstring), or None."""
    text = _digits_for_spoken_times(" ".join(clean_spoken(question).split()))
    asked = _ASKS_SPAN.search(text)
    if asked is None:
        return None
    times = clock_times(text)
    if len(times) != 2 or not _in_order(text, *times):
        return None
    rest = _TIME.sub(" ", text)
    if numbers_in(rest) or _OTHER.search(rest):
        return None  # '... with a 30 minute lunch', '... per week': more than the span
    unit = asked.group(1) or ((m := _IN_UNIT.search(text)) and m.group(1)) or ""
    minutes = span_minutes(times[0], times[1])
    clocks = frozenset(f"{h}:{mm:02d}" for t in times for r in t.readings()
                       for h, mm in (divmod(r, 60), (((r // 60) - 1) % 12 + 1, r % 60)))
    start, end = times
    return SpanCheck(minutes, unit, said(start.minutes), said(end.minutes),
                     tuple(numbers_in(question)), clocks)
