"""Spoken quantities read exactly: "three and a half", "a dozen", "half an hour"."""

from __future__ import annotations

from fractions import Fraction

import pytest

from desktop_agent.core.tools.calc import evaluate
from desktop_agent.core.tools.calc_words import (
    clean_spoken,
    replace_number_words,
    replace_quantity_words,
)


@pytest.mark.parametrize(("spoken", "written"), [
    ("three and a half hours", "3.5 hours"),
    ("one and a quarter", "1.25"),
    ("two and three quarters", "2.75"),
    ("one and one half", "1.5"),
    ("five and a half thousand", "5500"),
    ("a dozen eggs", "12 eggs"),
    ("three dozen", "36"),
    ("half a dozen", "6"),
    ("a couple of twenty dollar bills", "2 20 dollar bills"),
    ("a pair of shoes", "2 shoes"),
    ("half an hour", "0.5 hour"),
    ("a quarter of an hour", "0.25 hour"),
    ("three quarters of a mile", "0.75 mile"),
    ("twenty-five percent off", "25 percent off"),
    ("two dollars forty each", "2.40 dollars each"),
    ("a bill of 126 pounds 40", "a bill of 126.40 pounds"),
    ("a pen for a dollar ninety-five.", "a pen for 1.95 dollars."),
    ("three coffees at four fifty each", "3 coffees at 4.50 each"),
    ("five dollars twenty people", "5 dollars 20 people"),  # not an amount
    ("two dollars forty cents", "2 dollars 40 cents"),
    # Left alone: the calculator's operators and the time phrases read these.
    ("half of 80", "half of 80"),
    ("a quarter of 120", "a quarter of 120"),
    ("half past three", "half past 3"),
    ("a quarter to five", "a quarter to 5"),
    ("an hour and a half", "an hour and a half"),
])
def test_spoken_quantities_become_digits(spoken: str, written: str) -> None:
    assert replace_quantity_words(clean_spoken(spoken)) == written


def test_number_words_alone_are_unchanged() -> None:
    # The time phrases (when.py) keep reading "one and a half hours" their own way.
    assert replace_number_words("one and a half hours") == "1 and a half hours"
    assert replace_number_words("a dozen") == "a dozen"


@pytest.mark.parametrize(("text", "value"), [
    ("three and a half times 60", 210),
    ("one and a quarter plus two and a half", Fraction(15, 4)),
    ("a dozen times 3", 36),
    ("half a dozen plus 1", 7),
    ("a quarter of 120", 30),
    ("one quarter of 120", 30),
    ("one half of 80", 40),
    ("a third of 90", 30),
    ("two thirds of 90", 60),
    ("three quarters of 80", 60),
    ("twenty-five percent of 40", 10),
    ("a couple of dozen", 24),
])
def test_the_calculator_reads_spoken_quantities(text: str, value: Fraction | int) -> None:
    assert evaluate(text) == value
