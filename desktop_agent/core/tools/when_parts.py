"""The pieces of a spoken moment: a date, a clock time, a part of the day.

when.py puts them together (``parse_when``); each piece takes its words off the text
and fills in ``_Parts``.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

from desktop_agent.core.errors import AgentError

_CODE: Final = "when_invalid"


_WHEN_HINT: Final = "Say a time like 'at 6 pm', 'tomorrow at 9' or 'in 10 minutes'."


def _fail(message: str) -> AgentError:
    return AgentError(_CODE, message)


_WEEKDAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                    "sunday")
_MONTHS: Final = ("january", "february", "march", "april", "may", "june", "july", "august",
                  "september", "october", "november", "december")
_MONTH_RE: Final = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
                    r"aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_ORDINALS: Final = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
    "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
    "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
    "thirtieth": 30,
}  # fmt: skip
_ORDINAL_RE: Final = (r"(?:(twenty|thirty) )?(" + "|".join(_ORDINALS) + r")\b")
_PERIOD_HOUR: Final = {"morning": 9, "afternoon": 15, "evening": 19, "tonight": 20,
                       "night": 20}
_DAY_SPAN: Final = dt.timedelta(days=1)


class _Parts:
    """What a moment phrase said, piece by piece."""

    def __init__(self) -> None:
        self.date: dt.date | None = None
        self.date_flexible = False
        """A weekday without "next": today counts while the time is ahead."""
        self.hour: int | None = None
        self.minute = 0
        self.meridiem = ""
        """"am", "pm", "24" (an unambiguous clock) or "" (unknown)."""
        self.period = ""
        self.midnight = False


def _ordinal_days(text: str) -> str:
    """Write ordinal words as digits where they name a day ("twenty fourth" -> "24th")."""
    def repl(m: re.Match[str]) -> str:
        tens = {"twenty": 20, "thirty": 30}.get(m.group(1) or "", 0)
        return f"{tens + _ORDINALS[m.group(2)]}th"

    def after(m: re.Match[str]) -> str:
        return m.group("lead") + re.sub(_ORDINAL_RE, repl, m.group("ordinal"))

    text = re.sub(rf"\b(?P<lead>{_MONTH_RE} (?:the )?|the )(?P<ordinal>{_ORDINAL_RE})", after,
                  text)
    return re.sub(rf"{_ORDINAL_RE}(?= (?:of )?{_MONTH_RE}\b)", repl, text)


def _month_number(name: str) -> int:
    return next(i for i, full in enumerate(_MONTHS, start=1) if full.startswith(name[:3]))


def _take(pattern: str, text: str) -> tuple[re.Match[str] | None, str]:
    m = re.search(pattern, text)
    if m is None:
        return None, text
    return m, text[: m.start()] + " " + text[m.end():]


_NAMED_DAYS: Final = {
    "christmas eve": (12, 24), "christmas": (12, 25), "boxing day": (12, 26),
    "new year's eve": (12, 31), "new year's day": (1, 1), "valentine's day": (2, 14),
    "halloween": (10, 31), "bonfire night": (11, 5), "st patrick's day": (3, 17),
    "april fools' day": (4, 1), "independence day": (7, 4),
}
"""Days with a fixed date, said by name ("what day is Christmas this year")."""
NAMED_DAY: Final = re.compile(
    r"\b(?P<named>christmas(?:\s+eve|\s+day)?|boxing\s+day|new\s+years?'?s?\s+(?:eve|day)"
    r"|valentine'?s(?:\s+day)?|hallowe'?en|bonfire\s+night|(?:st\.?|saint)\s+patrick'?s(?:\s+day)?"
    r"|april\s+fools?'?(?:\s+day)?|independence\s+day)\b(?P<next>\s+next\s+year)?",
    re.IGNORECASE)
"""A day said by name; ``next`` when "next year" follows it."""


def named_month_day(found: re.Match[str]) -> tuple[int, int]:
    """(month, day) of the day ``NAMED_DAY`` found ("New Years Eve" -> (12, 31))."""
    key = re.sub(r"\s+", " ", found.group("named").lower().replace("saint", "st").replace(
        "st.", "st").replace("hallowe'en", "halloween"))
    key = re.sub(r"^new years?'?s? ", "new year's ", key)
    key = re.sub(r"^valentine'?s(?: day)?$", "valentine's day", key)
    key = re.sub(r"^st patrick'?s(?: day)?$", "st patrick's day", key)
    key = re.sub(r"^april fools?'?(?: day)?$", "april fools' day", key)
    return _NAMED_DAYS.get(key, _NAMED_DAYS.get(key.replace(" day", ""), (12, 25)))


def _as_date_words(found: re.Match[str], now: dt.datetime) -> str:
    """A named day as its month and day ("december 31"), with next year's year when said."""
    month, day = named_month_day(found)
    return f"{_MONTHS[month - 1]} {day}" + (f" {now.year + 1}" if found.group("next") else "")


