"""The spoken calculator: exact arithmetic, spoken forms, and hostile input."""

from __future__ import annotations

from fractions import Fraction

import pytest

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.calc import evaluate, format_number, say_expression
from desktop_agent.core.tools.calc_words import replace_number_words


@pytest.mark.parametrize(("text", "expected"), [
    ("17 times 23", 391),
    ("what is 17 times 23?", 391),
    ("What's 17 x 23", 391),
    ("17x23", 391),
    ("how much is 10 divided by 4", Fraction(5, 2)),
    ("calculate 2 plus 2", 4),
    ("7 minus 12", -5),
    ("0.1 + 0.2", Fraction(3, 10)),
    ("2 to the power of 10", 1024),
    ("2^10", 1024),
    ("5 squared", 25),
    ("3 cubed", 27),
    ("square root of 16", 4),
    ("the square root of 2.25", Fraction(3, 2)),
    ("sqrt(81) + 1", 10),
    ("√49", 7),
    ("15 percent of 80", 12),
    ("15% of 80", 12),
    ("50 percent", Fraction(1, 2)),
    ("twenty three", 23),
    ("twenty-three times two", 46),
    ("a hundred and five", 105),
    ("one point five", Fraction(3, 2)),
    ("one point five times four", 6),
    ("two thousand and five minus five", 2000),
    ("one million two hundred thousand", 1_200_000),
    ("2 million divided by 4", 500_000),
    ("seven hundred twenty-one plus 9", 730),
    ("(2 + 3) * 4", 20),
    ("2 + 3 * 4", 14),
    ("17 mod 5", 2),
    ("17 % 5", 2),
    ("7 // 2", 3),
    ("-5 + 3", -2),
    ("negative 4 times 2", -8),
    ("abs(-5)", 5),
    ("absolute value of -7", 7),
    ("round(2.567, 2)", Fraction(257, 100)),
    ("round 2.5", 2),
    ("floor(3.7)", 3),
    ("ceil(3.2)", 4),
    ("8 ** (1/3)", 2),
    ("4 ** 1.5", 8),
    ("2 ** -2", Fraction(1, 4)),
    ("1,234 + 1", 1235),
    ("half of 80", 40),
    ("twice 7", 14),
    ("12 × 3 ÷ 4", 9),
    ("10 − 4", 6),
    ("  WHAT IS  6 TIMES 7 ?  ", 42),
    ("6 times 7 equals", 42),
])
def test_exact_results(text: str, expected: int | Fraction) -> None:
    result = evaluate(text)
    assert isinstance(result, Fraction)
    assert result == expected


def test_results_are_exact_fractions_not_floats() -> None:
    assert evaluate("1/3") == Fraction(1, 3)
    assert evaluate("1/3 * 3") == 1
    assert evaluate("0.1 * 3") == Fraction(3, 10)


@pytest.mark.parametrize(("text", "approx"), [
    ("sqrt(2)", 1.4142135623730951),
    ("square root of 2 times square root of 2", 2.0),
    ("2 ** 0.5", 1.4142135623730951),
])
def test_irrational_results_fall_back_to_float(text: str, approx: float) -> None:
    result = evaluate(text)
    assert isinstance(result, float)
    assert result == pytest.approx(approx)


@pytest.mark.parametrize(("text", "fragment"), [
    ("1/0", "divide by zero"),
    ("5 divided by zero", "divide by zero"),
    ("5 % 0", "divide by zero"),
    ("5 // 0", "divide by zero"),
    ("0 ** -1", "divide by zero"),
    ("2**99999999", "exponent"),
    ("2 ** 1001", "exponent"),
    ("10 ** 1000 ** 2", "exponent"),
    ("(10 ** 1000) ** 1000", "too big"),
    ("9 ** 999 * 9 ** 999 * 9 ** 999 * 9 ** 999 * 9 ** 999 * 9 ** 999 * 9 ** 999", "too big"),
    ("2 ** 0.5 ** -1000", "exponent"),
    ("sqrt(-4)", "negative"),
    ("(-8) ** 0.5", "negative"),
    ("__import__('os')", "import"),
    ("open('/etc/passwd')", "open"),
    ("x + 1", "'x'"),
    ("2 +", "couldn't read"),
    ("()", "arithmetic"),
    ("[1, 2]", "arithmetic"),
    ("'a' * 3", "'a'"),
    ("1 if 1 else 2", "'if else'"),
    ("lambda: 1", "'lambda'"),
    ("2 < 3", "arithmetic"),
    ("round(1, 2, 3)", "round"),
    ("round(1.5, 0.5)", "whole number"),
    ("sqrt()", "sqrt"),
    ("abs(x=1)", "'x'"),
    ("1e400", "'e'"),
    ("what's the weather", "weather"),
    ("twenty twenty", "couldn't read"),
])
def test_invalid_input_is_calc_invalid(text: str, fragment: str) -> None:
    with pytest.raises(AgentError) as info:
        evaluate(text)
    assert info.value.code == "calc_invalid"
    assert fragment in info.value.message


