"""Spoken forms of phone numbers, dates and codes (passes of ``normalize_for_speech``).

* Phone numbers are read digit by digit, group by group, with a comma (a pause) between
  groups: "+44 161 496 0000" -> "plus four four, one six one, four nine six, zero zero
  zero zero". A phone number is a "+" with 8-15 digits, "(555) 123-4567", "555-1234", or
  three to five groups of 2-5 digits separated by spaces, hyphens or dots (7-15 digits in
  all; not "10 000 000", whose groups after the first are all three digits long).
* Numeric dates follow the locale's order (``DateOrder``: "MDY", "DMY" or "YMD"; the
  caller reads the system locale's name, ``date_order_for_locale`` maps it):
  "01/12/2026" is January twelfth in MDY and the first of December in DMY; a date valid
  only one way ("30/11/2026") is read that way; a four-digit first group is always
  year-month-day. Two-digit years are 20xx (19xx from 70). Dots only with a four-digit
  year ("30.11.2026"; "1.2.26" may be a version).
* Dates are said as the locale says them: "November thirtieth" (MDY, YMD) or "the
  thirtieth of November" (DMY); a date written day first ("30 November 2026") is said
  day first. The year is left out when it is this year (``now``, passed by the caller).
* Codes in lower or mixed case are spelled letter by letter: "ab12x" -> "A B one two X",
  "gpt4o" -> "G P T four O", "abc123" -> "A B C one two three". A code is a word of
  letters and digits that switches between them at least twice, or starts with two or more
  letters followed by three or more digits. Fewer switches stay words ("x86" -> "x
  eighty-six", "mp3", "covid19"). Letters are spelled in capitals because voices read a
  lone "a" as the article.
"""

from __future__ import annotations

import datetime
import re
from typing import Final, Literal

from desktop_agent.core.text.number_words import ONES, ordinal_words, year_to_words
from desktop_agent.core.text.vocabulary import MONTHS

DateOrder = Literal["MDY", "DMY", "YMD"]
DATE_ORDERS: Final = ("MDY", "DMY", "YMD")


_MDY_TERRITORIES: Final = frozenset(
    {"US", "PH", "PR", "AS", "GU", "UM", "VI", "MP", "FM", "MH", "PW"})
_YMD_TERRITORIES: Final = frozenset(
    {"CN", "TW", "HK", "JP", "KR", "KP", "MN", "HU", "LT", "SE", "IR", "BT", "CA", "ZA"})
_YMD_LANGUAGES: Final = frozenset({"zh", "ja", "ko", "hu", "lt", "mn", "sv"})


def date_order_for_locale(name: str) -> DateOrder:
    """The order of numeric dates in a locale ("en_US.UTF-8" -> "MDY", "en_GB" -> "DMY").

    Args:
        name: A POSIX locale name (``$LC_ALL``, ``$LC_TIME`` or ``$LANG``: the caller
            reads them). "C", "POSIX" and "" give "MDY", the order of the US English voice.

    Returns:
        "MDY" for the United States and the territories that write month first,
        "YMD" for the locales that write the year first (China, Japan, Korea, Hungary,
        Lithuania, Sweden, Canada, South Africa...), "DMY" everywhere else.
    """
    base = name.split(".")[0].split("@")[0]
    language, _, territory = base.partition("_")
    if not language or base in ("C", "POSIX"):
        return "MDY"
    if territory.upper() in _MDY_TERRITORIES:
        return "MDY"
    if territory.upper() in _YMD_TERRITORIES or (not territory and language in _YMD_LANGUAGES):
        return "YMD"
    return "DMY"


def date_words(date: datetime.date, now: datetime.date | None, order: DateOrder = "MDY",
               day_first: bool = False) -> str:
    """A date as said: "November thirtieth" or "the thirtieth of November" (+ the year).

    Args:
        date: The date.
        now: Today; the year is left out when it is the same. None: always said.
        order: The locale's order: DMY says the day first.
        day_first: Say the day first whatever the order (it was written so).
    """
    month, day = MONTHS[date.month - 1], ordinal_words(date.day)
    spoken = f"the {day} of {month}" if order == "DMY" or day_first else f"{month} {day}"
    if now is not None and now.year == date.year:
        return spoken
    return f"{spoken}, {year_to_words(date.year)}"


def _date(year: int, month: int, day: int) -> datetime.date | None:
    try:
        return datetime.date(year, month, day)
    except ValueError:
        return None


def _full_year(digits: str) -> int:
    year = int(digits)
    if len(digits) == 2:
        return year + (1900 if year >= 70 else 2000)
    return year


_NUMERIC_DATE: Final = re.compile(
    r"(?<![\w./:-])([0-9]{1,4})([/.-])([0-9]{1,2})\2([0-9]{4}|[0-9]{1,2})(?![\w]|[./:-][0-9])")


