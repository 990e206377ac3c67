"""The word-problem runs' prompts: fixed instructions and solved examples, then the question.

``word_problems`` asks the model for a computation in up to three ways; each prompt is fixed
text before the question (``expression_messages(text)`` for run A, one expression;
``program_messages`` for B, named steps; ``check_messages`` for C, asked only when A and B
disagree). Keep the fixed text byte-identical: the adapter keeps the evaluated state of each
prefix, and the model's computations depend on the exact words. Pure: stdlib only.
"""

from __future__ import annotations

from typing import Final

from desktop_agent.core.ports import ChatMessage

EXPRESSION_SYSTEM: Final = (
    "You turn a question into one arithmetic expression that computes its answer. Use the "
    "numbers in the question, and unit conversions such as 60 minutes in an hour, 7 days in "
    "a week or 100 for a percent. Write only the expression, with + - * / and parentheses.")
EXPRESSION_EXAMPLES: Final = (
    ("sam has 4 boxes of 6 pencils and gives away 5 pencils. how many pencils does he have "
     "left?", "4 * 6 - 5"),
    ("a bike costs 120 dollars and is 10 percent off. what does it cost now?",
     "120 - 120 * 10 / 100"),
    ("how many hours are in 2.5 days?", "2.5 * 24"),
)
PROGRAM_SYSTEM: Final = (
    "You solve word problems with a few lines of Python arithmetic. Name each quantity from "
    "the question, then compute answer. Use only + - * / and parentheses, and unit "
    "conversions such as 60 minutes in an hour or 7 days in a week.")
PROGRAM_EXAMPLES: Final = (
    ("sam has 4 boxes of 6 pencils and gives away 5 pencils. how many pencils does he have "
     "left?",
     "boxes = 4\npencils_per_box = 6\ngiven = 5\nanswer = boxes * pencils_per_box - given"),
    ("a bike costs 120 dollars and is 10 percent off. what does it cost now?",
     "price = 120\ndiscount = price * 10 / 100\nanswer = price - discount"),
    ("18 children sit at tables of 3. how many tables do they need?",
     "children = 18\nper_table = 3\nanswer = children / per_table"),
    ("how many hours are in 2.5 days?", "days = 2.5\nanswer = days * 24"),
)
CHECK_SYSTEM: Final = (
    "Write the calculation that answers the question, as one arithmetic expression. Think "
    "about what each number means and which unit the answer is in. Write only the "
    "expression.")
CHECK_EXAMPLES: Final = (
    ("a car travels 150 kilometers in 3 hours. how fast does it go in kilometers per hour?",
     "150 / 3"),
    ("a worker earns 15 dollars an hour for 8 hours a day. how much does she earn in 5 days?",
     "15 * 8 * 5"),
    ("how many seconds are in 2 minutes?", "2 * 60"),
    ("a box of 12 eggs costs 3 dollars. how much do 36 eggs cost?", "36 / 12 * 3"),
)
"""The prompts are fixed text before the question (the adapter keeps their evaluated state)."""


def expression_messages(text: str) -> list[ChatMessage]:
    """Run A's prompt: the fixed instructions and examples, then the question ``text``."""
    return _shots(EXPRESSION_SYSTEM, EXPRESSION_EXAMPLES, text)


def program_messages(text: str) -> list[ChatMessage]:
    """Run B's prompt: the fixed instructions and examples, then the question ``text``."""
    return _shots(PROGRAM_SYSTEM, PROGRAM_EXAMPLES, text)


def check_messages(text: str) -> list[ChatMessage]:
    """Run C's prompt (asked only when A and B disagree): other instructions and examples."""
    return _shots(CHECK_SYSTEM, CHECK_EXAMPLES, text)


def _shots(system: str, examples: tuple[tuple[str, str], ...], text: str) -> list[ChatMessage]:
    messages = [ChatMessage("system", system)]
    for question, answer in examples:
        messages += [ChatMessage("user", question), ChatMessage("assistant", answer)]
    return [*messages, ChatMessage("user", text)]
