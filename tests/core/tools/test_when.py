"""Spoken time phrases: durations, moments relative to an injected ``now``, and speech."""

from __future__ import annotations

import datetime as dt

import pytest

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.when import (
    parse_duration,
    parse_when,
    say_clock,
    say_duration,
    say_time,
)

TZ = dt.timezone(dt.timedelta(hours=1))
NOW = dt.datetime(2026, 3, 11, 14, 20, tzinfo=TZ)
"""A Wednesday afternoon."""
MORNING = dt.datetime(2026, 3, 11, 5, 0, tzinfo=TZ)
LATE = dt.datetime(2026, 3, 11, 19, 0, tzinfo=TZ)


def at(day: int, hour: int, minute: int = 0, month: int = 3, year: int = 2026) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=TZ)


@pytest.mark.parametrize(("text", "seconds"), [
    ("5 minutes", 300), ("an hour and a half", 5400), ("90 seconds", 90),
    ("2 hours 30 minutes", 9000), ("2 hours and 30 minutes", 9000), ("ten minutes", 600),
    ("half an hour", 1800), ("1.5 hours", 5400), ("a minute", 60), ("an hour", 3600),
    ("one and a half hours", 5400), ("2 hours and a half", 9000), ("a quarter of an hour", 900),
    ("three quarters of an hour", 2700), ("twenty five minutes", 1500), ("5min", 300),
    ("2h30", 9000), ("1h 30m", 5400), ("30s", 30), ("1 hour 30", 5400),
    ("for 10 minutes", 600), ("In 10 Minutes.", 600), ("a couple of minutes", 120),
    ("7 days", 7 * 86400), ("1 week", 7 * 86400), ("a day", 86400), ("half a minute", 30),
    ("forty-five seconds", 45), ("1 hr", 3600), ("3 mins", 180),
])
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", [
    "", "   ", "banana", "0 seconds", "0 minutes", "8 days", "2 weeks", "minutes", "5",
    "5 bananas", "-5 minutes", "x" * 10_000, "5 minutes" * 2000, "__import__('os')", "🙂",
    "\x00", "1e999 hours", "99999999999999999999 seconds", "in", "for ever",
])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(AgentError) as info:
        parse_duration(text)
    assert info.value.code == "when_invalid"
    assert info.value.message


def test_parse_duration_non_string() -> None:
    with pytest.raises(AgentError) as info:
        parse_duration(None)  # type: ignore[arg-type]
    assert info.value.code == "when_invalid"


@pytest.mark.parametrize(("text", "expected"), [
    ("at 6 pm", at(11, 18)), ("6pm", at(11, 18)), ("6 p.m.", at(11, 18)),
    ("18:00", at(11, 18)), ("at 6", at(11, 18)), ("at 3", at(11, 15)), ("at 2", at(12, 2)),
    ("at 6 am", at(12, 6)), ("tomorrow at 9", at(12, 9)), ("tomorrow at 9 am", at(12, 9)),
    ("tonight at 8", at(11, 20)), ("tonight", at(11, 20)), ("this evening", at(11, 19)),
    ("tomorrow morning", at(12, 9)), ("tomorrow afternoon", at(12, 15)),
    ("in 10 minutes", at(11, 14, 30)), ("in two hours", at(11, 16, 20)),
    ("in an hour and a half", at(11, 15, 50)), ("5 minutes from now", at(11, 14, 25)),
    ("noon", at(12, 12)), ("midnight", at(12, 0)), ("at midnight", at(12, 0)),
    ("on Friday at 3 pm", at(13, 15)), ("friday", at(13, 9)), ("next Monday", at(16, 9)),
    ("wednesday at 5", at(11, 17)), ("next wednesday", at(18, 9)),
    ("wednesday at 1 pm", at(18, 13)),
    ("at half past 6", at(11, 18, 30)), ("at quarter to 7", at(11, 18, 45)),
    ("tomorrow morning at half nine", at(12, 9, 30)), ("at half 6", at(11, 18, 30)),
    ("at quarter past 8 tonight", at(11, 20, 15)), ("at 10 past 4", at(11, 16, 10)),
    ("December 24 at 10 am", at(24, 10, month=12)), ("december 24th", at(24, 9, month=12)),
    ("the twenty fourth of december", at(24, 9, month=12)),
    ("december twenty fourth at 10 am", at(24, 10, month=12)),
    ("24 dec at 18:30", at(24, 18, 30, month=12)), ("march 1st", at(1, 9, year=2027)),
    ("2026-12-24 at 9", at(24, 9, month=12)), ("at six thirty pm", at(11, 18, 30)),
    ("six oh five pm", at(11, 18, 5)), ("at 7:05 in the morning", at(12, 7, 5)),
    ("at 10 in the evening", at(11, 22)), ("at 8 tomorrow", at(12, 8)),
    ("tomorrow at 3", at(12, 15)), ("6 o'clock", at(11, 18)), ("At 6 PM, please.", at(11, 18)),
    ("day after tomorrow at 7 am", at(13, 7)), ("at 14:45", at(11, 14, 45)),
])
def test_parse_when(text: str, expected: dt.datetime) -> None:
    moment = parse_when(text, NOW)
    assert moment == expected
    assert moment.utcoffset() == NOW.utcoffset()


