"""Word problems: the model writes the arithmetic from the question alone, the calculator works it.

A question that asks for a number ("how many", "how much", "what is the total/price/area",
"what percent", "what is 3 dozen") and states at least one number, but that no literal
check understands, is a word problem. The small model is poor at mental arithmetic but can
often set up the computation. So, from the QUESTION alone (never the answer), it writes
the computation greedily, under a grammar (``grammars``), in up to three ways:

- **A**, one expression in the calculator's syntax ("3.5 * 60");
- **B**, a few named steps, one a line, then the answer ("hours = 3.5", then
  "answer = hours * 60");
- **C**, only when A and B disagree: one expression again, from other instructions and
  examples.

``core.tools.calc`` works each out exactly. A computation that uses none of the question's
numbers, that writes one number more than twice ("7 * 7 * 7 * ..."), or that counts below
zero for "how many" is dropped. The answer said so far is the last number in it that is
not one of the question's own numbers (or the last number at all, when it is the value).
Then:

- it equals a computation's value: good (B is written only when A does not match, C only
  when neither does and they disagree);
- two computations agree on another value: repair, with that value ("3.5 times 60 is 210
  minutes"); when nothing was answered yet (no number, or only a step of the computation,
  "they eat 6 slices"): refine with it;
- no two agree: the reply stands as said ('good'): the reflector says nothing rather
  than "correct" an answer on a guess, or complete it with a guess.

Two differently written computations that agree are what keep false confessions away. On
45 word problems written for this check (the 17 of the bench's set and 28 others), A and B
agreed on 28, always on the right value; C broke 10 of the other ties, once on a wrong
value (a run-on "7 * 7 * 7 ..." that the repeat rule drops); 7 stayed unsure.
"""

from __future__ import annotations

import ast
import dataclasses
import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.reflection.clock_spans import durations_in
from desktop_agent.core.reflection.grammars import EXPRESSION, PROGRAM
from desktop_agent.core.reflection.stated_numbers import (
    number_word,
    numbers_in,
    without_first_item,
)
from desktop_agent.core.reflection.verdict import GrammarWriter, Judgement, Verdict
from desktop_agent.core.reflection.word_problem_prompts import (
    check_messages,
    expression_messages,
    program_messages,
)
from desktop_agent.core.tools.calc import evaluate, format_number
from desktop_agent.core.tools.calc_words import clean_spoken, replace_quantity_words
from desktop_agent.core.tools.units import parse_unit

_LOGGER = logging.getLogger(__name__)
CHECKER: Final = "word_problem"

_ASKS_NUMBER: Final = re.compile(
    r"\bhow (?:many|much|far|old)\b"
    r"|\bwhat(?:'s| is| are| was| will be| would be| does| do)\b[^.?!]*?\b(?:total|sum|"
    r"difference|product|cost|costs|price|area|perimeter|volume|average|mean|speed|distance|"
    r"amount|percentage|remainder|change|tip|fare|profit|altogether)\b"
    r"|\bwhat (?:percent|percentage|fraction)\b"
    r"|^(?:so |ok |okay |and )?what(?:'s| is) (?:\d|a quarter of|half of|a third of)")
"""The question asks for a number (on the lower-case text, quantities as digits)."""
_ASKS_NUMBER_OF_TWO: Final = re.compile(
    r"\bwhat(?:'s| is| are| was| will be| would be| does| do| did| should)\b[^.?!]*?\b(?:"
    r"pay|paying|pays|owe|earn|spend|spent|save|share|balance|interest|savings|salary|wage|"
    r"bill|score|ratio|weight|length|width|height|budget|mileage|"
    r"(?:pace|rate) in [a-z]+ (?:per|an?|each))\b"
    r"|\bhow fast\b|\b(?:what|which) year\b")
"""With two numbers stated or more, these ask for a number too ("three friends split a 42
dollar fare and a 6 dollar tip: what does each pay?", "5 km in 27.5 minutes: what was my
pace in minutes per kilometer?"); with one, a fact ("what do I pay in taxes on 50,000
dollars?", "what was my pace?": minutes and seconds, not one number). "What year": "she
turned 82 in 2020, what year was she born?" (with one number, "what year did the war end
after 1939" is a fact)."""
_ASKS_HOW_LONG: Final = re.compile(r"\bhow long\b")
_RATE: Final = re.compile(r"\b(?:per|an? (?:second|minute|hour|day|week|month|year|meal|serving)"
                          r"|each|every)\b|/")
