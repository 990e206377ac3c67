"""day_of_week: the weekday of a date the user names ("what day of the week is the 14th?").

The whole tool, for its catalog entry (``core.tools.catalog``): the router rule
(``asks_weekday``), the arguments from the words (``weekday_args``) and the answer
(``say_weekday``). A pure read: the caller passes the local time.

Which date a phrase means (``weekday_date``):

- A day alone ("the 14th", "the fourteenth") is that day of the current month, even when it
  has passed ("what day was the 1st?" asks about this month's).
- A month and a day ("March 3rd", "3 March", "the 3rd of March") is the next such date,
  today included; with a year ("March 3rd 2027") it is that year's.
- A day with a fixed date said by name ("Christmas", "New Year's Eve", "Halloween") is
  its next date, today included; "... next year" is next year's.
- A day its month does not have ("the 31st" in April, "February 30th") is an error that
  says so; so is anything else.

The answer names the date in full, with the year when it is not this one, and says "was"
for a day already past: "The 14th of December is a Monday.", "The 1st of December was a
Monday.", "The 3rd of March 2027 is a Wednesday."
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Mapping
from typing import Any, Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.calc_words import replace_number_words
from desktop_agent.core.tools.when_parts import NAMED_DAY, named_month_day

_MONTHS: Final = ("January", "February", "March", "April", "May", "June", "July", "August",
                  "September", "October", "November", "December")
_WEEKDAYS: Final = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                    "Sunday")
"""English names, whatever the locale (calendar's names follow LC_TIME)."""
_MONTH: Final = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?"
                 r"|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_ORDINALS: Final = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}
_ORDINAL: Final = (r"(?:(?:twenty|thirty)[- ])?(?:" + "|".join(_ORDINALS) + ")")
_DAY: Final = rf"(?:\d{{1,2}}(?:st|nd|rd|th)?|{_ORDINAL})"
_UNIT_WORD: Final = r"(?:one|two|three|four|five|six|seven|eight|nine)"
_TEEN_WORD: Final = (r"(?:ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen"
                     r"|nineteen)")
_TENS_WORD: Final = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
_SPOKEN_YEAR: Final = (
    rf"(?:eighteen|nineteen|twenty)[ -](?:{_TENS_WORD}(?:[ -]{_UNIT_WORD})?|{_TEEN_WORD}"
    rf"|o(?:h)?[ -]{_UNIT_WORD}|hundred)"
    rf"|two thousand(?:(?: and)?[ -](?:{_TENS_WORD}(?:[ -]{_UNIT_WORD})?|{_TEEN_WORD}"
    rf"|{_UNIT_WORD}))?")
"""A year said in words: "nineteen sixty-nine", "twenty twenty-six", "two thousand and one"."""
_YEAR: Final = rf"(?:,?\s+(?P<year>\d{{4}}\b|{_SPOKEN_YEAR}))?"
_DATES: Final = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"\b(?P<month>{_MONTH})\s+(?:the\s+)?(?P<day>{_DAY})\b{_YEAR}",
    rf"\b(?:the\s+)?(?P<day>{_DAY})\s+(?:of\s+)?(?P<month>{_MONTH})\b{_YEAR}",
    rf"\bthe\s+(?P<day>{_DAY})\b(?P<next_month>\s+of\s+next\s+month\b)?",
    rf"^\s*(?P<day>{_DAY})\s*$",  # the model's bare "14" or "14th"
))
"""A date as said, most specific first: month and day, day and month, a day alone."""
_ASK: Final = re.compile(
    r"\b(?:what|which)(?:'s| is)?\s+(?:day\s+of\s+the\s+week|week\s*day|day)\b"
    r"|\bday\s+of\s+the\s+week\b|\bweekday\b"
    r"|\b(?:is|be|falls?)\b.*\b(?:a|on\s+a)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"|weekend|weekday)\b",
    re.IGNORECASE)
"""Asking for a weekday: "what day (of the week)", "which weekday", "is ... a Monday", "is
... a weekend"."""
_HINT: Final = 'day_of_week needs "date": a day like "the 14th" or "March 3rd".'