def _numeric_date(match: re.Match[str], now: datetime.date | None, order: DateOrder) -> str:
    first, sep, second, last = match.groups()
    if len(first) == 4:
        if len(last) > 2:
            return match.group(0)
        date = _date(int(first), int(second), int(last))
    elif len(first) == 3 or len(last) == 1 or (sep == "." and len(last) != 4):
        return match.group(0)
    else:
        year = _full_year(last)
        mdy = _date(year, int(first), int(second))
        dmy = _date(year, int(second), int(first))
        # A year-first locale writes no day-month-year: the values tell which it is.
        date = (dmy or mdy) if order == "DMY" or (order == "YMD" and mdy is None) \
            else (mdy or dmy)
    return match.group(0) if date is None else date_words(date, now, order)


_MONTH: Final = "(" + "|".join(MONTHS) + r")"
_MONTH_DAY_YEAR: Final = re.compile(
    r"\b" + _MONTH + r"\s+([0-9]{1,2})(?:st|nd|rd|th)?,?\s+([0-9]{4})\b(?![.,]?[0-9])")
_DAY_MONTH: Final = re.compile(
    r"(?<![\w.,])([0-9]{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH
    + r"\b(?:,?\s+([0-9]{4})\b)?(?![.,]?[0-9])")


def replace_dates(text: str, now: datetime.date | None, order: DateOrder) -> str:
    """Numeric dates and dates with a month's name, said in the locale's order."""

    def month_day_year(match: re.Match[str]) -> str:
        month = MONTHS.index(match.group(1)) + 1
        date = _date(int(match.group(3)), month, int(match.group(2)))
        return match.group(0) if date is None else date_words(date, now, order)

    def day_month(match: re.Match[str]) -> str:
        day, month = int(match.group(1)), MONTHS.index(match.group(2)) + 1
        year = int(match.group(3)) if match.group(3) else None
        date = _date(year or 2000, month, day)  # 2000: a leap year, so 29 February is a day
        if date is None:
            return match.group(0)
        spoken = (f"the {ordinal_words(day)} of {match.group(2)}" if year is None
                  else date_words(date, now, order, day_first=True))
        if re.search(r"\bthe\s+$", match.string[:match.start()], re.IGNORECASE):
            spoken = spoken.removeprefix("the ")  # "the 3rd of May": one "the"
        return spoken

    text = _NUMERIC_DATE.sub(lambda m: _numeric_date(m, now, order), text)
    text = _MONTH_DAY_YEAR.sub(month_day_year, text)
    return _DAY_MONTH.sub(day_month, text)


# ---- phone numbers --------------------------------------------------------------------

_PHONE: Final = re.compile(
    r"(?<![\w.,+-])(?:(\+)\s?([0-9]{1,3})[\s.-]?)?(?:\(([0-9]{2,5})\)\s?)?"
    r"([0-9]{1,5}(?:[\s.-][0-9]{2,5}){0,4})(?![\w]|[.,-][0-9])")


def _groups_words(groups: list[str]) -> str:
    return ", ".join(" ".join(ONES[int(d)] for d in g) for g in groups)


def _phone(match: re.Match[str]) -> str:
    plus, country, area, rest = match.groups()
    groups = re.split(r"[\s.-]", rest)
    seps = set(re.findall(r"[\s.-]", rest))
    digits = sum(len(g) for g in groups) + len(country or "") + len(area or "")
    if plus:
        ok = 8 <= digits <= 15
    elif len(groups[0]) < 2:
        ok = False  # "5 10 15 20": a list of numbers (only "+33 1 ..." starts with one digit)
    elif area:
        ok = 7 <= digits <= 15
    elif [len(g) for g in groups] == [4, 2, 2] and seps == {"-"}:
        ok = False  # date-shaped ("2026-13-45" is no date, and no phone number either)
    elif len(groups) == 2:
        ok = seps == {"-"} and [len(g) for g in groups] == [3, 4]
    else:
        thousands = seps == {" "} and all(len(g) == 3 for g in groups[1:])
        ok = len(groups) >= 3 and 7 <= digits <= 15 and not thousands
    if not ok:
        return match.group(0)
    head = [g for g in (country, area) if g]
    spoken = _groups_words(head + groups)
    return f"plus {spoken}" if plus else spoken


def replace_phone_numbers(text: str) -> str:
    """Phone numbers read digit by digit, a comma (a pause) between groups."""
    return _PHONE.sub(_phone, text)


# ---- codes ----------------------------------------------------------------------------

CODE: Final = re.compile(r"\b(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{3,}\b")
_RUN: Final = re.compile(r"[A-Za-z]+|[0-9]+")


def spell_code(match: re.Match[str]) -> str:
    """A ``CODE`` match spelled letter by letter, or left as it is (see the module doc)."""
    word = match.group(0)
    runs = _RUN.findall(word)
    letters_then_digits = (len(runs) == 2 and runs[0].isalpha() and len(runs[0]) >= 2
                           and len(runs[1]) >= 3)
    if len(runs) < 3 and not letters_then_digits:
        return word
    return " ".join(ONES[int(ch)] if ch.isdigit() else ch.upper() for ch in word)


def spell_codes(text: str) -> str:
    """Lower-case and mixed-case codes spelled letter by letter (see the module doc)."""
    return CODE.sub(spell_code, text)
