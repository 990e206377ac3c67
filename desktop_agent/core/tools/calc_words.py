"""Spoken numbers read exactly: "three hundred and five point two" -> 305.2.

The calculator (calc.py) and the time phrases (when.py) read number words this way;
the calculator and the reflector's checks also read spoken quantities
(``replace_quantity_words``: "three and a half", "a dozen", "half an hour").
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Final

_UNITS: Final = {
    "zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS: Final = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES: Final = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_DIGIT_WORDS: Final = {k: v for k, v in _UNITS.items() if v < 10}
_TOKEN: Final = re.compile(r"[a-z]+|\d+(?:\.\d+)?")


def _is_value_word(word: str) -> bool:
    return (word in _UNITS and word != "oh") or word in _TENS


class _Run:
    """One spoken number being read left to right (a tiny state machine)."""

    def __init__(self) -> None:
        self.total = Fraction(0)
        self.current = Fraction(0)
        self.last_scale = 0
        self.started = False
        self.after_scale = False
        self.decimals = ""

    def value(self) -> Fraction:
        head = self.total + self.current
        if self.decimals:
            head += Fraction(int(self.decimals), 10 ** len(self.decimals))
        return head

    def add_word(self, word: str) -> bool:
        """Take a value word if it fits the number so far ("twenty" + "three")."""
        v = _UNITS[word] if word in _UNITS else _TENS[word]
        cur = self.current
        if cur.denominator != 1:
            return False
        free = cur % 100 == 0 and (cur > 0 or not self.started or self.after_scale)
        after_tens = v < 10 and cur % 10 == 0 and cur % 100 >= 20 and not self.after_scale
        if not (free or after_tens):
            return False
        self.current += v
        self.started = True
        self.after_scale = False
        return True

    def add_hundred(self) -> bool:
        if self.current >= 100 or self.current.denominator != 1:
            return False
        self.current = (self.current or Fraction(1)) * 100
        self.started = True
        self.after_scale = True
        return True

    def add_scale(self, word: str) -> bool:
        scale = _SCALES[word]
        if self.last_scale and scale >= self.last_scale:
            return False
        self.total += (self.current or Fraction(1)) * scale
        self.current = Fraction(0)
        self.last_scale = scale
        self.started = True
        self.after_scale = True
        return True


def _read_run(words: list[str], start: int) -> tuple[Fraction, int] | None:
    """Read the longest spoken number at ``words[start]``: (value, words used) or None."""
    run = _Run()
    i = start
    n = len(words)
    first = words[i]
    if first[0].isdigit():
        if i + 1 < n and (words[i + 1] in _SCALES or words[i + 1] == "hundred"):
            run.current = Fraction(first)
            run.started = True
            i += 1
        else:
            return None
    while i < n:
        word = words[i]
        nxt = words[i + 1] if i + 1 < n else ""
        if _is_value_word(word) and run.add_word(word):
            i += 1
        elif word == "hundred" and run.add_hundred():
            i += 1
        elif word in _SCALES and run.add_scale(word):
            i += 1
        elif word in ("a", "an") and not run.started and (nxt == "hundred" or nxt in _SCALES):
            run.current = Fraction(1)
            i += 1
        elif word == "and" and run.after_scale and _is_value_word(nxt) and run.current % 100 == 0:
            i += 1
        elif word == "point" and nxt in _DIGIT_WORDS and run.value().denominator == 1:
            i += 1
            while i < n and words[i] in _DIGIT_WORDS:
                run.decimals += str(_DIGIT_WORDS[words[i]])
                i += 1
            run.started = True
            break
        else:
            break
    # A run must hold a number, and may not end on a dangling "a" / "and".
    while i > start and words[i - 1] in ("a", "an", "and"):
        i -= 1
    if i == start or not run.started:
        return None
    return run.value(), i - start


def decimal_text(value: Fraction) -> str:
    """Write a terminating fraction as plain decimal digits ("1.5", "2005")."""
    if value.denominator == 1:
        return str(value.numerator)
    with localcontext() as ctx:
        ctx.prec = 80
        text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def replace_number_words(text: str) -> str:
    """Write the spoken numbers in lower-case ``text`` as digits.

    "twenty three" -> "23", "a hundred and five" -> "105", "one point five" -> "1.5",
    "2 million" -> "2000000". A word that cannot continue a number starts a new one
    ("twenty twenty" -> "20 20"). Other words are left as they are.

    Args:
        text: Lower-case text; hyphens between words should already be spaces.

    Returns:
        The text with each spoken number replaced by its digits.
    """
    tokens = list(_TOKEN.finditer(text))
    words = [t.group() for t in tokens]
    # Only words with nothing but spaces between them form one number ("5, hundred" do not).
    segment_end = list(range(1, len(tokens) + 1))
    for k in range(len(tokens) - 2, -1, -1):
        if not text[tokens[k].end():tokens[k + 1].start()].strip():
            segment_end[k] = segment_end[k + 1]
    out: list[str] = []
    pos = 0
    i = 0
    while i < len(tokens):
        got = _read_run(words[: segment_end[i]], i)
        if got is None:
            i += 1
            continue
        out.append(text[pos:tokens[i].start()])
        out.append(decimal_text(got[0]))
        pos = tokens[i + got[1] - 1].end()
        i += got[1]
    out.append(text[pos:])
    return "".join(out)


_FRACTION_WORDS: Final = {"a half": Fraction(1, 2), "a quarter": Fraction(1, 4),
                          "3 quarters": Fraction(3, 4)}
"""What follows "<whole number> and" (number words are digits by then, "one half" is "a half")."""
_AND_FRACTION: Final = re.compile(
    r"(?<![\d.])(\d+) and (" + "|".join(_FRACTION_WORDS) + r")\b"
    r"(?: (100|1000|1000000|1000000000)(?![\d.]))?")
_BEFORE_NUMBERS: Final = (
    # "half a dozen" first: "a dozen" alone would leave "half 12".
    (re.compile(r"\bhalf an? dozen\b"), "6"),
    (re.compile(r"\b(?:a|one) dozen\b"), "12"),
    (re.compile(r"\b(?:a couple|a pair) of\b"), "2"),
    (re.compile(r"\bone (half|quarter)\b"), r"a \1"),  # the calculator's "a half of"
    (re.compile(r"\b(?:a |one )?half (?:of )?an? (?=[a-z])"), "0.5 "),
    (re.compile(r"\b(?:a|one) quarter of an? (?=[a-z])"), "0.25 "),
    (re.compile(r"\bthree quarters of an? (?=[a-z])"), "0.75 "),
    # "a pint and a half", "a stone and a half": a measure and a half of it
    (re.compile(r"\b(?:a|one) (pint|stone|cup|litre|liter|gallon|pound|kilo|mile|foot|inch"
                r"|ounce|quart|tablespoon|teaspoon|metre|meter|yard) and a half\b"), r"1.5 \1"),
)
_DOZENS: Final = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?) dozen\b")
_CURRENCY: Final = r"(dollar|pound|euro|buck|quid)s?"
_CENTS_END: Final = (r"([0-9]{2})(?!\d|\.\d)(?!\s*(?:%|percent|cents?|pence|p\b|grams?|g\b|kilos?"
                     r"|kg|minutes?|hours?|seconds?|days?|weeks?|months?|years?|miles?|km"
                     r"|people|times|items?|[a-z]+s\b))")
_MONEY_AND_CENTS: Final = re.compile(r"(?<![\d.])(\d+) " + _CURRENCY + " " + _CENTS_END)
"""An amount said with its cents after the currency: "2 dollars 40" -> "2.40 dollars",
"126 pounds 40" -> "126.40 pounds" (not "5 dollars 20 people")."""
_A_MONEY_AND_CENTS: Final = re.compile(r"\b(?:a|one) " + _CURRENCY + " " + _CENTS_END)
"""'a dollar 95' -> '1.95 dollars'."""
_PRICE_EACH: Final = re.compile(r"\b(at|for|costs?|is|are) (\d{1,3}) ([0-9]{2}) "
                                r"(each|apiece|a piece|a pop)\b")
"""A price said as its units and cents: "3 coffees at 4 50 each" -> "at 4.50 each"."""


def replace_quantity_words(text: str) -> str:
    """``replace_number_words``, plus the spoken quantities that are not number words.

    "three and a half" -> "3.5", "one and a quarter" -> "1.25", "two and three quarters"
    -> "2.75", "a dozen" -> "12", "3 dozen" -> "36", "half a dozen" -> "6", "a couple of"
    and "a pair of" -> "2", "half an hour" -> "0.5 hour", "a quarter of a mile" -> "0.25
    mile", "2 dollars 40" -> "2.40 dollars", "a pound 95" -> "1.95 pounds", "at 4 50 each"
    -> "at 4.50 each". "half of 80" and "a quarter of 80" are left to the calculator
    (operators), and "half past" / "quarter to" to the time phrases (this function does
    not touch them).

    Args:
        text: Lower-case text; hyphens between words should already be spaces.

    Returns:
        The text with spoken numbers and quantities written as digits.
    """
    for pattern, repl in _BEFORE_NUMBERS:
        text = pattern.sub(repl, text)
    text = replace_number_words(text)
    text = _AND_FRACTION.sub(lambda m: decimal_text(
        (Fraction(m.group(1)) + _FRACTION_WORDS[m.group(2)]) * int(m.group(3) or 1)), text)
    text = _DOZENS.sub(lambda m: decimal_text(Fraction(m.group(1)) * 12), text)
    return money_with_cents(_PRICE_EACH.sub(r"\1 \2.\3 \4", text))


def money_with_cents(text: str) -> str:
    """An amount said with its cents after the currency, written as one number.

    "2 dollars 40" -> "2.40 dollars", "a pound 95" -> "1.95 pounds" (lower-case text); not
    "5 dollars 20 people".
    """
    text = _A_MONEY_AND_CENTS.sub(lambda m: f"1.{m.group(2)} {m.group(1)}s", text)
    return _MONEY_AND_CENTS.sub(lambda m: f"{m.group(1)}.{m.group(3)} {m.group(2)}s", text)


def clean_spoken(text: str) -> str:
    """Lower-case, NFKC-normalise and de-hyphenate words ("Twenty-Three" -> "twenty three")."""
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)