def _take_date(text: str, now: dt.datetime, parts: _Parts) -> str:
    today = now.date()
    text = NAMED_DAY.sub(lambda found: _as_date_words(found, now), text)
    m, text = _take(r"\ba week on (" + "|".join(_WEEKDAYS) + r")\b", text)
    if m:  # British: the weekday a week after the coming one
        parts.date = today + ((_WEEKDAYS.index(m.group(1)) - today.weekday()) % 7 + 7) * _DAY_SPAN
        return text
    m, text = _take(r"\bday after tomorrow\b", text)
    if m:
        parts.date = today + 2 * _DAY_SPAN
        return text
    m, text = _take(r"\btomorrow\b|\btmrw\b|\btomorow\b", text)
    if m:
        parts.date = today + _DAY_SPAN
        return text
    m, text = _take(r"\btoday\b", text)
    if m:
        parts.date = today
        return text
    m, text = _take(r"\b(next|this|coming)?\s*(" + "|".join(_WEEKDAYS) + r")s?\b", text)
    if m:
        ahead = (_WEEKDAYS.index(m.group(2)) - today.weekday()) % 7
        if m.group(1) == "next" and ahead == 0:
            ahead = 7
        parts.date = today + ahead * _DAY_SPAN
        parts.date_flexible = ahead == 0
        return text
    dated = text
    day_re = r"(\d{1,2})(?:st|nd|rd|th)?"
    year_re = r"(?:\s+(\d{4}))?"
    m, rest = _take(rf"\b{_MONTH_RE}\s+(?:the\s+)?{day_re}\b{year_re}", dated)
    if m:
        return _set_month_day(rest, now, parts, m.group(1), m.group(2), m.group(3))
    m, rest = _take(rf"\b(?:the\s+)?{day_re}\s+(?:of\s+)?{_MONTH_RE}\b{year_re}", dated)
    if m:
        return _set_month_day(rest, now, parts, m.group(2), m.group(1), m.group(3))
    m, rest = _take(r"\b(\d{4})-(\d{2})-(\d{2})\b", dated)
    if m:
        try:
            parts.date = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            raise _fail(f"There is no such date. {_WHEN_HINT}") from None
        return rest
    m, rest = _take(r"\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b(?:\s+of\s+(this|next)\s+month)?",
                    dated)
    if m:  # "the 23rd": this month's, or next month's once it has gone by
        return _set_day_of_month(rest, now, parts, int(m.group(1)), m.group(2))
    return text


def _set_day_of_month(rest: str, now: dt.datetime, parts: _Parts, day: int,
                      month: str | None) -> str:
    """The day of this month or of the next ("of next month"; "of this month" never rolls)."""
    today = now.date()
    first = today.replace(day=1)
    if month == "next" or (month is None and day < today.day):
        first = (first + 32 * _DAY_SPAN).replace(day=1)
    try:
        parts.date = first.replace(day=day)
    except ValueError:
        raise _fail(f"There is no such date. {_WHEN_HINT}") from None
    return rest


def _set_month_day(rest: str, now: dt.datetime, parts: _Parts, month: str, day: str,
                   year: str | None) -> str:
    try:
        when = dt.date(int(year) if year else now.year, _month_number(month), int(day))
    except ValueError:
        raise _fail(f"There is no such date. {_WHEN_HINT}") from None
    if year is None and when < now.date():
        try:
            when = when.replace(year=when.year + 1)
        except ValueError:  # February 29 of a leap year
            raise _fail(f"There is no such date next year. {_WHEN_HINT}") from None
    parts.date = when
    return rest


