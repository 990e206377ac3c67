"""Arguments found anywhere in a request (core.tools.words_spans), through each tool's rule."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.tools.args import arguments_from_words
from desktop_agent.core.tools.words_spans import (
    conversion_anywhere,
    is_moment,
    reminder_anywhere,
    timer_anywhere,
)


@pytest.mark.parametrize(("text", "args"), [
    ("give me a shout in ten minutes", {"duration": "ten minutes"}),
    ("ring me in 45 seconds", {"duration": "45 seconds"}),
    ("wake me in twenty minutes", {"duration": "twenty minutes"}),
    ("um, can you time 45 seconds for the plank", {"duration": "45 seconds", "label": "plank"}),
    ("I need twenty five minutes for the bread to rise",
     {"duration": "twenty five minutes", "label": "bread"}),
    ("give me an hour and a half on the clock for the roast",
     {"duration": "an hour and a half", "label": "roast"}),
    ("put a timer on for two hours", {"duration": "two hours"}),  # "on" is no label
])
def test_a_duration_anywhere_sets_a_timer(text: str, args: dict[str, str]) -> None:
    assert arguments_from_words("set_timer", text) == args


@pytest.mark.parametrize("text", [
    "nudge me in an hour to stretch",  # "to ...": a reminder
    "in an hour remind me to check the washing",
    "is 20 minutes long enough to boil an egg",  # no cue before the duration
    "the film is two hours long",
    "I set a timer yesterday",
])
def test_no_timer_without_a_cue_or_for_a_reminder(text: str) -> None:
    assert timer_anywhere(text) is None


@pytest.mark.parametrize(("text", "args"), [
    ("in ten minutes remind me to take the bins out",
     {"text": "take the bins out", "when": "in ten minutes"}),
    ("tomorrow at 9 remind me about the dentist appointment",
     {"text": "the dentist appointment", "when": "tomorrow at 9"}),
    ("don't let me forget to water the plants this evening",
     {"text": "water the plants", "when": "this evening"}),
    ("set a reminder for Friday noon: submit the expense report",
     {"text": "submit the expense report", "when": "Friday noon"}),
    ("nudge me in an hour to stretch", {"text": "stretch", "when": "in an hour"}),
    ("tomorrow morning I have to call the bank, remind me",
     {"text": "call the bank", "when": "tomorrow morning"}),
    ("ping me on Monday about the report", {"text": "the report", "when": "on Monday"}),
    ("remind me to pick up milk at the shop at 5",  # "at the shop at 5" is no time
     {"text": "pick up milk at the shop", "when": "at 5"}),
    ("on Friday morning could you remind me about mum's birthday card",
     {"text": "mum's birthday card", "when": "on Friday morning"}),
])
def test_a_moment_anywhere_sets_a_reminder(text: str, args: dict[str, str]) -> None:
    assert arguments_from_words("set_reminder", text) == args


@pytest.mark.parametrize("text", [
    "remind me to call mum",  # no time: the model asks
    "tomorrow I'm seeing the dentist",  # nobody asked to be reminded
    "remind me tomorrow",  # nothing to remind
])
def test_no_reminder_without_a_cue_a_time_and_a_text(text: str) -> None:
    assert reminder_anywhere(text) is None


def test_a_moment_is_checked_for_its_shape_only() -> None:
    assert is_moment("tomorrow at 9") and is_moment("in ten minutes")
    assert not is_moment("at the shop at 5") and not is_moment("noon: submit it")


@pytest.mark.parametrize(("text", "args"), [
    ("convert three hundred and fifty Fahrenheit to Celsius",
     {"value": 350, "from_unit": "fahrenheit", "to_unit": "celsius"}),
    ("how many ounces are in 250 grams",
     {"value": 250, "from_unit": "grams", "to_unit": "ounces"}),
    ("I weigh 70 kilos, what's that in pounds",
     {"value": 70, "from_unit": "kilos", "to_unit": "pounds"}),
    ("five and a half stone in kilos please",
     {"value": 5.5, "from_unit": "stone", "to_unit": "kilos"}),
    ("half a gallon is how many litres",
     {"value": 0.5, "from_unit": "gallon", "to_unit": "litres"}),
    ("eighty kilometres an hour, what's that in miles per hour",
     {"value": 80, "from_unit": "kilometres per hour", "to_unit": "miles per hour"}),
])
def test_a_quantity_and_a_unit_anywhere_convert(text: str, args: dict[str, Any]) -> None:
    assert arguments_from_words("convert_units", text) == args


@pytest.mark.parametrize("text", [
    "how many days are there in a leap year",  # no number
    "what's the difference between a mile and a kilometre",
    "I ran 5 miles and 3 kilometres in total",  # two quantities: which one?
    "I have 3 dogs",
])
def test_no_conversion_without_one_quantity_and_a_target(text: str) -> None:
    assert conversion_anywhere(text) is None