def test_bare_hour_takes_the_next_one() -> None:
    assert parse_when("at 6", MORNING) == at(11, 6)
    assert parse_when("at 6", NOW) == at(11, 18)
    assert parse_when("at 6", LATE) == at(12, 6)


def test_bare_time_past_today_means_tomorrow() -> None:
    assert parse_when("at 9 am", NOW) == at(12, 9)
    assert parse_when("13:00", NOW) == at(12, 13)


@pytest.mark.parametrize("text", [
    "", "banana", "at 25", "at 6:75", "13 am", "today at 9 am", "in 0 minutes",
    "february 30", "x" * 10_000, "__import__('os')", "🙂", "\x00", "at 6 pm banana",
    "in 500 days", "yesterday", "at", "0 pm",
])
def test_parse_when_rejects(text: str) -> None:
    with pytest.raises(AgentError) as info:
        parse_when(text, NOW)
    assert info.value.code == "when_invalid"
    assert info.value.message


def test_past_moment_says_so() -> None:
    with pytest.raises(AgentError) as info:
        parse_when("today at 9 am", NOW)
    assert "already passed" in info.value.message


def test_naive_now_is_refused() -> None:
    with pytest.raises(AgentError) as info:
        parse_when("at 6 pm", NOW.replace(tzinfo=None))
    assert info.value.code == "when_invalid"


def test_result_keeps_a_named_time_zone() -> None:
    import zoneinfo  # stdlib since 3.9; Europe/Berlin comes from the system's tzdata
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    now = dt.datetime(2026, 3, 28, 12, 0, tzinfo=berlin)
    moment = parse_when("tomorrow at 9 am", now)
    assert moment.tzinfo is berlin
    assert moment.utcoffset() == dt.timedelta(hours=2)  # summer time began overnight


@pytest.mark.parametrize(("moment", "text"), [
    (at(11, 18), "at 6 PM today"), (at(12, 9), "at 9 AM tomorrow"),
    (at(13, 15, 30), "at 3:30 PM on Friday"), (at(24, 10, month=12), "at 10 AM on December 24"),
    (at(11, 12), "at noon today"), (at(12, 0), "at midnight tonight"),
    (at(11, 14, 30), "at 2:30 PM today"), (at(10, 8), "at 8 AM yesterday"),
    (at(1, 9, month=1, year=2028), "at 9 AM on January 1, 2028"),
    (at(18, 9), "at 9 AM on March 18"),
])
def test_say_time(moment: dt.datetime, text: str) -> None:
    assert say_time(moment, NOW) == text


def test_say_time_converts_to_nows_zone() -> None:
    utc = dt.datetime(2026, 3, 11, 17, 0, tzinfo=dt.UTC)
    assert say_time(utc, NOW) == "at 6 PM today"


@pytest.mark.parametrize(("moment", "text"), [
    (at(11, 18, 5), "6:05 PM"), (at(11, 18), "6:00 PM"), (at(11, 0), "12:00 AM"),
    (at(11, 12, 30), "12:30 PM"), (at(11, 9, 59), "9:59 AM"),
])
def test_say_clock(moment: dt.datetime, text: str) -> None:
    assert say_clock(moment) == text


@pytest.mark.parametrize(("seconds", "text"), [
    (300, "5 minutes"), (5400, "1 hour and 30 minutes"), (45, "45 seconds"), (60, "1 minute"),
    (1, "1 second"), (0, "0 seconds"), (0.4, "0 seconds"), (59.6, "1 minute"),
    (93784, "1 day, 2 hours, 3 minutes and 4 seconds"), (7200, "2 hours"),
    (3601, "1 hour and 1 second"), (-90, "1 minute and 30 seconds"),
])
def test_say_duration(seconds: float, text: str) -> None:
    assert say_duration(seconds) == text


@pytest.mark.parametrize("value", [float("nan"), float("inf"), None, "5"])
def test_say_duration_rejects(value: object) -> None:
    with pytest.raises(AgentError) as info:
        say_duration(value)  # type: ignore[arg-type]
    assert info.value.code == "when_invalid"


def test_round_trip_through_speech() -> None:
    assert say_duration(parse_duration("an hour and a half")) == "1 hour and 30 minutes"
    assert say_time(parse_when("tomorrow at 9", NOW), NOW) == "at 9 AM tomorrow"


@pytest.mark.parametrize(("said", "seconds"), [
    ("an hour and a quarter", 4500), ("2 hours and three quarters", 9900),
    ("one and a quarter hours", 4500), ("an hour and a half", 5400),
])
def test_quarters_of_an_hour_are_read(said: str, seconds: float) -> None:
    assert parse_duration(said) == seconds
