"""day_of_week: a weekday for a date the user names, from the words to the spoken answer."""

from __future__ import annotations

import datetime as dt

import pytest

from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.decision import plan_decision
from desktop_agent.core.tools.registry import validate_args
from desktop_agent.core.tools.router import candidate_tools
from desktop_agent.core.tools.weekday import asks_weekday, say_weekday, weekday_args, weekday_date

ZONE = dt.timezone(dt.timedelta(hours=1))
NOW = dt.datetime(2026, 3, 10, 18, 0, tzinfo=ZONE)  # Tuesday 10 March 2026
TODAY = NOW.date()


@pytest.mark.parametrize(("words", "date"), [
    ("the 14th", dt.date(2026, 3, 14)),  # a day alone: this month
    ("the 1st", dt.date(2026, 3, 1)),  # ... even when it has passed
    ("14", dt.date(2026, 3, 14)),
    ("the fourteenth", dt.date(2026, 3, 14)),
    ("the twenty first", dt.date(2026, 3, 21)),
    ("the thirty-first", dt.date(2026, 3, 31)),
    ("March 10th", dt.date(2026, 3, 10)),  # month and day: the next one, today included
    ("March 3rd", dt.date(2027, 3, 3)),
    ("3 March", dt.date(2027, 3, 3)),
    ("the 3rd of march", dt.date(2027, 3, 3)),
    ("april the second", dt.date(2026, 4, 2)),
    ("Sept 5", dt.date(2026, 9, 5)),
    ("the 3rd of March 2021", dt.date(2021, 3, 3)),  # a year said wins
    ("March 3rd, 2027", dt.date(2027, 3, 3)),
    ("February 29th", dt.date(2028, 2, 29)),  # the next leap day
])
def test_which_date_a_phrase_means(words: str, date: dt.date) -> None:
    assert weekday_date(words, TODAY) == date


@pytest.mark.parametrize(("words", "fragment"), [
    ("the 31st", "April 2026 has no 31st"),  # a day alone, in April
    ("April 31st", "April 2026 has no 31st"),
    ("February 29th 2027", "February 2027 has no 29th"),
    ("the 0th", "has no 0th"),
    ("next week", "needs"),
    ("", "needs"),
])
def test_a_date_that_does_not_exist_is_an_error_for_the_model(words: str, fragment: str) -> None:
    with pytest.raises(AgentError) as err:
        weekday_date(words, dt.date(2026, 4, 10))
    assert err.value.code == "bad_arguments" and fragment in err.value.message


def test_the_answer_names_the_date_in_full_and_its_tense() -> None:
    assert say_weekday({"date": "the 14th"}, NOW) == "The 14th of March is a Saturday."
    assert say_weekday({"date": "the 2nd"}, NOW) == "The 2nd of March was a Monday."
    assert say_weekday({"date": "the 10th"}, NOW) == "The 10th of March is a Tuesday."
    assert say_weekday({"date": "March 3rd"}, NOW) == "The 3rd of March 2027 is a Wednesday."
    assert say_weekday({"date": "the 3rd of March 2021"}, NOW) == (
        "The 3rd of March 2021 was a Wednesday.")
    assert say_weekday({"date": "the 11th"}, NOW.replace(month=11)) == (
        "The 11th of November is a Wednesday.")


@pytest.mark.parametrize(("text", "date"), [
    ("What day of the week is the 14th?", "the 14th"),
    ("what weekday is March 3rd", "March 3rd"),
    ("which day is the 3rd of march", "the 3rd of march"),
    ("hey, what day does the 21st fall on", "the 21st"),
    ("is the 25th a friday?", "the 25th"),
    ("What day will the twenty first be?", "the twenty first"),
    ("is March 3rd on a weekend", "March 3rd"),
    ("is the 14th a weekday", "the 14th"),
])
def test_a_weekday_request_is_routed_and_its_date_cut_from_the_words(text: str,
                                                                    date: str) -> None:
    offered = candidate_tools(text, BUILTIN.specs)
    assert "day_of_week" in [s.name for s in offered]
    assert weekday_args(text) == {"date": date}
    plan = plan_decision(text, offered)
    assert plan.call == ToolCall("day_of_week", {"date": date}, "call_1")


@pytest.mark.parametrize("text", [
    "what day is it today",
    "what's today's date",
    "what time is it",
    "The 14th of July is a holiday in France.",
    "I was born on the 3rd of March",
    "set a timer for 14 minutes",
])
def test_other_requests_and_statements_are_not_offered_it(text: str) -> None:
    assert "day_of_week" not in [s.name for s in candidate_tools(text, BUILTIN.specs)]


def test_its_catalog_entry_is_a_pure_read() -> None:
    entry = BUILTIN["day_of_week"]
    assert not entry.writes and entry.answer is say_weekday and not entry.executor
    assert validate_args(entry.spec, {"date": " the 14th "}) == {"date": "the 14th"}
    with pytest.raises(AgentError):
        validate_args(entry.spec, {"date": ""})


@pytest.mark.parametrize(("text", "said", "answer"), [
    ("what day does Christmas fall on this year", "Christmas",
     "The 25th of December is a Friday."),
    ("will new year's eve be a Thursday", "new year's eve", "The 31st of December is a Thursday."),
    ("what day is Halloween", "Halloween", "The 31st of October 2027 is a Sunday."),
    ("what day is New Year's Day next year", "New Year's Day next year",
     "The 1st of January 2027 is a Friday."),
])
def test_a_day_with_a_fixed_date_is_asked_by_name(text: str, said: str, answer: str) -> None:
    now = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)
    assert asks_weekday(text)
    assert weekday_args(text) == {"date": said}
    assert say_weekday({"date": said}, now) == answer
