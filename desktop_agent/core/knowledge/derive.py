"""Derived answers: one calculation over amounts the passages state.

"How much does a student pay for a swim?" of a price list that says "Single swim: 6 euros"
and a line that says "Students and seniors pay half price for a single swim" is answered
"... Half of 6 euros is 3 euros." The number is worked out by the project's calculator
(``core/tools/calc.py``: exact fractions, never ``eval``), and the claim carries the
``Calculation`` so the gate can check it (``support``) and the evidence panel can show both
passages and the sum. Three kinds, each one step:

* **A share of an amount**: a sentence that names a group of the question ("students",
  "members") and a share ("half price", "a third", "25% off", "10% more", "twice") applied
  to the amount of the sentence that names the same thing ("single swim", "hire") and what
  the question asks about. Not when a sentence already states that group's amount.
* **A difference**: "how much more / less / cheaper is X than Y", "the difference between
  X and Y": the amounts of the sentences naming X and Y.
* **A sum**: "X and Y together / in total / altogether / combined".
* **A year's amount**: "over a year", "per year", "annually" of an amount paid "a month"
  (x 12) or "a week" (x 52), when no sentence states the year's amount, the rate does not
  change during the year ("for the first 3 months, then ...") and the question names no
  group that a share is for ("what do students pay a year" takes two steps). Tried before
  a share: "what does the dental plan come to over a year" is the plan's fee times twelve,
  not the "10% off" its members get on a £20 appointment.

Amounts are money ("£8", "6 euros", "20 cents", "$5"), and both amounts of one calculation
must be in the same unit. Every operand must be in a sentence of the passages; nothing is
derived when a side cannot be found or is ambiguous (two sentences match it equally).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.knowledge.claim_text import (
    Sentence,
    named_items,
    sentences,
    stem,
    topic_terms,
    topic_words,
)
from desktop_agent.core.knowledge.index import Passage
from desktop_agent.core.knowledge.meaning import Meaning
from desktop_agent.core.knowledge.paraphrase import WORD_MIN
from desktop_agent.core.knowledge.records import Calculate, Calculation, Claim

_CURRENCY: Final = {"£": "pounds", "€": "euros", "$": "dollars"}
_UNITS: Final = {"euro": "euros", "euros": "euros", "eur": "euros", "pound": "pounds",
                 "pounds": "pounds", "gbp": "pounds", "dollar": "dollars", "dollars": "dollars",
                 "usd": "dollars", "cent": "cents", "cents": "cents", "pence": "pence",
                 "p": "pence"}
AMOUNT_PATTERN: Final = re.compile(
    r"(?P<sym>[£€$])\s?(?P<a>\d+(?:[.,]\d{1,2})?)"
    r"|(?<![\w.])(?P<b>\d+(?:[.,]\d{1,2})?)\s?(?P<unit>euros?|eur|pounds?|gbp|dollars?|usd"
    r"|cents?|pence|p)\b", re.IGNORECASE)
"""A money amount as written ("£8", "6 euros", "20 cents")."""
SHARES: Final = (
    (re.compile(r"\b(\d+(?:\.\d+)?)\s*(?:%|per\s?cent)\s+(?:off|discount|reduction|less)\b"
                r"|\b(?:discount|reduction)\s+of\s+(\d+(?:\.\d+)?)\s*(?:%|per\s?cent)", re.I),
     "off"),
    (re.compile(r"\b(\d+(?:\.\d+)?)\s*(?:%|per\s?cent)\s+(?:more|extra|surcharge|on top)\b",
                re.I), "more"),
    (re.compile(r"\bhalf\b", re.I), "1/2"),
    (re.compile(r"\b(?:a|one)\s+third\b", re.I), "1/3"),
    (re.compile(r"\btwo\s+thirds\b", re.I), "2/3"),
    (re.compile(r"\b(?:a|one)\s+quarter\b", re.I), "1/4"),
    (re.compile(r"\bthree\s+quarters\b", re.I), "3/4"),
    (re.compile(r"\b(?:twice|double)\b", re.I), "2"),
)
"""A share of an amount, as a sentence states it, and what it does to the amount."""
_SHARE_WORDS: Final = {"1/2": "half", "1/3": "a third", "2/3": "two thirds",
                       "1/4": "a quarter", "3/4": "three quarters", "2": "twice"}
PRICE_WORDS: Final = frozenset(topic_terms(
    "pay pays paid price prices cost costs fee fees charge charged euros euro pounds pound "
    "dollars cents pence get gets off discount reduction half third quarter twice double "
    "percent more extra less full normal regular standard usual each"))
"""Words every price sentence may share: they never make two sentences about one thing."""
DIFFERENCE: Final = re.compile(
    r"\b(?:more|less|cheaper|dearer|pricier|expensive)\b.*\bthan\b|\bdifference\b", re.I)
TOTAL: Final = re.compile(r"\b(?:together|in total|total|altogether|combined|both)\b", re.I)
PER_YEAR: Final = re.compile(r"\b(?:a|per|each|every|the|whole)\s+year\b(?![- ]?old)"
                             r"|\bannually\b|\byearly\b|\b(?:12|twelve) months\b", re.I)
"""A question about a year's amount ("what does the plan come to over a year")."""
PERIOD_AFTER: Final = re.compile(
    r"^\s*(?:a|per|each|every|/)\s*(month|week)\b|^\s+(monthly|weekly)\b", re.I)
