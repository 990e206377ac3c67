"""Tests for speech text normalisation and number words."""

from __future__ import annotations

import datetime
import random
import re
import unicodedata

import pytest

from desktop_agent.core.text import CODE_PHRASE, normalize_for_speech
from desktop_agent.core.text.number_words import (
    int_to_words,
    number_string_to_words,
    ordinal_words,
    year_to_words,
)

# ---- number words -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (0, "zero"),
        (7, "seven"),
        (13, "thirteen"),
        (20, "twenty"),
        (21, "twenty-one"),
        (99, "ninety-nine"),
        (100, "one hundred"),
        (105, "one hundred five"),
        (1000, "one thousand"),
        (1234, "one thousand two hundred thirty-four"),
        (1_000_001, "one million one"),
        (2_500_000_000, "two billion five hundred million"),
        (-42, "minus forty-two"),
        (10**15, "one zero zero zero zero zero zero zero zero zero zero zero zero zero zero zero"),
    ],
)
def test_int_to_words(n: int, words: str) -> None:
    assert int_to_words(n) == words


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (1, "first"),
        (2, "second"),
        (3, "third"),
        (4, "fourth"),
        (5, "fifth"),
        (8, "eighth"),
        (9, "ninth"),
        (12, "twelfth"),
        (20, "twentieth"),
        (21, "twenty-first"),
        (30, "thirtieth"),
        (100, "one hundredth"),
        (103, "one hundred third"),
    ],
)
def test_ordinal_words(n: int, words: str) -> None:
    assert ordinal_words(n) == words


@pytest.mark.parametrize(
    ("year", "words"),
    [
        (1999, "nineteen ninety-nine"),
        (1905, "nineteen oh five"),
        (1900, "nineteen hundred"),
        (2000, "two thousand"),
        (2007, "two thousand seven"),
        (2010, "twenty ten"),
        (2026, "twenty twenty-six"),
        (1066, "ten sixty-six"),
    ],
)
def test_year_to_words(year: int, words: str) -> None:
    assert year_to_words(year) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("3.14", "three point one four"),
        ("-0.5", "minus zero point five"),
        ("007", "zero zero seven"),
        ("1,000,000", "one million"),
        (".25", "zero point two five"),
    ],
)
def test_number_string_to_words(text: str, words: str) -> None:
    assert number_string_to_words(text) == words


# ---- normalisation ----------------------------------------------------------------------

CASES = [
    # times
    ("It is 9:40 now.", "It is nine forty now."),
    ("9:05", "nine oh five"),
    ("9:00", "nine o'clock"),
    ("14:00", "two p m"),
    ("14:30", "two thirty p m"),
    ("00:15", "twelve fifteen a m"),
    ("12:00", "twelve o'clock"),
    ("9:40 am", "nine forty a m"),
    ("9:40PM", "nine forty p m"),
    ("Meet at 9:40 a.m. Then go.", "Meet at nine forty a m. Then go."),
    ("at 9 a.m. tomorrow", "at nine a m tomorrow"),
    ("at 9am", "at nine a m"),
    ("The score was 3:1", "The score was three to one"),
    # numbers
    ("1,234", "one thousand two hundred thirty-four"),
    ("3.5", "three point five"),
    ("0.25", "zero point two five"),
    (".5 cups", "point five cups"),
    ("-5", "minus five"),
    ("It fell to -12 today", "It fell to minus twelve today"),
    ("007", "zero zero seven"),
    ("the 21st and 2nd and 3rd and 4th", "the twenty-first and second and third and fourth"),
    ("3–5 days", "three to five days"),
    ("v1.2.3", "v one point two point three"),
    ("x86 and 4K", "x eighty-six and four K"),
    ("1920x1080", "nineteen twenty by one thousand eighty"),
    ("#1 fan", "number one fan"),
    ("~5 people", "about five people"),
    ("2 + 2 = 4", "two plus two equals four"),
    # percentages, money
    ("45%", "forty-five percent"),
    ("3.5 %", "three point five percent"),
    ("-2%", "minus two percent"),
    ("$5.20", "five dollars and twenty cents"),
    ("$1", "one dollar"),
    ("$0.50", "fifty cents"),
    ("$0.01", "one cent"),
    ("$5.00", "five dollars"),
    ("$1,234.56", "one thousand two hundred thirty-four dollars and fifty-six cents"),
    ("$5.2 million", "five point two million dollars"),
    ("$3k", "three thousand dollars"),
    ("-$5", "minus five dollars"),
    ("£3.01", "three pounds and one penny"),
    ("€2", "two euros"),
    ("It costs $5 more", "It costs five dollars more"),
    # years and dates
    ("1999", "nineteen ninety-nine"),
    ("in 2007,", "in two thousand seven,"),
    ("1,999 items", "one thousand nine hundred ninety-nine items"),
    ("1999-2005", "nineteen ninety-nine to two thousand five"),
    ("the 1990s and '80s", "the nineteen nineties and eighties"),
    ("2026-11-30", "November thirtieth, twenty twenty-six"),
    ("On 2024-02-29.", "On February twenty-ninth, twenty twenty-four."),
    ("2026-13-45", "twenty twenty-six-thirteen-forty-five"),
    ("November 30, 2026", "November thirtieth, twenty twenty-six"),
    ("due May 1st", "due May first"),
    # units
    ("10 km", "ten kilometers"),
    ("1 km", "one kilometer"),
    ("5kg", "five kilograms"),
    ("25°C", "twenty-five degrees Celsius"),
    ("-3 °F", "minus three degrees Fahrenheit"),
    ("90°", "ninety degrees"),
    ("60 mph", "sixty miles per hour"),
    ("100 km/h", "one hundred kilometers per hour"),
    ("16 GB", "sixteen gigabytes"),
    ("512MB", "five hundred twelve megabytes"),
    ("200 ms", "two hundred milliseconds"),
    ("1.5 GHz", "one point five gigahertz"),
    ("5 good apples", "five good apples"),
    ("5 minutes", "five minutes"),
    # identifiers
    ("K7Q2LM", "K seven Q two L M"),
    ("Your code is K7Q2LM.", "Your code is K seven Q two L M."),
    ("NASA and A4", "NASA and A four"),
    # markdown
    ("**bold** and *it* and `code` and _x_", "bold and it and code and x"),
    ("~~old~~ new", "old new"),
    ("Use snake_case here", "Use snake case here"),
    ("# Heading\n- item one\n- item two", "Heading. item one. item two"),
    ("1. first\n2. second\n", "first. second"),
    ("> quoted\n\n---\ntext", "quoted. text"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "a, b. one, two"),
    ("See [the docs](https://x.org/a) now", "See the docs now"),
    ("![a cat](cat.png)", "a cat"),
    # urls and e-mail
    ("Visit https://www.example.com/path?q=1.", "Visit example dot com."),
    ("Go to www.python.org now", "Go to python dot org now"),
    ("<https://example.org/x>", "example dot org"),
    ("mail bob@example.com", "mail bob at example dot com"),
    # code
    ("```python\nprint(1)\n```\nDone.", f"{CODE_PHRASE} Done."),
    ("Try:\n```\nrm -rf x\n", f"Try: {CODE_PHRASE}"),
    ("Use ```x = 1``` here", f"Use {CODE_PHRASE} here"),
    # abbreviations
    ("Fruit, e.g. apples, etc. are good", "Fruit, for example apples, et cetera are good"),
    ("Bring pens, paper, etc. Then go.", "Bring pens, paper, et cetera. Then go."),
    ("Dr. Smith vs. Mr. Jones", "Doctor Smith versus Mister Jones"),
    # symbols, emoji, control characters
    ("Hi 😀👍🏽 there\u200b\x00\x07!", "Hi there!"),
    ("Flags 🇫🇷 and 1️⃣ keycaps", "Flags and one keycaps"),
    ("C# and C++", "C sharp and C plus plus"),
    ("AT&T", "AT and T"),
    ("24/7", "twenty-four seven"),
    ("line one\r\nline two", "line one line two"),
    ("tab\there", "tab here"),
    ("", ""),
    ("   ", ""),
    ("😀", ""),
]


