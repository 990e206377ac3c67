"""Numbers to English words, for speech. Hand-written: core is stdlib only.

Every function takes digits as written (a ``str``) or an ``int`` and returns
lower-case words joined by single spaces, with hyphens in 21-99
("twenty-one"), American style (no "and": "one hundred five").
"""

from __future__ import annotations

from typing import Final

ONES: Final = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
    "seventeen", "eighteen", "nineteen",
)  # fmt: skip
TENS: Final = (
    "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
)  # fmt: skip
_SCALES: Final = (
    (10**12, "trillion"),
    (10**9, "billion"),
    (10**6, "million"),
    (10**3, "thousand"),
)
MAX_CARDINAL: Final = 10**15 - 1
"""Largest integer read as a cardinal; longer numbers are read digit by digit."""

_ORDINAL_IRREGULAR: Final = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}


def _under_thousand(n: int) -> list[str]:
    words: list[str] = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words += [ONES[hundreds], "hundred"]
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(TENS[tens] + (f"-{ONES[ones]}" if ones else ""))
    elif rest or not words:
        words.append(ONES[rest])
    return words


def int_to_words(n: int) -> str:
    """Read an integer as a cardinal.

    Args:
        n: Any integer. Magnitudes above ``MAX_CARDINAL`` are read digit by digit.

    Returns:
        E.g. ``1234`` -> "one thousand two hundred thirty-four", ``-5`` -> "minus five".
    """
    if n < 0:
        return "minus " + int_to_words(-n)
    if n > MAX_CARDINAL:
        return digits_to_words(str(n))
    if n == 0:
        return "zero"
    words: list[str] = []
    for scale, name in _SCALES:
        count, n = divmod(n, scale)
        if count:
            words += _under_thousand(count) + [name]
    if n:
        words += _under_thousand(n)
    return " ".join(words)


def digits_to_words(digits: str) -> str:
    """Read each digit of ``digits`` on its own ("007" -> "zero zero seven").

    Characters that are not ASCII digits are skipped.
    """
    return " ".join(ONES[int(ch)] for ch in digits if "0" <= ch <= "9")


def number_string_to_words(text: str) -> str:
    """Read a plain number as written: "1,234" / "-3.5" / ".25" / "007".

    Args:
        text: Optional leading "-", digits with optional comma grouping, and an
            optional fractional part after ".". Anything else is read digit by digit.

    Returns:
        E.g. "3.14" -> "three point one four", "007" -> "zero zero seven".
    """
    sign = ""
    if text.startswith("-"):
        sign, text = "minus ", text[1:]
    whole, _, frac = text.partition(".")
    whole = whole.replace(",", "")
    if not whole.isascii() or not (whole.isdigit() or whole == ""):
        return sign + digits_to_words(text)
    if whole == "":
        head = "zero" if frac else ""
    elif (len(whole) > 1 and whole.startswith("0")) or len(whole) > len(str(MAX_CARDINAL)):
        head = digits_to_words(whole)
    else:
        head = int_to_words(int(whole))
    if frac and frac.isascii() and frac.isdigit():
        head = f"{head} point {digits_to_words(frac)}".strip()
    return (sign + head).strip()


def ordinal_words(n: int) -> str:
    """Read a non-negative integer as an ordinal (21 -> "twenty-first")."""
    words = int_to_words(n)
    head, sep, last = words.rpartition(" ")
    prefix, hyphen, unit = last.rpartition("-")
    if unit in _ORDINAL_IRREGULAR:
        unit = _ORDINAL_IRREGULAR[unit]
    elif unit.endswith("y"):
        unit = unit[:-1] + "ieth"
    else:
        unit += "th"
    return head + sep + prefix + hyphen + unit


def year_to_words(year: int) -> str:
    """Read a year the way people say it.

    Examples: 1999 -> "nineteen ninety-nine", 1905 -> "nineteen oh five",
    1900 -> "nineteen hundred", 2000 -> "two thousand", 2007 -> "two thousand seven",
    2026 -> "twenty twenty-six". Years outside 1000-9999 are read as cardinals.
    """
    if not 1000 <= year <= 9999:
        return int_to_words(year)
    high, low = divmod(year, 100)
    if 2000 <= year <= 2009 or (low == 0 and high % 10 == 0):
        return int_to_words(year)
    if low == 0:
        return f"{int_to_words(high)} hundred"
    if low < 10:
        return f"{int_to_words(high)} oh {ONES[low]}"
    return f"{int_to_words(high)} {int_to_words(low)}"


def plural_year_words(year: int) -> str:
    """Read a decade like "1990s" -> "nineteen nineties", "2000s" -> "two thousands"."""
    words = year_to_words(year)
    if words.endswith("y"):
        return words[:-1] + "ies"
    return words + "s"