"""The period an amount is paid in, right after it ("£16.50 a month", "£9 per week")."""
_STEPPED: Final = re.compile(r"\b(?:first|then|after|introductory|intro|until|from month|"
                             r"rises?|increases?)\b", re.I)
"""A rate that changes during the year: no year's amount is worked out from it."""
_PER_YEAR_TIMES: Final = {"month": 12, "monthly": 12, "week": 52, "weekly": 52}
DEDUCTION: Final = re.compile(
    r"(?<![-\w])off(?![-\w])|\b(?:discount|reduction|refund|refunded|saves?)\b", re.I)
"""A sentence that takes an amount off is no base price for a share ("£20 off each
week")."""
CALCULATION_WORDS: Final = frozenset(topic_terms(
    "over year years annual annually yearly month months monthly week weeks weekly whole "
    "total altogether together combined come comes add adds up difference more less than "
    "cheaper dearer"))
"""Words of a question that ask for the calculation itself ("what does the plan *come to
over a year*"): a derived answer's own sentences need not say them."""
ASKS_AMOUNT: Final = re.compile(r"\bhow much\b|\bcost\b|\bprice\b|\bpay\b|\bfee\b"
                                r"|\bcomes? to\b|\badds? up\b", re.I)


@dataclass(frozen=True, slots=True)
class Amount:
    """A money amount in one sentence."""

    passage: Passage
    sentence: Sentence
    value: Fraction
    number: str
    """The number as written, a decimal comma made a point ("6", "12.50")."""
    unit: str
    text: str
    """As written ("£8", "6 euros")."""


def amounts(passages: Sequence[Passage]) -> list[Amount]:
    """Every money amount stated in ``passages``, in order."""
    out = []
    for p in passages:
        for s in sentences(p.text):
            for m in AMOUNT_PATTERN.finditer(s.text):
                digits = (m.group("a") or m.group("b")).replace(",", ".")
                unit = _CURRENCY[m.group("sym")] if m.group("sym") else \
                    _UNITS[m.group("unit").lower()]
                out.append(Amount(p, s, Fraction(digits), digits, unit, m.group(0)))
    return out


def derive(question: str, passages: Sequence[Passage], calculate: Calculate,
           meaning: Meaning | None = None) -> list[Claim]:
    """Derived answer claims for ``question`` (at most one; [] when none applies).

    ``calculate`` is the project's calculator (``core.tools.calc.evaluate``). With
    ``meaning``, the question's group may be named in other words ("kids" for the
    sentence's "children": a word-level paraphrase, as the gate's ``WORD_MIN``).
    """
    if not ASKS_AMOUNT.search(question):
        return []
    found = amounts(passages)
    if not found:
        return []
    q_terms = set(topic_terms(question)) - PRICE_WORDS
    if DIFFERENCE.search(question):
        return _two_sides(question, found, "-", calculate)
    if TOTAL.search(question):
        return _two_sides(question, found, "+", calculate)
    # A year's amount first: "what does the plan come to over a year" asks for the plan's
    # monthly fee times twelve, not for the "10% off" its members get on other treatment.
    yearly = _per_year(q_terms, found, calculate, _shared_terms(passages)) \
        if PER_YEAR.search(question) else []
    return yearly or _share(question, passages, found, calculate, _spoken(question, meaning))


Said = Callable[[str, Sentence], dict[str, str]]
"""(question terms, a sentence) -> {question term: the sentence's term that says it}."""


def _spoken(question: str, meaning: Meaning | None) -> Said:
    """The question's terms that a sentence says in other words (none without meaning)."""
    words_by_stem = topic_words(question)

    def said(term_set: str, sentence: Sentence) -> dict[str, str]:
        if meaning is None or not meaning.available:
            return {}
        own = {t: w for t, w in topic_words(sentence.text).items() if not w[0].isdigit()}
        out: dict[str, str] = {}
        for t in term_set.split():
            if t in own or t not in words_by_stem or t[0].isdigit() or not own:
                continue
            sims = meaning.similarities(words_by_stem[t], list(own.values()))
            if sims and max(sims) >= WORD_MIN:
                out[t] = list(own)[sims.index(max(sims))]
        return out

    return said


