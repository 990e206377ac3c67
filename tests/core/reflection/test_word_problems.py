"""Word problems: which questions are computed, and when a verdict may speak (a fake writer)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import pytest

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.errors import LlmError
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.reflection.grammars import EXPRESSION, PROGRAM
from desktop_agent.core.reflection.reflector import applies, reflect
from desktop_agent.core.reflection.verdict import Verdict
from desktop_agent.core.reflection.word_problem_prompts import (
    CHECK_SYSTEM,
    EXPRESSION_SYSTEM,
    PROGRAM_SYSTEM,
    expression_messages,
)
from desktop_agent.core.reflection.word_problems import (
    WordProblem,
    expression_value,
    find_word_problem,
    judge_word_problem,
    program_value,
)

MINUTES = "How many minutes are in three and a half days of work if each day is 8 hours?"


class Writer:
    """Answers each run (A, B, C, told apart by their instructions) with a fixed text."""

    def __init__(self, expression: str | None = "", program: str | None = "",
                 check: str | None = "", fails: bool = False) -> None:
        self.texts = {EXPRESSION_SYSTEM: expression, PROGRAM_SYSTEM: program,
                      CHECK_SYSTEM: check}
        self.fails = fails
        self.asked: list[str] = []

    def write(self, messages: Sequence[ChatMessage], grammar: str,
              cancel: CancelToken | None = None, max_tokens: int = 64) -> str | None:
        system = messages[0].content
        self.asked.append({EXPRESSION_SYSTEM: "A", PROGRAM_SYSTEM: "B", CHECK_SYSTEM: "C"}[system])
        assert grammar == (PROGRAM if system == PROGRAM_SYSTEM else EXPRESSION)
        assert messages[-1].role == "user"
        if self.fails:
            raise LlmError("llm_failed", "boom")
        return self.texts[system]


def _problem(question: str = MINUTES) -> WordProblem:
    problem = find_word_problem(question)
    assert problem is not None
    return problem


@pytest.mark.parametrize(("question", "numbers", "unit"), [
    (MINUTES, [Fraction(7, 2), 8], "minutes"),
    ("Tom has 12 apples and gives 5 to his sister. How many apples does he have left?",
     [12, 5], "apples"),
    ("I buy 3 notebooks at 4 dollars each. How much do I spend?", [3, 4], ""),
    ("A shirt costs 40 dollars and is twenty-five percent off. What is the sale price?",
     [40, 25], ""),
    ("Half an hour is how many seconds?", [Fraction(1, 2)], "seconds"),
    ("How many eggs are in three dozen?", [36], "eggs"),
    ("What is a dozen eggs and a couple of eggs?", [12, 2], ""),
    ("How far does a train go in 2 hours at 80 kilometers per hour?", [2, 80], ""),
    ("I'm driving 210 miles at 60 miles an hour. How long will it take?", [210, 60], ""),
    ("A shirt is 40 dollars, 25 percent off. If I buy three, what do I pay altogether?",
     [40, 25, 3], ""),
    ("Our bill was 60 dollars. What's a 15 percent tip?", [60, 15], ""),
    ("I ran 5 kilometers in 27.5 minutes. What was my pace in minutes per kilometer?",
     [5, Fraction(55, 2)], ""),
    ("Three friends split a 42 dollar fare and a 6 dollar tip. What does each one pay?",
     [3, 42, 6], ""),
    ("A car covers 150 km in 3 hours. How fast is it going?", [150, 3], ""),
    ("I had 200 dollars and spent 45. What's my balance now?", [200, 45], ""),
])
def test_a_question_that_asks_for_a_number_and_states_some_is_a_word_problem(
        question: str, numbers: list[Fraction | int], unit: str) -> None:
    problem = _problem(question)
    assert list(problem.numbers) == numbers and problem.unit == unit
    assert problem.text == problem.text.lower() and "three" not in problem.text


@pytest.mark.parametrize("question", [
    "How many legs does a spider have?",  # no number stated: a fact
    "Tom has 3 apples. Is that a lot?",  # no number asked for
    "What time is it in 3 hours?",
    "How long does it take to boil 2 eggs?",  # "2 hours and 30 minutes" is not one number
    "How long did World War 2 last?",  # "how long" with one number: a fact
    "I ran 5 kilometers in 27 minutes. What was my pace?",  # minutes:seconds, not a number
    "What do I pay in taxes on 50,000 dollars of income?",  # one number: a fact
    "How fast can a cheetah run in 2024?",
    "What's the interest rate on a 30 year mortgage?",
    "What should I do with 3 apples?",
    "Write a poem about 3 cats.",
])
def test_other_questions_are_not_word_problems(question: str) -> None:
    assert find_word_problem(question) is None


@pytest.mark.parametrize("question", [
    "My grandmother turned eighty-two on her birthday in 2020. What year was she born?",
    "A shirt costs forty dollars, it's twenty percent off, then eight percent tax. What do I "
    "end up paying?",
])
def test_a_year_or_what_i_end_up_paying_from_two_numbers_is_a_word_problem(question: str) -> None:
    assert find_word_problem(question) is not None


def test_an_expression_is_worked_out_exactly_with_its_steps() -> None:
    worked = expression_value("8 - 3 * 2")
    assert worked is not None and worked.value == 2
    assert worked.steps == {8, 3, 2, 6}  # "they eat 6 slices" is a step, not an answer
    assert worked.spoken == "8 minus 3 times 2"
    longer = expression_value("(10 + 20 + 30) / 3")
    assert longer is not None and longer.value == 20 and longer.spoken == ""
    assert expression_value("2 / 0") is None
    assert expression_value("2 ** 0.5") is None  # irrational: nothing exact to compare
    assert expression_value("") is None


def test_a_program_is_worked_out_line_by_line() -> None:
    worked = program_value("price = 40\ndiscount = price * 25 / 100\nanswer = price - discount")
    assert worked is not None and worked.value == 30
    assert {40, 25, 100, 10} <= worked.steps
    assert program_value("a = 2\nanswer = a * b") is None  # b is never defined
    assert program_value("a = 2\nb = a * 3") is None  # no answer
    assert program_value("hours_per_day = 8\nanswer = hours_per_day * 2") is not None


def test_a_right_answer_is_good_after_one_run() -> None:
    writer = Writer("3.5 * 8 * 60", "")
    got = judge_word_problem(_problem(), "That is 1680 minutes.", writer)
    assert got.verdict is Verdict.GOOD and got.checker == "word_problem"
    assert writer.asked == ["A"]


def test_two_computations_that_agree_repair_a_wrong_answer() -> None:
    writer = Writer("3.5 * 8 * 60", "days = 3.5\nhours = days * 8\nanswer = hours * 60")
    got = judge_word_problem(_problem(), "That's 210 minutes in total.", writer)
    assert writer.asked == ["A", "B"]  # they agree: no third run
    assert got.verdict is Verdict.REPAIR
    assert got.correction == "3.5 times 8 times 60 is 1680 minutes"
    assert got.flagged_word == 1 and got.guidance.startswith("210 is wrong")
    long = Writer("(3.5 * 8) * 60", "answer = 3.5 * 8 * 60")
    said = judge_word_problem(_problem(), "It's 210 minutes.", long).correction
    assert said == "the answer is 1680 minutes"  # parentheses are not read aloud


def test_a_third_computation_breaks_a_tie() -> None:
    problem = _problem()
    writer = Writer("3.5 * 60", "days = 3.5\nanswer = days * 8 * 60", "3.5 * 8 * 60")
    got = judge_word_problem(problem, "It's 1000 minutes.", writer)
    assert got.verdict is Verdict.REPAIR
    assert got.correction == "3.5 times 8 times 60 is 1680 minutes"
    assert writer.asked == ["A", "B", "C"]
    # C agrees with A: A's expression is said.
    with_a = Writer("3.5 * 8 * 60", "answer = 1", "3.5 * 8 * 60")
    assert judge_word_problem(problem, "It's 1000.", with_a).correction.startswith("3.5 times 8")


def test_a_doubt_never_corrects_an_answer() -> None:
    problem = _problem()
    # No two computations agree: the stated answer stands.
    split = Writer("3.5 * 60", "days = 3.5\nanswer = days * 8 * 60", "8 * 60")
    assert judge_word_problem(problem, "It's 1000 minutes.", split).verdict is Verdict.GOOD
    # One of them matches the answer: good, although the others differ.
    assert judge_word_problem(problem, "It's 1680 minutes.", split).verdict is Verdict.GOOD
    assert judge_word_problem(problem, "It's 480 minutes.", split).verdict is Verdict.GOOD
    # Two agree on a run-on: dropped.
    run_on = Writer("3.5 * 8 * 8 * 8", "answer = 1", "3.5 * 8 * 8 * 8")
    assert judge_word_problem(problem, "It's 1000 minutes.", run_on).verdict is Verdict.GOOD
    # A run fails, gives nothing, or the model breaks: silent.
    for writer in (Writer("3.5 * 8 * 60", None), Writer("", ""), Writer(fails=True)):
        assert judge_word_problem(problem, "It's 1000 minutes.", writer).verdict is Verdict.GOOD
    # A computation that uses none of the question's numbers is a guess.
    guess = Writer("1000 + 1", "answer = 1001")
    assert judge_word_problem(problem, "It's 77 minutes.", guess).verdict is Verdict.GOOD
    # A count below zero is no answer to "how many".
    negative = Writer("8 - 3.5 * 60", "answer = 8 - 3.5 * 60")
    assert judge_word_problem(problem, "It's 77 minutes.", negative).verdict is Verdict.GOOD


def test_an_unfinished_answer_is_completed_only_when_two_agree() -> None:
    problem = _problem("A pizza has 8 slices and 3 friends eat 2 slices each. "
                       "How many slices are left?")
    both = Writer("8 - 3 * 2", "eaten = 3 * 2\nanswer = 8 - eaten")
    for opening in ("Let me work that out.", "Three friends eat 6 slices.", "There were 8."):
        # No number yet, a step of the computation, or one of the question's own numbers.
        got = judge_word_problem(problem, opening, both)
        assert got.verdict is Verdict.REFINE and got.correction == "8 minus 3 times 2 is 2 slices"
        assert got.flagged_word is None
    # Said as the answer, the value may be one of the question's own numbers.
    done = judge_word_problem(problem, "They eat 6, so 8 minus 6 leaves 2 slices.", both)
    assert done.verdict is Verdict.GOOD
    # Without agreement, nothing is added: no guess. The speaker goes on when it has said
    # no number yet; not after one (a wrong one, "It's 5.", or a finished answer that is one
    # of the question's numbers), and not when no computation could be written (no model).
    split = Writer("8 - 3 * 2", "answer = 8 * 3", "8 / 2")
    assert judge_word_problem(problem, "Let me see.", split).verdict is Verdict.WORKING
    for opening in ("There were 8 slices.", "It's 5.", "2 slices are left."):
        assert judge_word_problem(problem, opening, split).verdict is Verdict.GOOD
    for opening in ("Let me see.", "There were 8 slices.", "It's 5."):
        assert judge_word_problem(problem, opening, None).verdict is Verdict.GOOD


def test_equal_answers_in_other_forms() -> None:
    sale = _problem("A coat costs 80 dollars with 20 percent off. How much is the discount?")
    writer = Writer("80 * 20 / 100", "answer = 80 * 0.2")
    assert judge_word_problem(sale, "The discount is $16.", writer).verdict is Verdict.GOOD
    share = _problem("How much does each of 3 people pay for a 10 dollar meal?")
    third = Writer("10 / 3", "answer = 10 / 3")
    assert judge_word_problem(share, "About 3.33 dollars each.", third).verdict is Verdict.GOOD
    assert judge_word_problem(share, "About 4 dollars each.", third).verdict is Verdict.REPAIR
    rate = _problem("What percentage of 80 is 20?")
    ratio = Writer("20 / 80", "answer = 20 / 80")
    assert judge_word_problem(rate, "It is 25 percent.", ratio).verdict is Verdict.GOOD


def test_a_cancelled_reflection_says_nothing() -> None:
    token = CancelToken(TurnId(1))
    token.cancel("barge-in")
    writer = Writer("3.5 * 8 * 60", "answer = 3.5 * 8 * 60")

    class Cancelled(Writer):
        def write(self, messages: Sequence[ChatMessage], grammar: str,
                  cancel: CancelToken | None = None, max_tokens: int = 64) -> str | None:
            return None

    assert judge_word_problem(_problem(), "It's 5.", Cancelled(), token).verdict \
        is Verdict.GOOD
    assert writer.asked == []


def test_the_prompts_start_with_fixed_text() -> None:
    one = expression_messages(_problem().text)
    two = expression_messages(_problem("How many cats are in 2 rooms?").text)
    assert one[:-1] == two[:-1] and one[-1] != two[-1]  # the adapter keeps the prefix's state
    assert one[-1].content == _problem().text


def test_the_reflector_computes_word_problems_under_checkable() -> None:
    assert applies("checkable", MINUTES) and not applies("off", MINUTES)
    assert not applies("checkable", "How many legs does a spider have?")
    writer = Writer("3.5 * 8 * 60", "answer = 3.5 * 8 * 60")
    assert reflect(MINUTES, "It's 210 minutes.", None, None, writer).verdict is Verdict.REPAIR
    # A literal check comes first: the writer is not asked.
    units = Writer()
    got = reflect("How many minutes are in three and a half hours?", "It's 180.", None, None,
                  units)
    assert got.checker == "units" and got.correction == "3.5 hours is 210 minutes"
    assert units.asked == []


def test_the_wrong_answer_is_flagged_where_it_was_said() -> None:
    problem = _problem("A recipe needs 250 grams of flour per cake. How many grams for 6 cakes?")
    writer = Writer("250 * 6", "answer = 250 * 6")
    got = judge_word_problem(problem, "You need 150 grams of flour for 6 cakes.", writer)
    assert got.verdict is Verdict.REPAIR and got.flagged_word == 2  # "150", not the 6 after it


def test_a_count_of_whole_things_is_made_whole_as_the_question_says() -> None:
    trays = _problem("I need 40 cupcakes and each tray bakes 12. How many trays do I need?")
    assert trays.whole == "up"
    up = Writer("40 / 12", "answer = 40 / 12")
    assert judge_word_problem(trays, "You need 4 trays.", up).verdict is Verdict.GOOD
    wrong = judge_word_problem(trays, "You need 3 trays.", up)
    assert wrong.verdict is Verdict.REPAIR and wrong.correction == "the answer is 4 trays"
    boxes = _problem("I have 40 eggs. How many full boxes of 12 can I fill?")
    assert boxes.whole == "down"
    assert judge_word_problem(boxes, "You can fill 3 boxes.", up).verdict is Verdict.GOOD
    # No rounding asked: a count that is not whole is no answer, so nothing is corrected.
    kids = _problem("There are 40 kids in 12 groups. How many kids are in a group?")
    assert kids.whole == "exact"
    assert judge_word_problem(kids, "There are 4 kids.", up).verdict is Verdict.GOOD
    # Measures come in parts: hours, cups, dollars.
    for question in ("I drive 210 miles at 60 miles an hour. How many hours do I need?",
                     "Each of 4 batches needs 0.75 cups. How many cups do I need?",
                     "We split 100 dollars 8 ways. How many dollars does each one get?"):
        assert _problem(question).whole == ""


def test_the_reviews_questions_of_fact_are_no_word_problems() -> None:
    for question in ("How long should I cook a 12 pound turkey at 325 degrees?",
                     "How long did World War 1 last, from 1914 to 1918?",
                     "How long does it take to cook 1 cup of rice in 2 cups of water?",
                     "What's a normal resting heart rate for a 60 year old?",
                     "What is the 1st amendment of the Bill of Rights?",
                     "What should we make for dinner for 6 people?",
                     "What do I pay in taxes on 50,000 dollars of income?"):
        assert find_word_problem(question) is None, question


def test_rounding_is_read_only_where_the_question_asks_for_it() -> None:
    # "need" of the counted things rounds up; a need of something else does not.
    assert _problem("How many buses do we need for 50 students if each bus holds 12?"
                    ).whole == "up"
    assert _problem("I need 3 eggs per cake. How many cakes can I make with 10 eggs?"
                    ).whole == "exact"
    assert _problem("I need to share 50 cookies among 8 kids. How many cookies does each "
                    "kid get?").whole == "exact"
    assert _problem("How many trays do I need to hold the complete batch of 40 cupcakes at "
                    "12 per tray?").whole == "up"
    cakes = _problem("I need 3 eggs per cake. How many cakes can I make with 10 eggs?")
    thirds = Writer("10 / 3", "answer = 10 / 3")
    assert judge_word_problem(cakes, "3 cakes, with 1 egg left over.", thirds).verdict \
        is Verdict.GOOD


def test_the_words_asking_for_rounding_are_not_given_to_the_model() -> None:
    # The model wrote "40 / 12 + 1" for "Round up."; the count is made whole after it.
    for question in ("I need 40 cupcakes and each tray bakes 12. How many trays do I need "
                     "to bake? Round up.",
                     "40 cupcakes, 12 a tray: how many trays do I need, rounded up to the "
                     "nearest whole tray?",
                     "40 cupcakes, 12 a tray (round up): how many trays do I fill?"):
        problem = _problem(question)
        assert problem.whole == "up" and "round" not in problem.text, problem.text
        assert problem.text.endswith("?") and "  " not in problem.text
    # Rounding of a measure is the question's own: it stays in the words.
    hours = _problem("I drive 210 miles at 60 miles an hour. How many hours, rounded up?")
    assert hours.whole == "" and "rounded up" in hours.text


def test_the_number_of_a_lists_first_item_is_no_answer() -> None:
    # "we need to follow these steps: 1." was confessed as a wrong answer ("1").
    meals = _problem("A bag of rice weighs 5 kilograms and I use 250 grams per meal. How many "
                     "meals will it last?")
    writer = Writer("5000 / 250", "answer = 5000 / 250")
    for opening in ("To work it out, we need to follow these steps: 1.",
                    "Here is how:\n1)"):
        got = judge_word_problem(meals, opening, writer)
        assert got.verdict is Verdict.REFINE and got.correction == "5000 divided by 250 is 20 meals"
    assert judge_word_problem(meals, "It lasts 1.", writer).verdict is Verdict.REPAIR
    assert judge_word_problem(meals, "The number of meals is: 25.", writer).verdict \
        is Verdict.REPAIR


def test_a_duration_in_hours_and_minutes_is_one_answer() -> None:
    drive = _problem("I'm driving 210 miles at 60 miles an hour. How long will it take?")
    writer = Writer("210 / 60", "answer = 210 / 60")
    for answer in ("It'll take 3 hours and 30 minutes.", "It takes 3.5 hours.",
                   "About three and a half hours."):
        assert judge_word_problem(drive, answer, writer).verdict is Verdict.GOOD, answer
    assert judge_word_problem(drive, "It'll take 4 hours and 30 minutes.", writer).verdict \
        is Verdict.REPAIR


def test_a_duration_in_one_unit_is_no_other_number() -> None:
    # '2 hours' said as a step is not 120 of anything; '3 hours and 30 minutes' is one answer
    # only in the unit the question counts.
    slices = _problem("We eat 30 slices an hour from 240 slices. How many slices are left "
                      "after 4 hours?")
    writer = Writer("240 - 30 * 4", "answer = 240 - 30 * 4")
    got = judge_word_problem(slices, "After 2 hours, half are gone.", writer)
    assert got.verdict is Verdict.REPAIR
    eggs = _problem("I have 210 eggs and eat 60 a day. How many eggs are left after 2 days?")
    ninety = Writer("210 - 60 * 2", "answer = 210 - 120")
    assert judge_word_problem(eggs, "It takes 1 hour and 30 minutes to eat them.", ninety
                              ).verdict is not Verdict.GOOD