"""'How long' is a word problem only with a rate and two numbers or more: '210 miles at 60
miles an hour' is; 'a 12 pound turkey at 325 degrees' and 'World War 2' are not."""
_NOT_A_UNIT: Final = frozenset({
    "are", "is", "do", "does", "did", "will", "can", "would", "could", "should", "were", "was",
    "have", "has", "had", "of", "more", "fewer", "less", "times", "in", "there", "people's"})
_THOUSANDS: Final = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_MEASURES: Final = frozenset({"dollars", "euros", "pounds", "cents", "pence", "percent",
                              "years", "months", "times", "points", "degrees"})
"""Counted in parts too, though no unit of ``core.tools.units``."""
_ROUND_UP: Final = re.compile(
    r"\bround(?:ed|ing)? (?:it |that |this |the answer )?up\b"
    r"|\bhow many [a-z]+ (?:do|does|will|would|should) (?:i|we|you|they|he|she|it) "
    r"(?:need|have to (?:buy|get|order|rent|book))\b|\bhow many [a-z]+ (?:are|is|will be) needed\b")
"""Round up: asked so, or the counted things are what is needed ('how many buses do we need')."""
_ROUND_DOWN: Final = re.compile(r"\bround(?:ed|ing)? (?:it |that |this |the answer )?down\b"
                                r"|\bhow many (?:full|whole|complete) [a-z]+\b")
_ROUNDING_ASKED: Final = re.compile(
    r"[,;]?\s*\(?\b(?:and )?round(?:ed|ing)? (?:it |that |this |the answer )?(?:up|down)"
    r"(?: to the nearest (?:whole )?[a-z]+)?\b\)?[.!]?")
"""The words that ask for rounding: the computation is written without them (the model
wrote "40 / 12 + 1" for "round up"), and ``WordProblem.whole`` rounds its value."""
_POSITIVE: Final = re.compile(r"\bhow (?:many|much|far|old)\b")
MAX_REPEATS: Final = 2
"""A computation that writes one number more often than this ran on ("7 * 7 * 7 * 7")."""
MAX_STEPS_SPOKEN: Final = 2
"""An expression is said as the correction ("3.5 times 60 is 210") up to this many
operators and without parentheses; a longer one as "the answer is 210"."""
RELATIVE_TOLERANCE: Final = Fraction(1, 100)
"""A stated answer this close to a value that is not whole counts as equal (rounding)."""



@dataclass(frozen=True, slots=True)
class WordProblem:
    """A question whose answer is a number that the question's numbers compute."""

    text: str
    """The question for the model: lower case, spoken quantities as digits ("3.5 hours"),
    without the words that ask for rounding when ``whole`` rounds."""
    numbers: tuple[Fraction, ...]
    """The numbers the question states."""
    unit: str = ""
    """What is counted ("how many minutes" -> "minutes"; '' when the question does not say)."""
    percent: bool = False
    """The question speaks of percent: 25 and 0.25 are the same answer."""
    whole: str = ""
    """What is counted comes in whole ones ("how many trays"): 'up' (the question says
    "round up", or asks how many are needed), 'down' ("round down", "how many full boxes"),
    or 'exact' (a value that is not whole is no answer); '' for a measure (hours, cups,
    dollars)."""


@dataclass(frozen=True, slots=True)
class Worked:
    """A computation the model wrote, worked out exactly."""

    value: Fraction
    steps: frozenset[Fraction]
    """Every operand and intermediate value: said alone, they are not an answer yet."""
    spoken: str = ""
    """The computation as words ("3.5 times 60"); '' when too long to say."""
    repeats: int = 1
    """How many times the most repeated number is written ("7 * 7 * 7" -> 3)."""


def find_word_problem(question: str) -> WordProblem | None:
    """The word problem in ``question``, or None (no number asked for, or none stated)."""
    text = " ".join(replace_quantity_words(_THOUSANDS.sub("", clean_spoken(question))).split())
    numbers = tuple(numbers_in(question))
    if not numbers or not (_ASKS_NUMBER.search(text) or (len(numbers) >= 2 and (
            _ASKS_NUMBER_OF_TWO.search(text)
            or (_ASKS_HOW_LONG.search(text) and _RATE.search(text))))):
        return None
    m = re.search(r"\bhow many ([a-z]+)", text)
    unit = m.group(1) if m and m.group(1) not in _NOT_A_UNIT else ""
    whole = _whole_rule(text, unit)
    if whole in ("up", "down"):
        text = " ".join(_ROUNDING_ASKED.sub("", text).split())
    return WordProblem(text, numbers, unit, "percent" in text or "%" in text, whole)