def _share(question: str, passages: Sequence[Passage], found: list[Amount],
           calculate: Calculate, paraphrased: Said) -> list[Claim]:
    q_all = set(topic_terms(question))
    for p in passages:
        for s in sentences(p.text):
            share = _share_of(s.text)
            if share is None:
                continue
            # A price word capitalised as a name ("the Standard monthly price") names the
            # plan the share applies to: it counts as a topic word here.
            keep = PRICE_WORDS & {stem(n) for n in named_items(s.text)}
            q_terms = q_all - (PRICE_WORDS - keep)
            rel = q_terms & set(topic_terms(s.text))
            if not rel:
                continue
            # A group named in other words ("kids" ~ "children") counts as named.
            other = paraphrased(" ".join(sorted(q_terms - rel - PRICE_WORDS)), s)
            rel |= set(other)
            about = {t for t in topic_terms(s.text) if not t[0].isdigit()} \
                - (PRICE_WORDS - keep) - q_terms - set(other.values())  # "single swim"
            asked = q_terms - rel  # what the question names that the share does not
            bases = [a for a in found if _share_of(a.sentence.text) is None
                     and not DEDUCTION.search(a.sentence.text)]
            base = _best(bases, asked | about | rel, require=asked or about or rel, exclude=s,
                         keep=keep)
            if base is None:
                return []
            own = _terms(base.sentence, keep)
            if (asked and not asked & own) or (about and not about & own and not rel & own):
                return []  # the share is about another thing than the question asks
            group = rel - own  # "students", "members"
            if not group:
                continue
            if any(group <= _terms(a.sentence, keep)
                   and (not asked or asked & _terms(a.sentence, keep))
                   for a in found if a.sentence not in (s, base.sentence)):
                return []  # the group's own amount is stated: nothing to work out
            kind, operand = share
            stated = [base.number, operand] if operand else [base.number]
            if kind == "off":
                expression, said = (f"{base.number} - {base.number} * {operand} / 100",
                                    f"{operand}% off {base.text}")
            elif kind == "more":
                expression, said = (f"{base.number} + {base.number} * {operand} / 100",
                                    f"{operand}% more than {base.text}")
            else:
                expression, said = (f"{base.number} * {kind}",
                                    f"{_SHARE_WORDS[kind]} of {base.text}")
            done = _calculate(calculate, expression, said, base.unit, stated)
            if done is None:
                return []
            calc, spoken = done
            text = f"{_end(s.text)} {_end(base.sentence.text)} {spoken}."
            return [Claim("d1", text, tuple(dict.fromkeys(
                [p.passage_id, base.passage.passage_id])), "answer", calc)]
    return []


def _shared_terms(passages: Sequence[Passage]) -> set[str]:
    """Topic words of the sentences that state a share ("Students get 20% off ...")."""
    return {t for p in passages for s in sentences(p.text) if _share_of(s.text) is not None
            for t in topic_terms(s.text)}


def _per_year(q_terms: set[str], found: list[Amount], calculate: Calculate,
              shared: Collection[str] = ()) -> list[Claim]:
    """A year's amount from a monthly or weekly one ("£16.50 a month" -> 198 pounds).

    Only when one sentence naming what the question asks about states a monthly or weekly
    amount (and no sentence naming it states a year's amount: then the words answer), and
    the question names no group that a share is for (``shared``: "what do students pay a
    year" takes two steps, the students' share and the year: nothing is worked out).
    """
    asked = q_terms - set(topic_terms("year annual annually yearly month week per each every "
                                      "whole over cost costs"))
    periodic: list[tuple[Amount, str]] = []
    for a in found:
        at = a.sentence.text.find(a.text)
        m = PERIOD_AFTER.search(a.sentence.text[at + len(a.text):]) if at >= 0 else None
        if m:
            periodic.append((a, (m.group(1) or m.group(2)).lower()))
        elif PER_YEAR.search(a.sentence.text) and asked & _terms(a.sentence):
            return []  # a year's amount is stated
    base = _best([a for a, _ in periodic], asked, require=asked)
    if base is None or _STEPPED.search(base.sentence.text) or sum(
            a.sentence == base.sentence for a in found) > 1:
        return []  # "£10 a month for the first 3 months, then £20": not one rate for a year
    if any(t in shared for t in asked - _terms(base.sentence)):
        return []  # a share applies first ("students"): two steps, not one
    period = next(p for a, p in periodic if a is base)
    times = _PER_YEAR_TIMES[period]
    done = _calculate(calculate, f"{base.number} * {times}",
                      f"{base.text} a {period.removesuffix('ly')} for a year", base.unit,
                      [base.number])
    if done is None:
        return []
    calc, spoken = done
    text = f"{_end(base.sentence.text)} {spoken}."
    return [Claim("d1", text, (base.passage.passage_id,), "answer", calc)]