@pytest.mark.parametrize("text", [
    "", "   ", "?", "what is", "🙂", "２＋２＝？", "\x00", "1" * 10_000,
    "(" * 5000 + "1" + ")" * 5000, "(" * 200 + "1" + ")" * 200, "-" * 250 + "1",
    "1+" * 140 + "1", "a" * 10_000, "1" * 290, "é + 1", "9" * 299, "(" * 45 + "1" + ")" * 45,
])
def test_hostile_input_only_ever_raises_agent_error(text: str) -> None:
    try:
        result = evaluate(text)
    except AgentError as error:
        assert error.code == "calc_invalid"
        assert error.message
    else:
        assert isinstance(result, Fraction | float)


def test_non_string_input_is_calc_invalid() -> None:
    with pytest.raises(AgentError) as info:
        evaluate(None)  # type: ignore[arg-type]
    assert info.value.code == "calc_invalid"


def test_fullwidth_digits_are_normalised() -> None:
    assert evaluate("２＋２") == 4


def test_division_by_zero_message_is_exact() -> None:
    with pytest.raises(AgentError) as info:
        evaluate("1 / (2 - 2)")
    assert info.value.message == "I can't divide by zero."


def test_too_long_expression_is_refused_by_length() -> None:
    with pytest.raises(AgentError) as info:
        evaluate("1 + " * 200 + "1")
    assert "too long" in info.value.message


@pytest.mark.parametrize(("text", "expected"), [
    ("twenty three", "23"),
    ("a hundred and five", "105"),
    ("one point five", "1.5"),
    ("point two five", "0.25"),
    ("two thousand and five", "2005"),
    ("nine hundred ninety nine thousand nine hundred ninety nine", "999999"),
    ("three billion and one", "3000000001"),
    ("5 hundred", "500"),
    ("1.5 million", "1500000"),
    ("twenty twenty", "20 20"),
    ("one two three", "1 2 3"),
    ("add five and three", "add 5 and 3"),
    ("a cat and a dog", "a cat and a dog"),
    ("five, hundred", "5, 100"),
    ("zero", "0"),
    ("seventeen times twenty three", "17 times 23"),
])
def test_number_words(text: str, expected: str) -> None:
    assert replace_number_words(text) == expected


@pytest.mark.parametrize(("value", "text"), [
    (Fraction(391), "391"),
    (391, "391"),
    (Fraction(-5), "-5"),
    (Fraction(0), "0"),
    (Fraction(1, 3), "0.333333"),
    (Fraction(2, 3), "0.666667"),
    (Fraction(-2, 3), "-0.666667"),
    (Fraction(5, 2), "2.5"),
    (Fraction(3, 10), "0.3"),
    (Fraction(1, 1_000_000), "0.000001"),
    (Fraction(1, 10**9), "1e-09"),
    (Fraction(10**20), "1e+20"),
    (Fraction(123456789, 1) * 10**12, "1.234568e+20"),
    (Fraction(10**15 - 1), "999999999999999"),
    (Fraction(2) ** 1000, "1.071509e+301"),
    (Fraction(10) ** 5000, "1e+5000"),
    (1.4142135623730951, "1.414214"),
    (2.0, "2"),
    (0.1 + 0.2, "0.3"),
    (1e300, "1e+300"),
    (-1.5, "-1.5"),
    (float("inf"), "infinity"),
    (float("nan"), "not a number"),
    (Fraction(-1, 10**7), "-1e-07"),
    (Fraction(1, 3_000_000), "3.333333e-07"),
])
def test_format_number(value: Fraction | float | int, text: str) -> None:
    assert format_number(value) == text


def test_evaluate_then_format_round_trip() -> None:
    assert format_number(evaluate("what is 17 times 23?")) == "391"
    assert format_number(evaluate("10 divided by 3")) == "3.333333"
    assert format_number(evaluate("2 ** 100")) == "1.267651e+30"


@pytest.mark.parametrize(("expression", "spoken"), [
    ("nineteen times forty-two", "nineteen times forty-two"),  # never "forty minus two"
    ("what is twenty-one minus 3", "twenty-one minus 3"),
    ("seventy-five percent of 80", "seventy-five percent of 80"),
    ("Ninety-Nine plus one", "Ninety-Nine plus one"),
    ("17 * 23", "17 times 23"),
    ("10-3", "10 minus 3"),
    ("12 - 4", "12 minus 4"),
    ("-5 + 3", "minus 5 plus 3"),
    ("forty - two", "forty minus two"),  # spaced apart: the user said minus
    ("what is 15% of 80?", "15 percent of 80"),
    ("sqrt(16)*2", "the square root of 16 times 2"),
    ("2 ** 10 / 4", "2 to the power of 10 divided by 4"),
])
def test_the_read_back_keeps_number_words_and_says_the_symbols(expression: str,
                                                               spoken: str) -> None:
    assert say_expression(expression) == spoken


def test_a_hyphenated_number_is_one_number_in_the_result_too() -> None:
    assert evaluate("nineteen times forty-two") == 798