def _whole_rule(text: str, unit: str) -> str:
    """``WordProblem.whole`` for the question ``text`` that counts ``unit``."""
    if not unit or unit in _MEASURES:
        return ""
    try:
        parse_unit(unit)
        return ""  # minutes, miles, cups: a measure, parts of one are an answer
    except AgentError:
        pass
    if _ROUND_DOWN.search(text):
        return "down"
    if _ROUND_UP.search(text):
        return "up"
    return "exact"


def _exact(expression: str) -> Fraction | None:
    try:
        value = evaluate(expression)
    except AgentError:
        return None
    return value if isinstance(value, Fraction) else None


def expression_value(text: str) -> Worked | None:
    """Run A's expression worked out, with its steps (None: not an exact calculation)."""
    text = text.strip()
    value = _exact(text)
    if value is None:
        return None
    steps = set(numbers_in(text))
    for node in ast.walk(ast.parse(text, mode="eval")):
        if isinstance(node, ast.BinOp):
            step = _exact(ast.unparse(node))
            if step is not None:
                steps.add(step)
    operators = len(re.findall(r" [-+*/] ", text))
    spoken = ""
    if "(" not in text and operators <= MAX_STEPS_SPOKEN:
        spoken = (text.replace(" * ", " times ").replace(" / ", " divided by ")
                  .replace(" + ", " plus ").replace(" - ", " minus "))
    return Worked(value, frozenset(steps), spoken, _repeats(text))


def program_value(text: str) -> Worked | None:
    """Run B's named steps worked out: the value of ``answer`` (None: a step fails)."""
    names: dict[str, Fraction] = {}
    steps: set[Fraction] = set()
    for line in text.strip().splitlines():
        name, sep, expression = line.partition(" = ")
        if not sep:
            return None
        steps |= set(numbers_in(expression))  # the numbers the model wrote, before names
        for known in sorted(names, key=len, reverse=True):
            value = names[known]
            expression = re.sub(rf"\b{known}\b", f"({value.numerator}/{value.denominator})",
                                expression)
        if re.search(r"[a-z_]", expression):
            return None  # a name never defined
        worked = _exact(expression)
        if worked is None:
            return None
        names[name.strip()] = worked
        steps.add(worked)
    if "answer" not in names:
        return None
    return Worked(names["answer"], frozenset(steps), "", _repeats(text))


def _repeats(text: str) -> int:
    written = re.findall(r"\d+(?:\.\d+)?", text)
    return max((written.count(n) for n in written), default=0)


def _same(stated: Fraction, value: Fraction, problem: WordProblem) -> bool:
    forms = [value, value * 100, value / 100] if problem.percent else [value]
    for form in forms:
        if form.denominator == 1 and stated == form:
            return True
        if form.denominator != 1 and abs(stated - form) <= abs(form) * RELATIVE_TOLERANCE:
            return True
    return False


def _plausible(worked: Worked, problem: WordProblem) -> bool:
    if not worked.steps & set(problem.numbers):
        return False  # a computation that uses none of the question's numbers is a guess
    if worked.repeats > MAX_REPEATS:
        return False  # "7 * 7 * 7 * 7 ...": the model ran on, it did not compute
    return worked.value > 0 or not _POSITIVE.search(problem.text)


def _counted(worked: Worked, problem: WordProblem) -> Worked | None:
    """``worked`` with its value made whole as the question counts (``WordProblem.whole``).

    40 cupcakes, 12 a tray: 40 / 12 is 3.33, and the trays needed are 4. A count that is not
    whole with no rounding asked is no answer (None): the reflector stays unsure.
    """
    value = worked.value
    if not problem.whole or value.denominator == 1:
        return worked
    if problem.whole == "exact":
        return None
    whole = Fraction(math.ceil(value) if problem.whole == "up" else math.floor(value))
    return dataclasses.replace(worked, value=whole, steps=worked.steps | {value}, spoken="")


