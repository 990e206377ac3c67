"""Requests and near misses of the thirteenth and fourteenth blind tuning sets, read by the rules.

Each rule (issue 24, sixteenth session) was written for a line of
``tool_utterances_tune13.jsonl`` (times, dates and durations said every which way) or
``tool_utterances_tune14.jsonl`` (numbers, money and units) and is tested here on that
line's shape and on a near miss it must leave alone.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.calc import evaluate
from desktop_agent.core.tools.weekday import weekday_args, weekday_date
from desktop_agent.core.tools.when import parse_when
from tests.core.tools.said import decided, offered

NOW = dt.datetime(2026, 12, 5, 9, 0, tzinfo=dt.UTC)  # a Saturday


@pytest.mark.parametrize(("text", "want"), [
    ("At nineteen hundred, remind me to log on for the quiz night.",
     ("set_reminder", {"text": "log on for the quiz night", "when": "At nineteen hundred"})),
    ("First thing tomorrow, remind me to phone the garage about the MOT.",
     ("set_reminder", {"text": "phone the garage about the MOT", "when": "First thing tomorrow"})),
    ("This Friday at 7 in the evening, remind me to book the taxi for Saturday.",
     ("set_reminder", {"text": "book the taxi for Saturday",
                       "when": "This Friday at 7 in the evening"})),
    ("The day after tomorrow at half past eight, remind me to drop the spare keys round at Mum's.",
     ("set_reminder", {"text": "drop the spare keys round at Mum's",
                       "when": "The day after tomorrow at half past eight"})),
    ("Remind me a week on Tuesday that the library books are due back.",
     ("set_reminder", {"text": "the library books are due back", "when": "a week on Tuesday"})),
    ("Remind me at five to nine to transfer four hundred quid into savings.",
     ("set_reminder", {"text": "transfer four hundred quid into savings",
                       "when": "at five to nine"})),
    ("remind me at 5 to call mum", ("set_reminder", {"text": "call mum", "when": "at 5"})),
    ("Tonight, remind me to call mum at 9",
     ("set_reminder", {"text": "call mum", "when": "Tonight at 9"})),
    ("set a reminder for tomorrow at 9 to run through the budget",
     ("set_reminder", {"text": "run through the budget", "when": "tomorrow at 9"})),
    ("Would you remind me on Thursday morning that the chiropodist is coming at eleven?",
     ("set_reminder", {"text": "the chiropodist is coming at eleven",
                       "when": "on Thursday morning"})),
    ("Two and a half hours on a timer for the pork shoulder, please.",
     ("set_timer", {"duration": "Two and a half hours", "label": "pork shoulder"})),
    ("Stick a timer on, eight and a half minutes, for the salmon.",
     ("set_timer", {"duration": "eight and a half minutes", "label": "salmon"})),
    ("Ninety seconds, microwave popcorn, timer please.",
     ("set_timer", {"duration": "Ninety seconds", "label": "microwave popcorn"})),
    ("Parking timer, one hour fifty, I've paid for two hours and I want a bit of slack.",
     ("set_timer", {"duration": "one hour fifty", "label": "Parking"})),
    ("Timer for twenty-five minutes, and label it sourdough.",
     ("set_timer", {"duration": "twenty-five minutes", "label": "sourdough"})),
    ("Forty-five secs on the clock for my wall sit, go.",
     ("set_timer", {"duration": "Forty-five secs", "label": "wall sit"})),
    ("Get rid of the reminder about the garage first thing tomorrow, I've sorted the MOT tonight.",
     ("cancel_timer", {"which": "garage"})),
    ("The power's going off for the whole afternoon, so wipe every timer and reminder I've got.",
     ("cancel_timer", {"which": "all"})),
    ("Lovely, copy that last answer with the date onto the clipboard for me.",
     ("copy_last_answer", {})),
    ("Great, get that figure onto my clipboard, I'll paste it into the budget spreadsheet.",
     ("copy_last_answer", {})),
    ("It's minus twelve Celsius in Oslo this morning, what would that be in Fahrenheit?",
     ("convert_units", {"value": -12, "from_unit": "celsius", "to_unit": "fahrenheit"})),
    ("A pint and a half of milk, how many millilitres is that?",
     ("convert_units", {"value": 1.5, "from_unit": "pint", "to_unit": "millilitres"})),
    ("Can you double two hundred and thirty-seven for me?",
     ("calculate", {"expression": "two hundred and thirty-seven times 2"})),
    ("Halve three thousand one hundred and fifty, would you?",
     ("calculate", {"expression": "three thousand one hundred and fifty divided by 2"})),
    ("I got forty-two out of fifty on the quiz, what's that as a percentage?",
     ("calculate", {"expression": "forty-two divided by fifty times 100"})),
    ("Rent's $1,250 a month, times that by twelve for me.",
     ("calculate", {"expression": "1,250 times twelve"})),
    ("Twelve cubed, what's that?", ("calculate", {"expression": "Twelve cubed"})),
    ("12 candles at £3.75 each, what does that come to?",
     ("calculate", {"expression": "12 times 3.75"})),  # the question is part of the problem
])
def test_a_moment_or_a_number_said_another_way_is_read(
        text: str, want: tuple[str, dict[str, Any]]) -> None:
    assert decided(text) == want


@pytest.mark.parametrize(("text", "want"), [
    ("remind me to cancel the gym membership tomorrow", ["set_reminder"]),
    ("cancel the reminder to call mum", ["cancel_timer"]),
    ("I want to double my savings", []),
    ("double the recipe", []),
    ("three out of four dentists, as a percentage", []),
    ("Triple checked the reminder last week and it still didn't go off", []),
])
def test_what_is_offered(text: str, want: list[str]) -> None:
    assert offered(text) == want


@pytest.mark.parametrize(("said", "moment"), [
    ("At nineteen hundred", "2026-12-05 19:00"),
    ("at 1900 hours", "2026-12-05 19:00"),
    ("First thing tomorrow", "2026-12-06 09:00"),
    ("On New Year's Eve at six pm", "2026-12-31 18:00"),
    ("On the twenty-third at ten in the morning", "2026-12-23 10:00"),
    ("the 3rd", "2027-01-03 09:00"),  # gone by this month: next month's
    ("On the first of next month", "2027-01-01 09:00"),
    ("a week on Tuesday", "2026-12-15 09:00"),
    ("at three this arvo", "2026-12-05 15:00"),
    ("the 10th of this month", "2026-12-10 09:00"),
])
def test_moments_said_every_which_way(said: str, moment: str) -> None:
    assert parse_when(said, NOW).strftime("%Y-%m-%d %H:%M") == moment


@pytest.mark.parametrize(("text", "weekday"), [
    ("What day was the twentieth of July nineteen sixty-nine?", "Sunday 1969-07-20"),
    ("Is the twenty-second of October twenty twenty-six a Thursday?", "Thursday 2026-10-22"),
    ("Was the fifth of March two thousand and one a Monday?", "Monday 2001-03-05"),
    ("Will the first of next month be a weekend?", "Friday 2027-01-01"),
])
def test_a_year_in_words_and_next_months_day(text: str, weekday: str) -> None:
    args = weekday_args(text)
    assert args is not None
    assert weekday_date(args["date"], NOW.date()).strftime("%A %Y-%m-%d") == weekday


def test_a_day_of_this_month_gone_by_is_not_next_months() -> None:
    with pytest.raises(AgentError):
        parse_when("the 1st of this month", NOW)


def test_double_is_of_one_number_and_times_that_of_the_one_said() -> None:
    assert decided("triple 12 plus 4") is None  # not "12 plus 4 times 3": the model decides
    assert decided("My 2 kids each eat 3 apples, times that by 7") is None


def test_the_new_calculations_are_right() -> None:
    assert evaluate("two hundred and thirty-seven times 2") == 474
    assert evaluate("forty-two divided by fifty times 100") == 84
    assert evaluate("1,250 times twelve") == 15000