def _two_sides(question: str, found: list[Amount], op: str,
               calculate: Calculate) -> list[Claim]:
    text = question.lower()
    for cut in (" than ", " between ", " and "):
        if cut in text:
            left, right = text.split(cut, 1)
            if cut == " between " and " and " in right:
                left, right = right.split(" and ", 1)
            break
    else:
        return []
    sides = [set(topic_terms(part)) - PRICE_WORDS for part in (left, right)]
    if not all(sides):
        return []
    a = _best(found, sides[0] - sides[1], require=sides[0] - sides[1])
    b = _best(found, sides[1] - sides[0], require=sides[1] - sides[0])
    if a is None or b is None or a.sentence == b.sentence or a.unit != b.unit:
        return []
    if op == "-":
        big, small = (a, b) if a.value >= b.value else (b, a)
        done = _calculate(calculate, f"{big.number} - {small.number}",
                          f"{big.text} minus {small.text}", a.unit, [big.number, small.number],
                          lead="The difference is")
    else:
        done = _calculate(calculate, f"{a.number} + {b.number}", f"{a.text} plus {b.text}", a.unit,
                          [a.number, b.number], lead="Together that is")
    if done is None:
        return []
    calc, spoken = done
    text = f"{_end(a.sentence.text)} {_end(b.sentence.text)} {spoken}."
    return [Claim("d1", text, tuple(dict.fromkeys(
        [a.passage.passage_id, b.passage.passage_id])), "answer", calc)]


def _best(found: list[Amount], terms: set[str], *, require: set[str],
          exclude: Sentence | None = None, keep: frozenset[str] = frozenset()
          ) -> Amount | None:
    """The amount whose sentence shares most of ``terms``.

    Its sentence (with its heading) must share at least one of ``require``; None when
    none does, or two sentences tie.
    """
    scored: list[tuple[int, float, Amount]] = []
    for a in found:
        if a.sentence == exclude:
            continue
        own = _terms(a.sentence, keep)
        if own & require:
            # Ties go to the sentence with fewer other words: "a swim" is the "Single swim"
            # row rather than the "Ten-swim card".
            scored.append((len(own & terms), len(own & terms) / len(own), a))
    if not scored:
        return None
    scored.sort(key=lambda x: (-x[0], -x[1]))
    if len(scored) > 1 and scored[1][:2] == scored[0][:2] \
            and scored[1][2].sentence != scored[0][2].sentence:
        return None
    return scored[0][2]


def _terms(sentence: Sentence, keep: frozenset[str] = frozenset()) -> set[str]:
    """Topic words of a sentence and its heading, price words (but ``keep``) left out."""
    return set(topic_terms(f"{sentence.context} {sentence.text}")) - (PRICE_WORDS - keep)


def _share_of(text: str) -> tuple[str, str] | None:
    """("off" | "more", percent) or (fraction, "") for the first share ``text`` states."""
    for pattern, kind in SHARES:
        m = pattern.search(text)
        if m:
            if kind in ("off", "more"):
                return kind, next(g for g in m.groups() if g)
            return kind, ""
    return None


def _calculate(calculate: Calculate, expression: str, said: str, unit: str,
               operands: Sequence[object], lead: str = "") -> tuple[Calculation, str] | None:
    """The calculation and its spoken sentence ("Half of 6 euros is 3 euros").

    None when the calculator cannot do it.
    """
    try:
        value = calculate(expression)
    except AgentError:
        return None
    result = _money(value, unit)
    amount = f"{result} {unit}".strip()
    spoken = f"{lead} {amount}" if lead else f"{_capital(said)} is {amount}"
    return Calculation(expression, result, unit, f"{said} = {amount}",
                       tuple(str(o) for o in operands)), spoken


def _money(value: Fraction | float, unit: str) -> str:
    """"3", "12.50" (money with cents has two decimals), "0.333333" (at most six)."""
    exact = Fraction(value).limit_denominator(10**6)
    if exact.denominator == 1:
        return str(exact.numerator)
    if unit in ("euros", "pounds", "dollars"):
        return f"{float(exact):.2f}"
    return f"{float(exact):.6f}".rstrip("0").rstrip(".")


def _end(text: str) -> str:
    text = " ".join(text.split())
    return text if text[-1:] in ".!?" else text + "."


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]