def _take_time(text: str, parts: _Parts) -> str:
    m, text = _take(r"\b(noon|midday|midnight)\b", text)
    if m:
        if m.group(1) == "midnight":
            parts.midnight = True
            parts.hour, parts.meridiem = 0, "24"
        else:
            parts.hour, parts.meridiem = 12, "24"
        return text
    ampm = r"(?:\s*(am|pm))?"
    m, text = _take(rf"\b(half|quarter|\d{{1,2}})(?: minutes?)? past (\d{{1,2}}){ampm}\b", text)
    if m:
        minute = {"half": 30, "quarter": 15}.get(m.group(1)) or int(m.group(1))
        return _set_clock(text, parts, int(m.group(2)), minute, m.group(3))
    m, text = _take(rf"\bhalf (\d{{1,2}}){ampm}\b", text)
    if m:  # British "half nine": half past nine
        return _set_clock(text, parts, int(m.group(1)), 30, m.group(2))
    m, text = _take(rf"\b(quarter|\d{{1,2}})(?: minutes?)? (?:to|till|til|before) (\d{{1,2}})"
                    rf"{ampm}\b", text)
    if m:
        minute = 15 if m.group(1) == "quarter" else int(m.group(1))
        if not 0 < minute < 60:
            raise _fail(f"I didn't understand that time. {_WHEN_HINT}")
        hour = int(m.group(2)) - 1
        return _set_clock(text, parts, 23 if hour < 0 else hour or 12, 60 - minute, m.group(3))
    m, text = _take(rf"\b(\d{{1,2}})[:.h](\d{{2}}){ampm}\b", text)
    if m is None:
        # Spoken "six thirty pm" -> "6 30 pm"; "six oh five" -> "6 oh 5".
        m, text = _take(rf"\b(?:at )?(\d{{1,2}}) (?:oh |o )?(\d{{1,2}}){ampm}"
                        rf"(?= oclock\b| in\b| tonight\b| tomorrow\b| today\b| on\b|$)", text)
        if m is not None and (len(m.group(2)) != 2 and "oh" not in m.group(0)
                              and " o " not in m.group(0)):
            raise _fail(f"I didn't understand that time. {_WHEN_HINT}")
    if m:
        hour_text = m.group(1)
        if len(hour_text) == 2 and hour_text.startswith("0"):
            parts.meridiem = "24"
        return _set_clock(text, parts, int(hour_text), int(m.group(2)), m.group(3))
    m, text = _take(r"\b(\d{1,2})\s*(am|pm)\b", text)
    if m:
        return _set_clock(text, parts, int(m.group(1)), 0, m.group(2))
    m, text = _take(r"\b(?:at\s+)?(?:([01]?\d|2[0-3]) hundred|([01]\d|2[0-3])00)(?: hours| hrs)?\b"
                    r"(?=\s*(?:hours|hrs|$|on\b|tomorrow\b|today\b|tonight\b))", text)
    if m:  # "nineteen hundred", "at 1900 hours": a 24-hour clock
        parts.meridiem = "24"
        return _set_clock(text, parts, int(m.group(1) or m.group(2)), 0, None)
    m, text = _take(r"\b(\d{1,2})\s+oclock\b", text)
    if m is None:
        m, text = _take(r"\b(?:at|by|around|for)\s+(\d{1,2})\b(?!\.\d)(?! \d)", text)
    if m:
        return _set_clock(text, parts, int(m.group(1)), 0, None)
    return text


def _set_clock(text: str, parts: _Parts, hour: int, minute: int, meridiem: str | None) -> str:
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise _fail(f"I didn't understand that time. {_WHEN_HINT}")
    if meridiem:
        if hour > 12 and meridiem == "am":
            raise _fail(f"{hour} AM is not a time. {_WHEN_HINT}")
        if hour == 0:
            raise _fail(f"0 {meridiem.upper()} is not a time. {_WHEN_HINT}")
        if hour <= 12:
            hour = hour % 12 + (12 if meridiem == "pm" else 0)
        parts.meridiem = "24"
    elif hour == 0 or hour > 12:
        parts.meridiem = "24"
    parts.hour, parts.minute = hour, minute
    return text


def _take_period(text: str, parts: _Parts, now: dt.datetime) -> str:
    text = re.sub(r"\bfirst thing(?: in the morning)?\b", "morning", text)
    m, text = _take(r"\b(?:this|in the|at|tomorrow)?\s*\b(morning|afternoon|arvo|evening|night)\b|"
                    r"\b(tonight)\b", text)
    if m:
        word = m.group(1) or m.group(2)
        word = "afternoon" if word == "arvo" else word  # Australian
        parts.period = word
        if "tomorrow" in m.group(0) and parts.date is None:
            parts.date = now.date() + _DAY_SPAN
    return text


def _resolve_hour(parts: _Parts) -> tuple[int, int]:
    """The 24-hour clock time of a day that is not the ambiguous "today"."""
    assert parts.hour is not None
    hour = parts.hour
    if parts.meridiem or hour == 0 or hour > 12:
        return hour, parts.minute
    if parts.period == "morning":
        return hour % 12, parts.minute
    if parts.period in ("afternoon", "evening", "tonight", "night"):
        return hour % 12 + 12, parts.minute
    return (hour % 12 + 12 if hour <= 6 or hour == 12 else hour) % 24, parts.minute


def _at(day: dt.date, hour: int, minute: int, now: dt.datetime) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=now.tzinfo)
