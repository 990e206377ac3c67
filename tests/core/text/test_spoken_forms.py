"""Spoken forms: phone numbers in groups, dates in the locale's order, codes spelled,
this year's dates without their year (core/text/spoken_forms.py through
normalize_for_speech)."""

from __future__ import annotations

import datetime

import pytest

from desktop_agent.core.text.normalize import normalize_for_speech
from desktop_agent.core.text.spoken_forms import date_order_for_locale

TODAY = datetime.date(2026, 12, 1)


@pytest.mark.parametrize(("text", "spoken"), [
    ("Call 0161 496 0000 now.", "Call zero one six one, four nine six, zero zero zero zero now."),
    ("Call +44 161 496 0000.", "Call plus four four, one six one, four nine six, zero zero zero "
                               "zero."),
    ("Dial (555) 123-4567.", "Dial five five five, one two three, four five six seven."),
    ("It is 555-1234.", "It is five five five, one two three four."),
    ("Try 555.123.4567 today", "Try five five five, one two three, four five six seven today"),
    ("+33 1 23 45 67 89", "plus three three, one, two three, four five, six seven, eight nine"),
])
def test_phone_numbers_are_read_digit_by_digit_in_groups(text: str, spoken: str) -> None:
    assert normalize_for_speech(text, now=TODAY) == spoken


@pytest.mark.parametrize(("text", "spoken"), [
    ("from 1990-1995", "from nineteen ninety to nineteen ninety-five"),  # a year range
    ("2026-13-45", "twenty twenty-six-thirteen-forty-five"),  # date-shaped, not a phone
    ("version 3.11.2", "version three point eleven point two"),
    ("It costs $1,299.99", "It costs one thousand two hundred ninety-nine dollars and "
                           "ninety-nine cents"),
    ("in 2024, 500 people came", "in twenty twenty-four, five hundred people came"),
    ("wait 5 10 15 20 minutes", "wait five ten fifteen twenty minutes"),
])
def test_numbers_that_are_not_phone_numbers_stay_numbers(text: str, spoken: str) -> None:
    assert normalize_for_speech(text, now=TODAY) == spoken


@pytest.mark.parametrize(("text", "mdy", "dmy"), [
    ("Meet on 01/12/2026.", "Meet on January twelfth.", "Meet on the first of December."),
    ("Meet on 30/11/2026.", "Meet on November thirtieth.", "Meet on the thirtieth of November."),
    ("Due 12/25/27", "Due December twenty-fifth, twenty twenty-seven",
     "Due the twenty-fifth of December, twenty twenty-seven"),
    ("On 30.11.2026", "On November thirtieth", "On the thirtieth of November"),
    ("On 2027-01-02", "On January second, twenty twenty-seven",
     "On the second of January, twenty twenty-seven"),
    ("On 2027/1/2", "On January second, twenty twenty-seven",
     "On the second of January, twenty twenty-seven"),
])
def test_numeric_dates_follow_the_locale_order(text: str, mdy: str, dmy: str) -> None:
    assert normalize_for_speech(text, now=TODAY, date_order="MDY") == mdy
    assert normalize_for_speech(text, now=TODAY, date_order="DMY") == dmy


def test_a_year_first_locale_reads_day_month_dates_by_their_values() -> None:
    assert normalize_for_speech("31/12/2026", now=TODAY, date_order="YMD") == \
        "December thirty-first"
    assert normalize_for_speech("2026-12-31", now=TODAY, date_order="YMD") == \
        "December thirty-first"


def test_impossible_dates_and_versions_are_not_dates() -> None:
    assert normalize_for_speech("13/13/2026", now=TODAY) != normalize_for_speech(
        "13/12/2026", now=TODAY)
    assert "December" not in normalize_for_speech("13/13/2026", now=TODAY)
    assert normalize_for_speech("v1.2.26") == "v one point two point twenty-six"
    assert normalize_for_speech("24/7") == "twenty-four seven"


@pytest.mark.parametrize(("text", "this_year", "next_year"), [
    ("November 30, 2026", "November thirtieth", "November thirtieth, twenty twenty-six"),
    ("30 November 2026", "the thirtieth of November",
     "the thirtieth of November, twenty twenty-six"),
    ("2026-11-30", "November thirtieth", "November thirtieth, twenty twenty-six"),
    ("11/30/2026", "November thirtieth", "November thirtieth, twenty twenty-six"),
])
def test_the_year_is_not_said_when_it_is_this_year(text: str, this_year: str,
                                                  next_year: str) -> None:
    assert normalize_for_speech(text, now=TODAY) == this_year
    assert normalize_for_speech(text, now=datetime.date(2027, 1, 1)) == next_year
    assert normalize_for_speech(text) == next_year  # no today: the year is said


def test_day_first_dates_keep_one_the() -> None:
    assert normalize_for_speech("on the 3rd of May") == "on the third of May"
    assert normalize_for_speech("on 3 May") == "on the third of May"


@pytest.mark.parametrize(("text", "spoken"), [
    ("Your code is ab12x.", "Your code is A B one two X."),
    ("Use gpt4o", "Use G P T four O"),
    ("the password abc123", "the password A B C one two three"),
    ("Ref a1b2c3", "Ref A one B two C three"),
    ("K7Q2LM", "K seven Q two L M"),  # capitals: as before
    # Words with digits that are not codes stay words.
    ("x86 and mp3 and covid19", "x eighty-six and mp three and covid nineteen"),
    ("the 21st and the 1990s", "the twenty-first and the nineteen nineties"),
    ("a 5000mAh battery", "a five thousand milliamp hours battery"),
])
def test_lower_and_mixed_case_codes_are_spelled(text: str, spoken: str) -> None:
    assert normalize_for_speech(text) == spoken


@pytest.mark.parametrize(("name", "order"), [
    ("en_US.UTF-8", "MDY"), ("en_GB.UTF-8", "DMY"), ("de_DE.UTF-8@euro", "DMY"),
    ("fr_CA", "YMD"), ("ja_JP.UTF-8", "YMD"), ("sv_SE", "YMD"), ("en_PH", "MDY"),
    ("C", "MDY"), ("C.UTF-8", "MDY"), ("POSIX", "MDY"), ("", "MDY"), ("zh", "YMD"),
])
def test_date_order_for_locale(name: str, order: str) -> None:
    assert date_order_for_locale(name) == order
