"""Spoken time phrases: durations ("an hour and a half"), moments ("tomorrow at 9"), speech.

The caller always passes ``now`` (timezone-aware): core never reads the clock. Every
failure is ``AgentError("when_invalid", ...)`` with a message that says what to say
instead; no other exception escapes.

Rules for a moment (``parse_when``):

- A bare time ("at 6", "6:30") means the next such time: an hour 1-12 with no AM/PM
  is the earliest of its AM and PM times still ahead today, else tomorrow's AM time;
  a time already past today means tomorrow.
- An hour with no AM/PM on another day ("tomorrow at 9", "on Friday at 3") is read as
  7-11 AM, 12 noon, 1-6 PM.
- A day with no time ("next Monday", "December 24") is 9 AM; "morning" is 9:00,
  "afternoon" (or "arvo") 15:00, "evening" 19:00, "tonight" / "night" 20:00.
- A weekday ("Friday") is the next one, today included while the time is ahead;
  "next Friday" is never today. "Midnight" is the end of the day it names.
- A moment in the past ("today at 6 am" at noon) is an error.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.calc_words import clean_spoken, replace_number_words
from desktop_agent.core.tools.when_parts import (
    _DAY_SPAN,
    _MONTHS,
    _PERIOD_HOUR,
    _WEEKDAYS,
    _WHEN_HINT,
    _at,
    _fail,
    _ordinal_days,
    _Parts,
    _resolve_hour,
    _take_date,
    _take_period,
    _take_time,
)

MAX_DURATION_S: Final = 7 * 86400.0
"""Longest duration ``parse_duration`` accepts (seconds)."""
MAX_AHEAD_S: Final = 400 * 86400.0
"""Furthest ahead ``parse_when`` accepts an "in ..." moment (seconds)."""
MAX_TEXT_CHARS: Final = 200
"""Longer text is refused without parsing."""

_DURATION_HINT: Final = "Say a duration like '5 minutes' or 'an hour and a half'."

_UNIT_SECONDS: Final = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "d": 86400, "day": 86400, "days": 86400,
    "w": 604800, "wk": 604800, "wks": 604800, "week": 604800, "weeks": 604800,
    "fortnight": 1209600, "fortnights": 1209600,
}  # fmt: skip
_UNIT_RE: Final = "|".join(sorted(_UNIT_SECONDS, key=len, reverse=True))
_NUM: Final = r"\d+(?:\.\d+)?"
_FILLER: Final = frozenset({
    "and", "at", "on", "the", "of", "by", "for", "around", "about", "approximately",
    "please", "exactly", "just", "from", "this", "set", "o'clock", "oclock", "o", "clock",
    "then", "right", "sharp", "coming", "after",
})  # fmt: skip


def _prepare(text: str, dates: bool = False) -> str:
    """Lower-case, spell numbers as digits, and drop punctuation that carries nothing.

    With ``dates``, ordinal words next to a month or after "the" become day numbers
    ("the twenty fourth of december" -> "the 24th of december").
    """
    if not isinstance(text, str):
        raise _fail(f"I didn't hear a time. {_WHEN_HINT}")
    if len(text) > MAX_TEXT_CHARS:
        raise _fail(f"That is too long for a time. {_WHEN_HINT}")
    out = clean_spoken(text)
    out = re.sub(r"\b([ap])\s*\.\s*m\b\.?", r"\1m", out)  # "p.m." -> "pm"
    out = re.sub(r"o['’ ]?clock", " oclock", out)
    out = re.sub(r"[?!,;\"]|\.(?!\d)", " ", out)
    out = re.sub(r"\s+", " ", out).strip()
    if dates:
        out = _ordinal_days(out)
    return replace_number_words(out)


def _leftover_ok(rest: str) -> bool:
    return all(w in _FILLER for w in rest.split())


# --- durations ---------------------------------------------------------------------------

_HALF_PHRASES: Final = (
    # "an hour and a half", "2 hours and a half"
    (rf"\b(?:(an?|{_NUM}) )?({_UNIT_RE}) and a half\b",
     lambda m: f"{_count(m.group(1)) + 0.5} {m.group(2)}"),
    # "1 and a half hours", "one and a half minutes"
    (rf"\b({_NUM}) and a half ({_UNIT_RE})\b", lambda m: f"{float(m.group(1)) + 0.5} {m.group(2)}"),
    # "an hour and a quarter", "2 hours and three quarters"
    (rf"\b(?:(an?|{_NUM}) )?({_UNIT_RE}) and (a|3) quarters?\b",
     lambda m: f"{_count(m.group(1)) + (0.25 if m.group(3) == 'a' else 0.75)} {m.group(2)}"),
    # "one and a quarter hours", "2 and 3 quarter hours"
    (rf"\b({_NUM}) and (a|3) quarters? ({_UNIT_RE})\b",
     lambda m: f"{float(m.group(1)) + (0.25 if m.group(2) == 'a' else 0.75)} {m.group(3)}"),
    (rf"\ba half ({_UNIT_RE})\b", lambda m: f"0.5 {m.group(1)}"),
    (rf"\bhalf (?:an? )?({_UNIT_RE})\b", lambda m: f"0.5 {m.group(1)}"),
    (r"\b3 quarters? (?:of )?(?:an? )?hour\b", lambda m: "45 minutes"),
    (r"\b(?:a )?quarter (?:of )?(?:an? )?hour\b", lambda m: "15 minutes"),
    (rf"\ba couple (?:of )?({_UNIT_RE})\b", lambda m: f"2 {m.group(1)}"),
    (rf"\b(?:an?|one) ({_UNIT_RE})\b", lambda m: f"1 {m.group(1)}"),
)


def _count(word: str | None) -> float:
    return 1.0 if word in (None, "a", "an") else float(word or 1)


def _duration_seconds(text: str, limit_s: float) -> float:
    """Seconds in a prepared duration phrase; raises ``when_invalid``."""
    phrase = re.sub(r"(?<=\d)(?=[a-z])|(?<=[a-z])(?=\d)", " ", text)  # "2h30" -> "2 h 30"
    for pattern, repl in _HALF_PHRASES:
        phrase = re.sub(pattern, repl, phrase)
    phrase = re.sub(rf"(?<=\d)(?=(?:{_UNIT_RE})\b)", " ", phrase)  # "5min" -> "5 min"
    total = 0.0
    found = False
    last_unit = 0
    pos = 0
    pair = re.compile(rf"\s*(?:and\s+|for\s+|about\s+)?({_NUM})\s*({_UNIT_RE})?\b")
    while pos < len(phrase):
        m = pair.match(phrase, pos)
        if m is None:
            break
        amount = float(m.group(1))
        if m.group(2):
            unit = _UNIT_SECONDS[m.group(2)]
        elif last_unit in (3600, 60):
            unit = last_unit // 60  # "2 hours 30" -> 30 minutes; "5 minutes 30" -> 30 seconds
        else:
            break
        total += amount * unit
        found = True
        last_unit = unit
        pos = m.end()
    if not found or not _leftover_ok(phrase[pos:]) or not math.isfinite(total):
        raise _fail(f"I didn't understand that as a duration. {_DURATION_HINT}")
    if total <= 0:
        raise _fail(f"The duration must be longer than zero. {_DURATION_HINT}")
    if total > limit_s:
        days = round(limit_s / 86400)
        raise _fail(f"That is too long: I can only go up to {days} days ahead.")
    return total


def parse_duration(text: str) -> float:
    """Read a spoken duration.

    Args:
        text: E.g. "5 minutes", "an hour and a half", "90 seconds", "2 hours 30 minutes",
            "ten minutes", "half an hour", "1.5 hours", "a minute", "2h30".

    Returns:
        The duration in seconds, above 0 and at most ``MAX_DURATION_S``.

    Raises:
        AgentError: ``when_invalid`` when the text is not a duration, is zero, or is longer
            than 7 days.
    """
    if not isinstance(text, str):
        raise _fail(f"I didn't hear a duration. {_DURATION_HINT}")
    if len(text) > MAX_TEXT_CHARS:
        raise _fail(f"That is too long for a duration. {_DURATION_HINT}")
    try:
        prepared = re.sub(r"^(?:for|in|after) ", "", _prepare(text))
        return _duration_seconds(prepared, MAX_DURATION_S)
    except AgentError:
        raise
    except Exception:  # The user-facing boundary: a reading slip is never a crash
        raise _fail(f"I didn't understand that as a duration. {_DURATION_HINT}") from None


# --- moments -----------------------------------------------------------------------------


def _in_phrase(text: str, now: dt.datetime) -> dt.datetime | None:
    m = re.fullmatch(r"(?:in|after|within) (.+)|(.+) (?:from now|later|time)", text)
    if m is None:
        return None
    seconds = _duration_seconds(m.group(1) or m.group(2), MAX_AHEAD_S)
    try:
        return now + dt.timedelta(seconds=seconds)
    except OverflowError:
        raise _fail(f"That is too far ahead. {_WHEN_HINT}") from None


def parse_when(text: str, now: dt.datetime) -> dt.datetime:
    """Read a spoken moment in the future.

    Args:
        text: E.g. "at 6 pm", "6pm", "18:00", "at 6", "tomorrow at 9 am", "tonight at 8",
            "this evening", "tomorrow morning", "in 10 minutes", "noon", "midnight",
            "on Friday at 3 pm", "next Monday", "at half past 6", "at quarter to 7",
            "December 24 at 10 am".
        now: The current moment, timezone-aware.

    Returns:
        An aware datetime in ``now``'s time zone, after ``now``.

    Raises:
        AgentError: ``when_invalid`` when the text is not a moment it can read, when it is
            in the past, or when ``now`` is not timezone-aware.
    """
    if not isinstance(now, dt.datetime) or now.tzinfo is None or now.utcoffset() is None:
        raise _fail("I need the current time with its time zone.")
    try:
        prepared = _prepare(text, dates=True)
        if not prepared:
            raise _fail(f"I didn't hear a time. {_WHEN_HINT}")
        moment = _in_phrase(prepared, now)
        if moment is None:
            moment = _parse_moment(prepared, now)
    except AgentError:
        raise
    except Exception:  # The user-facing boundary: a reading slip is never a crash
        raise _fail(f"I didn't understand that time. {_WHEN_HINT}") from None
    if moment <= now:
        raise _fail(f"That time has already passed. {_WHEN_HINT}")
    return moment


def _parse_moment(prepared: str, now: dt.datetime) -> dt.datetime:
    parts = _Parts()
    rest = _take_date(prepared, now, parts)
    rest = _take_period(rest, parts, now)
    rest = _take_time(rest, parts)
    if not _leftover_ok(rest) or (parts.date is None and parts.hour is None
                                  and not parts.period):
        raise _fail(f"I didn't understand '{prepared[:60]}' as a time. {_WHEN_HINT}")
    today = now.date()
    if parts.hour is None:
        hour, minute = _PERIOD_HOUR.get(parts.period, 9), 0
        day = parts.date or today
        moment = _at(day, hour, minute, now)
        if parts.date_flexible and moment <= now:
            moment += 7 * _DAY_SPAN
        return moment
    if parts.midnight:
        return _at((parts.date or today) + _DAY_SPAN, 0, 0, now)
    if parts.date is None and parts.period == "tonight" and parts.hour is not None \
            and not parts.meridiem and (parts.hour == 12 or parts.hour < 5):
        # "tonight at 1" is 1 AM after midnight.
        return _at(today + _DAY_SPAN, parts.hour % 12, parts.minute, now)
    if parts.date is not None and not parts.date_flexible:
        hour, minute = _resolve_hour(parts)
        return _at(parts.date, hour, minute, now)
    # Today (or a weekday that is today): the next matching time.
    start = parts.date or today
    if parts.meridiem or parts.period or parts.hour == 0 or parts.hour > 12:
        hour, minute = _resolve_hour(parts)
        choices = [hour]
    else:
        choices = [parts.hour % 12, parts.hour % 12 + 12]
    for hour in choices:
        moment = _at(start, hour, parts.minute, now)
        if moment > now:
            return moment
    step = 7 * _DAY_SPAN if parts.date_flexible else _DAY_SPAN
    return _at(start + step, choices[0], parts.minute, now)


# --- speech ------------------------------------------------------------------------------


def say_clock(moment: dt.datetime) -> str:
    """A 12-hour clock time for speech and display: "6:05 PM", "12:00 AM"."""
    hour = moment.hour % 12 or 12
    return f"{hour}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"


def _short_clock(moment: dt.datetime) -> str:
    if moment.hour == 12 and moment.minute == 0:
        return "noon"
    if moment.minute == 0:
        return f"{moment.hour % 12 or 12} {'AM' if moment.hour < 12 else 'PM'}"
    return say_clock(moment)


def say_time(moment: dt.datetime, now: dt.datetime) -> str:
    """Say when ``moment`` is, relative to ``now``.

    Args:
        moment: The moment to say (converted to ``now``'s time zone when aware).
        now: The current moment.

    Returns:
        E.g. "at 6 PM today", "at 9 AM tomorrow", "at 3:30 PM on Friday" (within the
        week ahead), "at 10 AM on December 24" (the year added when it is not this one
        and the moment is not within the coming year), "at noon today",
        "at midnight tonight".
    """
    if moment.tzinfo is not None and now.tzinfo is not None:
        moment = moment.astimezone(now.tzinfo)
    today = now.date()
    day = moment.date()
    if moment.hour == 0 and moment.minute == 0 and day == today + _DAY_SPAN:
        return "at midnight tonight"
    clock = f"at {_short_clock(moment)}"
    offset = (day - today).days
    if offset == 0:
        return f"{clock} today"
    if offset == 1:
        return f"{clock} tomorrow"
    if offset == -1:
        return f"{clock} yesterday"
    if 1 < offset < 7:
        return f"{clock} on {_WEEKDAYS[day.weekday()].capitalize()}"
    label = f"{_MONTHS[day.month - 1].capitalize()} {day.day}"
    if day.year != today.year and not 0 < offset < 300:
        label += f", {day.year}"
    return f"{clock} on {label}"


def say_duration(seconds: float) -> str:
    """Say a duration in words, rounded to whole seconds.

    Args:
        seconds: The duration; a negative one is said as its size.

    Returns:
        E.g. "5 minutes", "1 hour and 30 minutes", "45 seconds",
        "2 days, 3 hours and 1 minute", "0 seconds".

    Raises:
        AgentError: ``when_invalid`` when ``seconds`` is not a finite number.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) \
            or not math.isfinite(seconds):
        raise _fail("That is not a duration I can say.")
    left = int(round(abs(seconds)))
    pieces = []
    for size, name in ((86400, "day"), (3600, "hour"), (60, "minute"), (1, "second")):
        count, left = divmod(left, size)
        if count:
            pieces.append(f"{count} {name}{'' if count == 1 else 's'}")
    if not pieces:
        return "0 seconds"
    if len(pieces) == 1:
        return pieces[0]
    return ", ".join(pieces[:-1]) + " and " + pieces[-1]