def _say(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else format_number(round(value, 2))


def statement(problem: WordProblem, worked: Worked) -> str:
    """The correct answer as a clause: '3.5 times 60 is 210 minutes', 'the answer is 14'."""
    unit = f" {problem.unit}" if problem.unit else ""
    if worked.spoken:
        return f"{worked.spoken} is {_say(worked.value)}{unit}"
    return f"the answer is {_say(worked.value)}{unit}"


class _Runs:
    """The three computations of one question, each written only when it is needed."""

    def __init__(self, problem: WordProblem, writer: GrammarWriter | None,
                 cancel: CancelToken | None) -> None:
        self._problem, self._writer, self._cancel = problem, writer, cancel
        self.done: dict[str, Worked | None] = {}

    def get(self, name: str) -> Worked | None:
        if name not in self.done:
            self.done[name] = self._write(name)
        return self.done[name]

    def _write(self, name: str) -> Worked | None:
        if self._writer is None:
            return None
        messages, grammar, read = _RUNS[name]
        try:
            text = self._writer.write(messages(self._problem.text), grammar, self._cancel)
        except AgentError as exc:  # the reflector never fails a turn: unsure, so silent
            _LOGGER.warning("turn=%s word problem run %s failed: %s",
                            self._cancel.turn_id if self._cancel is not None else 0, name, exc)
            return None
        worked = read(text) if text else None
        if worked is None or not _plausible(worked, self._problem):
            return None
        return _counted(worked, self._problem)

    def steps(self) -> frozenset[Fraction]:
        out: frozenset[Fraction] = frozenset()
        for worked in self.done.values():
            if worked is not None:
                out |= worked.steps - {worked.value}
        return out


def _agreed(runs: _Runs) -> Worked | None:
    """The computation that another one agrees with, or None (C: only if A and B differ)."""
    a, b = runs.get("A"), runs.get("B")
    if a is not None and b is not None and a.value == b.value:
        return a
    c = runs.get("C")
    if c is None:
        return None
    for other in (a, b):
        if other is not None and other.value == c.value:
            return a if other is a else c  # one that can be said as a computation
    return None


def _matches(runs: _Runs, stated: tuple[Fraction, ...], problem: WordProblem) -> bool:
    return any(w is not None and _same(n, w.value, problem)
               for n in stated for w in runs.done.values())


def judge_word_problem(problem: WordProblem, utterance: str, writer: GrammarWriter | None,
                       cancel: CancelToken | None = None) -> Judgement:
    """The verdict on ``utterance`` (module docstring). Runs on: the model's thread."""
    said = numbers_in(without_first_item(utterance))
    own = [i for i, n in enumerate(said) if n not in problem.numbers]
    # The answer said: the last number that is not the question's own, or the last number
    # at all (an answer may equal one of the question's numbers: "2 slices" are left).
    stated = tuple({said[i] for i in own[-1:]} | set(said[-1:]))
    # A duration in hours and minutes is one answer ("3 hours and 30 minutes" is 3.5 hours,
    # not 30), in the unit the question counts (both when it asks "how long").
    if problem.unit in ("minutes", "hours", ""):
        for span in durations_in(utterance):
            stated += {"minutes": (span,), "hours": (span / 60,)}.get(problem.unit,
                                                                      (span, span / 60))
    runs = _Runs(problem, writer, cancel)
    for name in ("A", "B"):  # B only when the answer is not A's value
        runs.get(name)
        if _matches(runs, stated, problem):
            return Judgement(Verdict.GOOD, checker=CHECKER)
    agreed = _agreed(runs)
    if _matches(runs, stated, problem) or (cancel is not None and cancel.cancelled):
        return Judgement(Verdict.GOOD, checker=CHECKER)
    steps = runs.steps()
    answers = [i for i in own if said[i] not in steps]
    if agreed is None:
        if not said and writer is not None:
            # Unsure, and no number said yet ("we need to divide the cost by the bars"): the
            # speaker goes on, and what it says is judged in turn. (Not after a number, even
            # a step of a computation: the 1.5B then said it again; and "2 slices are
            # left" may be a finished answer that is one of the question's numbers.)
            return Judgement(Verdict.WORKING, checker=CHECKER)
        return Judgement(Verdict.GOOD, checker=CHECKER)  # unsure: never correct a guess
    correct = statement(problem, agreed)
    if answers:
        wrong = said[answers[-1]]
        return Judgement(Verdict.REPAIR, f"{_say(wrong)} is wrong: {correct}.", correct,
                         number_word(utterance, answers[-1]), CHECKER)
    return Judgement(Verdict.REFINE, f"The answer is missing: {correct}.", correct, None,
                     CHECKER)


_RUNS: Final[dict[str, tuple[Callable[[str], list[ChatMessage]], str,
                             Callable[[str], Worked | None]]]] = {
    "A": (expression_messages, EXPRESSION, expression_value),
    "B": (program_messages, PROGRAM, program_value),
    "C": (check_messages, EXPRESSION, expression_value),
}
"""Each computation: its prompt, its grammar, how its text is worked out."""
