"""Turn LLM output into text that a TTS voice reads well.

Choices made here (each is a constant or a rule below, so it is easy to change):

* 24-hour times become 12-hour speech: "14:00" -> "two p m", "14:30" -> "two thirty p m",
  "00:15" -> "twelve fifteen a m". Whole hours without a.m./p.m. get "o'clock"
  ("9:00" -> "nine o'clock"). "a.m."/"pm" are spelled "a m"/"p m" so every voice says
  the letters.
* URLs are read as their domain ("https://www.example.com/x" -> "example dot com").
* Fenced code blocks are replaced by :data:`CODE_PHRASE` ("Code shown on screen.").
* A bare four-digit integer from 1100 to 2099 reads as a year ("1999" ->
  "nineteen ninety-nine"); with a thousands separator it is a count ("1,999").
* ISO dates read as "November thirtieth, twenty twenty-six"; the year is left out when
  ``now`` (today's date, passed in: core never reads the clock) is in the same year.
  Numeric dates ("01/12/2026") are read in the locale's ``date_order``, and a DMY locale
  says "the first of December" (see :mod:`desktop_agent.core.text.spoken_forms`).
* Phone numbers are read digit by digit, a pause (comma) between groups.
* An all-capitals token of 3+ characters mixing letters and digits ("K7Q2LM") is
  spelled: "K seven Q two L M"; so is a lower- or mixed-case code ("ab12x" -> "A B one
  two X").
* Digits glued to letters are read apart ("x86" -> "x eighty-six"); a colon between
  digits that is not a time is a ratio ("3:1" -> "three to one"); "e.g.", "i.e.",
  "etc.", "vs.", "Mr.", "Mrs.", "Dr.", "approx." are expanded.
* Emoji and control characters are dropped; the result is one line, single-spaced,
  with no digits left in it.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Final, TypeAlias

from desktop_agent.core.text.markdown import (
    CODE_PHRASE,
    replace_code_blocks,
    replace_urls,
    strip_block_markdown,
    strip_inline_markdown,
    strip_invisible,
)
from desktop_agent.core.text.number_words import (
    ONES,
    TENS,
    digits_to_words,
    int_to_words,
    number_string_to_words,
    ordinal_words,
    plural_year_words,
    year_to_words,
)
from desktop_agent.core.text.spoken_forms import (
    CODE,
    DateOrder,
    date_words,
    replace_dates,
    replace_phone_numbers,
    spell_code,
)
from desktop_agent.core.text.vocabulary import (
    ABBREVIATIONS,
    CURRENCIES,
    MONTHS,
    SCALE_WORDS,
    UNITS,
)

__all__ = ["CODE_PHRASE", "normalize_for_speech"]

_MAX_INT_DIGITS: Final = 15
"""Longer digit runs are read digit by digit (and never reach ``int()``'s size limit)."""

_NUM: Final = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?"
"""A number as written: optional thousands commas, optional decimals. No sign."""
_BEFORE_NUM: Final = r"(?<![\w.,])"

_Rule: TypeAlias = tuple[re.Pattern[str], Callable[[re.Match[str]], str]]


def _safe_int(digits: str) -> int | None:
    digits = digits.replace(",", "")
    if not digits.isascii() or not digits.isdigit() or len(digits) > _MAX_INT_DIGITS:
        return None
    return int(digits)


def _count_words(digits: str) -> str:
    value = _safe_int(digits)
    return digits_to_words(digits) if value is None else int_to_words(value)


def _is_one(number: str) -> bool:
    return number.lstrip("-") == "1"


# ---- dates and times --------------------------------------------------------------------

_ISO_DATE: Final = re.compile(r"(?<![\w.-])([0-9]{4})-([0-9]{2})-([0-9]{2})(?![\w-])")
_MONTH_DAY: Final = re.compile(
    r"\b(" + "|".join(MONTHS) + r")\s+([0-9]{1,2})(?:st|nd|rd|th)?\b(?![:.,]?[0-9])"
)


def _replace_dates(text: str, now: datetime.date | None, order: DateOrder) -> str:
    def iso(match: re.Match[str]) -> str:
        try:
            date = datetime.date(*(int(part) for part in match.groups()))
        except ValueError:  # "2026-13-45" is not a date; leave it to the number rules
            return match.group(0)
        return date_words(date, now, order)

    def month_day(match: re.Match[str]) -> str:
        day = int(match.group(2))
        if not 1 <= day <= 31:
            return match.group(0)
        return f"{match.group(1)} {ordinal_words(day)}"

    text = replace_dates(_ISO_DATE.sub(iso, text), now, order)
    return _MONTH_DAY.sub(month_day, text)


_AMPM: Final = r"(?:\s?([AaPp])\.?\s?[Mm](?![A-Za-z])(\.)?)"
_CLOCK: Final = re.compile(r"(?<![\w:.,])([01]?[0-9]|2[0-3]):([0-5][0-9])(?![0-9:])" + _AMPM + "?")
_HOUR_AMPM: Final = re.compile(r"(?<![\w:.,])(1[0-2]|0?[1-9])" + _AMPM)


def _keeps_period(match: re.Match[str]) -> bool:
    """Whether the "." of a trailing "a.m." also ends the sentence."""
    rest = match.string[match.end() :].lstrip(" ")
    return not rest or rest[0] == "\n" or rest[0].isupper()


def _clock_words(hour: int, minute: int, meridiem: str) -> str:
    if not meridiem and (hour == 0 or hour > 12):
        meridiem = "a" if hour < 12 else "p"
    if meridiem:
        hour = hour % 12 or 12
    words = [int_to_words(hour)]
    if minute == 0:
        if not meridiem:
            words.append("o'clock")
    elif minute < 10:
        words += ["oh", ONES[minute]]
    else:
        words.append(int_to_words(minute))
    if meridiem:
        words += [meridiem.lower(), "m"]
    return " ".join(words)


def _replace_times(text: str) -> str:
    def clock(match: re.Match[str]) -> str:
        hour, minute = int(match.group(1)), int(match.group(2))
        spoken = _clock_words(hour, minute, match.group(3) or "")
        return spoken + ("." if match.group(4) and _keeps_period(match) else "")

    def hour_only(match: re.Match[str]) -> str:
        spoken = _clock_words(int(match.group(1)), 0, match.group(2))
        return spoken + ("." if match.group(3) and _keeps_period(match) else "")

    return _HOUR_AMPM.sub(hour_only, _CLOCK.sub(clock, text))


_ABBREVIATION: Final = re.compile(
    r"(?<![\w.])(" + "|".join(re.escape(a) for a in ABBREVIATIONS) + r")(?!\w)", re.IGNORECASE
)


def _abbreviation(match: re.Match[str]) -> str:
    spoken = ABBREVIATIONS[match.group(1).lower()]
    return spoken + ("." if _keeps_period(match) and match.group(1).endswith("etc.") else "")


# ---- money, percentages, units ------------------------------------------------------------

_MONEY: Final = re.compile(
    r"(?<![\w.,])(-?)([$€£¥])\s?([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.([0-9]+))?"
    r"(?:\s?(thousand|million|billion|trillion|bn|[kKmMbB])(?![\w]))?"
)


def _money_words(match: re.Match[str]) -> str:
    sign, symbol, whole, frac, scale = match.groups()
    one, many, sub_one, sub_many = CURRENCIES[symbol]
    minus = "minus " if sign else ""
    if scale:
        amount = number_string_to_words(whole + (f".{frac}" if frac else ""))
        return f"{minus}{amount} {SCALE_WORDS[scale.lower()]} {many}"
    units = _safe_int(whole)
    if units is None or (frac and (len(frac) > 2 or not sub_one)):
        amount = number_string_to_words(whole + (f".{frac}" if frac else ""))
        return f"{minus}{amount} {many}"
    cents = int(frac.ljust(2, "0")) if frac else 0
    parts = []
    if units or not cents:
        parts.append(f"{int_to_words(units)} {one if units == 1 else many}")
    if cents:
        parts.append(f"{int_to_words(cents)} {sub_one if cents == 1 else sub_many}")
    return minus + " and ".join(parts)


_UNIT_ALTERNATION: Final = "|".join(
    re.escape(unit) for unit in sorted(UNITS, key=len, reverse=True)
)
_MEASURE: Final = re.compile(
    _BEFORE_NUM + r"(-?" + _NUM + r")\s?(" + _UNIT_ALTERNATION + r")(?![A-Za-z0-9/])"
)


def _measure_words(match: re.Match[str]) -> str:
    number, unit = match.groups()
    one, many = UNITS[unit]
    return f"{number_string_to_words(number)} {one if _is_one(number) else many}"


# ---- numbers ------------------------------------------------------------------------------

_ORDINAL: Final = re.compile(_BEFORE_NUM + r"([0-9]+)(?:st|nd|rd|th)\b")
_DECADE: Final = re.compile(_BEFORE_NUM + r"(1[1-9][0-9]0|20[0-9]0)s\b")
_SHORT_DECADE: Final = re.compile(r"(?<!\w)['\u2019]([1-9])0s\b")
_IDENTIFIER: Final = re.compile(r"\b(?=[A-Z0-9]*[A-Z])(?=[A-Z0-9]*[0-9])[A-Z0-9]{3,}\b")
_YEAR: Final = r"(?:1[1-9][0-9]{2}|20[0-9]{2})"
_YEAR_RANGE: Final = re.compile(
    r"(?<![\w.,-])(" + _YEAR + r")\s?[-\u2013]\s?(" + _YEAR + r")(?![\w]|[.,][0-9])"
)
_YEAR_ALONE: Final = re.compile(r"(?<![\w.,$-])(" + _YEAR + r")(?![\w]|[.,][0-9])")
_VERSION: Final = re.compile(r"(?<![0-9.,])[0-9]+(?:\.[0-9]+){2,}(?![\w])")
_RANGE: Final = re.compile(r"(?<=[0-9])\s?\u2013\s?(?=[0-9])")
_NUMBER: Final = re.compile(r"(?<![\w.,])(-?)(" + _NUM + r")(?![\w])")
_POINT_NUMBER: Final = re.compile(r"(?<![\w.])\.([0-9]+)\b")
_ANY_DIGITS: Final = re.compile(r"[0-9]+")


def _spell_identifier(match: re.Match[str]) -> str:
    return " ".join(ONES[int(ch)] if ch.isdigit() else ch for ch in match.group(0))


def _ordinal(match: re.Match[str]) -> str:
    value = _safe_int(match.group(1))
    return digits_to_words(match.group(1)) if value is None else ordinal_words(value)


def _short_decade(match: re.Match[str]) -> str:
    tens = TENS[int(match.group(1))] if match.group(1) != "1" else "ten"
    return (tens[:-1] + "ies") if tens.endswith("y") else tens + "s"


def _year_range(match: re.Match[str]) -> str:
    return f"{year_to_words(int(match.group(1)))} to {year_to_words(int(match.group(2)))}"


def _version(match: re.Match[str]) -> str:
    # Leading space: "v1.2.3" -> "v one point two point three".
    return " " + " point ".join(_count_words(part) for part in match.group(0).split("."))


def _number(match: re.Match[str]) -> str:
    return ("minus " if match.group(1) else "") + number_string_to_words(match.group(2))


def _glued_digits(match: re.Match[str]) -> str:
    """Digits stuck to letters ("x86", "4K"): read apart from them."""
    digits = match.group(0)
    spoken = digits_to_words(digits) if digits.startswith("0") else _count_words(digits)
    return f" {spoken} "


_NUMBER_RULES: Final[tuple[_Rule, ...]] = (
    (_ORDINAL, _ordinal),
    (_DECADE, lambda m: plural_year_words(int(m.group(1)))),
    (_SHORT_DECADE, _short_decade),
    (_IDENTIFIER, _spell_identifier),
    (CODE, spell_code),
    (_YEAR_RANGE, _year_range),
    (_YEAR_ALONE, lambda m: year_to_words(int(m.group(1)))),
    (_VERSION, _version),
    (_RANGE, lambda m: " to "),
    (_NUMBER, _number),
    (_POINT_NUMBER, lambda m: "point " + digits_to_words(m.group(1))),
    (_ANY_DIGITS, _glued_digits),
)


# ---- symbols and tidying ------------------------------------------------------------------

_BEFORE_NUMBERS: Final = (
    (re.compile(r"\b([CF])#"), r"\1 sharp"),
    (re.compile(r"#(?=[0-9])"), "number "),
    (re.compile(r"~(?=\s?[0-9])"), "about "),
    (re.compile(r"(?<=[0-9]):(?=[0-9])"), " to "),  # not a time (those went first): a ratio
    (re.compile(r"(?<=[0-9])x(?=[0-9])"), " by "),
    (re.compile(r"(?<=[0-9])\s?\u00d7\s?(?=[0-9])"), " times "),
    # Arithmetic restated by the model: "19 * 42 = 798" is never "nineteen forty-two".
    (re.compile(r"(?<=[0-9])\s*\*\s*(?=[0-9])"), " times "),
    (re.compile(r"(?<=[0-9]) [-\u2212] (?=[0-9])"), " minus "),
)
_SYMBOLS: Final = (
    (re.compile(r"\s*&\s*"), " and "),
    (re.compile(r"\s*\+\s*"), " plus "),
    (re.compile(r"\s+=\s+"), " equals "),
    (re.compile(r"\u00b1"), " plus or minus "),
    (re.compile(r"[\u2248\u223c]"), " about "),
    (re.compile(r"\s*[\u2192\u27f6]\s*"), " to "),
    (re.compile(r"\u00bd"), " one half"),
    (re.compile(r"\u00bc"), " one quarter"),
    (re.compile(r"\u00be"), " three quarters"),
    (re.compile(r"\s*@\s*"), " at "),
    (re.compile(r"\s*%"), " percent"),
    (re.compile(r"[/\\_|]"), " "),
    (re.compile(r"[*#`^{}\[\]<>°]"), ""),
)
_TIDY: Final = (
    (re.compile(r"\(\s*\)"), ""),
    (re.compile(r"[ \t]+"), " "),
    (re.compile(r" (?=[,.;:!?)])"), ""),
    (re.compile(r"(?<=\() "), ""),
    (re.compile(r"([,;:])(?:\s*[,;:])+"), r"\1"),
    (re.compile(r"(?<!\.)\.\s*\.(?!\.)"), "."),
    (re.compile(r"(?<=[,;:])(?=[^\s0-9])"), " "),
)


def _apply(text: str, rules: tuple[_Rule, ...]) -> str:
    for pattern, replace in rules:
        text = pattern.sub(replace, text)
    return text


def _substitute(text: str, rules: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return text


def normalize_for_speech(text: str, *, now: datetime.date | None = None,
                         date_order: DateOrder = "MDY") -> str:
    """Rewrite LLM output so a TTS voice reads it naturally.

    Strips markdown, code blocks, emoji and control characters; reads URLs as
    their domain; spells out times, dates, money, percentages, units, ordinals,
    years, numbers and mixed letter/digit identifiers. Never raises.

    Args:
        text: Raw LLM text (a whole reply or one chunk of it).
        now: Today's date, if known. Only used to leave the year out of dates in
            the current year. Core never reads the clock, so the caller passes it.
        date_order: The locale's order of numeric dates ("MDY", "DMY", "YMD"); the
            caller reads it from the system locale (core reads no locale).

    Returns:
        Plain text on one line, single-spaced. "" when nothing speakable is left.
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = strip_invisible(text)
    text = replace_code_blocks(text)
    text = strip_block_markdown(text)
    text = strip_inline_markdown(text)
    text = replace_urls(text)
    text = _replace_dates(text, now, date_order)
    text = replace_phone_numbers(text)
    text = _replace_times(text)
    text = _ABBREVIATION.sub(_abbreviation, text)
    text = _substitute(text, _BEFORE_NUMBERS)
    text = _MONEY.sub(_money_words, text)
    text = _MEASURE.sub(_measure_words, text)
    text = _apply(text, _NUMBER_RULES)
    text = _substitute(text, _SYMBOLS)
    text = _substitute(text, _TIDY)
    return text.strip()
