"""Arithmetic asked with a verb (core.tools.calc_verbs): evaluated, read back, cut from words."""

from __future__ import annotations

from fractions import Fraction

import pytest

from desktop_agent.core.tools.args import arguments_from_words
from desktop_agent.core.tools.calc import evaluate, say_expression
from desktop_agent.core.tools.calc_verbs import fractions_as_numbers, verbs_as_operators


@pytest.mark.parametrize(("said", "operators", "value"), [
    ("multiply 36 by 7", "36 times 7", 252),
    ("divide 1,250 by 16", "1,250 divided by 16", Fraction(625, 8)),
    ("take 350 away from 1000", "1000 minus 350", 650),
    ("take 15 off 120", "120 minus 15", 105),
    ("subtract 18 from 250", "250 minus 18", 232),
    ("add 125 and 349", "125 plus 349", 474),
    ("add 5 to 10", "10 plus 5", 15),
    ("add up 19.99, 4.50 and 12.75", "19.99 plus 4.50 plus 12.75", Fraction(3724, 100)),
    ("the total of 19.99 and 4.50", "19.99 plus 4.50", Fraction(2449, 100)),
    ("20% off a 45 dollar shirt", "45 minus 20 percent of 45", 36),
    ("30 percent off 80 euros", "80 minus 30 percent of 80", 56),
    ("a 15 percent tip on 62 dollars", "15 percent of 62", Fraction(93, 10)),
    ("share 90 between 3 people", "90 divided by 3", 30),
    ("split 250 pounds between 5 of us", "250 divided by 5", 50),
    ("if we split 148 dollars between 4 people how much does each of us pay",
     "148 divided by 4", 37),
    ("we need to split a bill of 126 pounds 40 between four of us, how much is that each?",
     "126.40 divided by four", Fraction(158, 5)),  # its cents, not "126 40"
    ("add two hundred and five and three", "two hundred and five plus three", 208),
])
def test_a_verb_becomes_its_operator(said: str, operators: str, value: Fraction) -> None:
    assert verbs_as_operators(said) == operators
    assert evaluate(said) == value
    assert say_expression(said) == operators  # never "subtract 18 from 250 is 232"


def test_other_text_is_left_as_it_was() -> None:
    for text in ("17 times 23", "nineteen times forty-two", "add the flour to the butter"):
        assert verbs_as_operators(text) == text


def test_fifths_and_tenths_are_read_as_fractions() -> None:
    assert fractions_as_numbers("a fifth of 340").split() == ["(1/5)", "*", "340"]
    assert evaluate("what's a fifth of 340") == 68
    assert evaluate("two fifths of 100") == 40
    assert say_expression("a fifth of 340") == "a fifth of 340"  # the user's words


def test_the_words_rule_gives_the_expression_in_operator_words() -> None:
    assert arguments_from_words("calculate", "divide 1,250 by 16 for me") == {
        "expression": "1,250 divided by 16"}
    assert arguments_from_words("calculate", "multiply 36 by 7") == {"expression": "36 times 7"}
    assert arguments_from_words("calculate", "add the flour to the butter") is None


def test_a_bill_split_between_people_is_a_request_for_the_calculator() -> None:
    from desktop_agent.core.tools.catalog import BUILTIN
    from desktop_agent.core.tools.router import candidate_tools

    asked = "So if we split 148 dollars between 4 people how much does each of us pay"
    assert [s.name for s in candidate_tools(asked, BUILTIN.specs)] == ["calculate"]
    assert candidate_tools("we split the bill between 4 of us last night", BUILTIN.specs) == ()


@pytest.mark.parametrize(("said", "expression", "value"), [
    ("if I have 3 boxes of 24, how many is that", "3 times 24", 72),
    ("we have 40 and spend 12, how much is left", "40 minus 12", 28),
    ("Erm, if I've got 23 quid and I spend, um, 7.49, how much have I got left?",
     "23 minus 7.49", Fraction(1551, 100)),
])
def test_word_problems_of_a_spend_or_of_boxes_are_read(said: str, expression: str,
                                                       value: object) -> None:
    assert arguments_from_words("calculate", said) == {"expression": expression}
    assert evaluate(said) == value


def test_spending_without_asking_what_is_left_is_no_word_problem() -> None:
    from desktop_agent.core.tools.calc_verbs import word_problem

    assert not word_problem("I spent 40 quid on shoes yesterday")
    assert word_problem("I had 40 and spent 12, how much have I got left")