@pytest.mark.parametrize(("text", "spoken"), CASES)
def test_normalize_for_speech(text: str, spoken: str) -> None:
    assert normalize_for_speech(text) == spoken


def test_now_drops_the_year_of_dates_in_the_current_year() -> None:
    today = datetime.date(2026, 1, 15)
    assert normalize_for_speech("2026-11-30", now=today) == "November thirtieth"
    assert normalize_for_speech("2027-01-02", now=today) == "January second, twenty twenty-seven"


def test_huge_numbers_are_read_digit_by_digit_without_raising() -> None:
    assert normalize_for_speech("9" * 20) == " ".join(["nine"] * 20)
    spoken = normalize_for_speech("1" * 5000 + "st and $" + "2" * 5000)
    assert spoken.startswith("one one one")
    assert "dollars" in spoken


def test_non_string_input_never_raises() -> None:
    assert normalize_for_speech(None) == ""  # type: ignore[arg-type]
    assert normalize_for_speech(42) == "forty-two"  # type: ignore[arg-type]


_FUZZ_ALPHABET = (
    "0123456789.,:;-+$€£%°*_`#[]()<>/\\|~!?@&'\" \n\tabcXYZ KMGB km kg ms am pm https://www. ``` **"
)


def _fuzz_text(rng: random.Random) -> str:
    parts: list[str] = []
    for _ in range(rng.randint(0, 40)):
        pick = rng.random()
        if pick < 0.5:
            parts.append(rng.choice(_FUZZ_ALPHABET))
        elif pick < 0.8:
            parts.append(chr(rng.randint(0, 0x2FFF)))
        else:
            parts.append(chr(rng.randint(0x1F000, 0x10FFFF)))
    return "".join(parts)


def test_fuzz_never_raises_and_leaves_only_speakable_text() -> None:
    rng = random.Random(20260130)
    for _ in range(3000):
        text = _fuzz_text(rng)
        spoken = normalize_for_speech(text)
        assert isinstance(spoken, str)
        assert not re.search(r"[0-9]", spoken), (text, spoken)
        assert "\n" not in spoken and spoken == spoken.strip()
        assert not any(
            unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "So") for ch in spoken
        ), (text, spoken)
        assert not set("*`#[]{}<>") & set(spoken), (text, spoken)


@pytest.mark.parametrize(("text", "spoken"), [
    ("19 * 42 = 798", "nineteen times forty-two equals seven hundred ninety-eight"),
    ("19*42", "nineteen times forty-two"),
    ("19 - 42 = -23", "nineteen minus forty-two equals minus twenty-three"),
    ("Nineteen times forty-two is 798.", "Nineteen times forty-two is seven hundred "
                                          "ninety-eight."),  # never "forty minus two"
])
def test_arithmetic_the_model_restates_is_read_with_its_operators(text: str,
                                                                  spoken: str) -> None:
    assert normalize_for_speech(text) == spoken