def _date_match(text: str) -> re.Match[str] | None:
    for pattern in (*_DATES[:3], NAMED_DAY):
        found = pattern.search(text)
        if found:
            return found
    return None


def asks_weekday(text: str) -> bool:
    """The router's rule: a weekday asked for a date the request names."""
    return bool(_ASK.search(text)) and _date_match(text) is not None


def weekday_args(text: str) -> dict[str, Any] | None:
    """The date as the user said it ("the 14th", "March 3rd"), or None when none is named."""
    found = _date_match(text)
    return None if found is None else {"date": found.group(0).strip(" ,")}


def _day_number(word: str) -> int:
    word = word.lower()
    digits = re.match(r"\d+", word)
    if digits:
        return int(digits.group(0))
    tens, _, unit = word.replace("-", " ").rpartition(" ")
    return {"": 0, "twenty": 20, "thirty": 30}[tens] + _ORDINALS[unit]


def weekday_date(words: str, today: dt.date) -> dt.date:
    """The date ``words`` name, read against ``today`` (see the module's rules).

    Raises:
        AgentError: ``bad_arguments`` with a message for the model (no date, or a day its
            month does not have).
    """
    named = NAMED_DAY.search(words)
    if named is not None and not any(p.search(words.strip()) for p in _DATES[:2]):
        return _named_date(named, today)
    found = next((m for p in _DATES if (m := p.search(words.strip()))), None)
    if found is None:
        raise AgentError("bad_arguments", _HINT)
    day = _day_number(found.group("day"))
    groups = found.groupdict()
    if not groups.get("month"):
        if groups.get("next_month"):  # "the first of next month"
            later = (today.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
            return _checked(later.year, later.month, day)
        return _checked(today.year, today.month, day)
    month = next(i for i, name in enumerate(_MONTHS, 1) if name.lower().startswith(
        groups["month"].lower()[:3]))
    if groups.get("year"):
        return _checked(_year(groups["year"]), month, day)
    if month == 2 and day == 29:  # the next 29th of February, up to eight years ahead
        year = next(y for y in range(today.year, today.year + 9)
                    if calendar.isleap(y) and dt.date(y, 2, 29) >= today)
        return dt.date(year, 2, 29)
    this_year = _checked(today.year, month, day)
    return this_year if this_year >= today else _checked(today.year + 1, month, day)


def _named_date(found: re.Match[str], today: dt.date) -> dt.date:
    """The next date of a named day (today included); "next year": next year's."""
    month, day = named_month_day(found)
    date = dt.date(today.year + (1 if found.group("next") else 0), month, day)
    return date if date >= today or found.group("next") else dt.date(today.year + 1, month, day)


def _year(said: str) -> int:
    """A year in digits or words ("1969", "nineteen sixty-nine", "two thousand and one")."""
    if said.isdigit():
        return int(said)
    parts = replace_number_words(said.lower().replace("-", " ")).replace(" oh ", " ").split()
    numbers = [int(p) for p in parts if p.isdigit()]
    if len(numbers) >= 2 and numbers[0] < 100:  # "19 60 9": 1969
        return numbers[0] * 100 + sum(numbers[1:])
    return sum(numbers) if numbers else 0


def _checked(year: int, month: int, day: int) -> dt.date:
    if not 1 <= year <= 9999 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        raise AgentError("bad_arguments",
                         f"{_MONTHS[month - 1]} {year} has no {_ordinal(day)}.")
    return dt.date(year, month, day)


def _ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def say_weekday(args: Mapping[str, Any], now: dt.datetime) -> str:
    """The answer: "The 14th of December is a Monday." (see the module's rules)."""
    today = now.date()
    date = weekday_date(str(args["date"]), today)
    year = "" if date.year == today.year else f" {date.year}"
    verb = "was" if date < today else "is"
    return (f"The {_ordinal(date.day)} of {_MONTHS[date.month - 1]}{year} {verb} "
            f"a {_WEEKDAYS[date.weekday()]}.")
