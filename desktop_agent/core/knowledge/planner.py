"""From a question to an answer plan: retrieve, propose, gate, plan.

Planning rules:

* Only claims that pass the support gate (``support``) and address the question
  (``addresses``) are used; the others are kept in ``AnswerPlan.rejected`` with the reason.
* No supported answer claim: one unit, ``LIMITATION``; never a guess.
* Unit 1 is the first answer claim (a derived one, ``derive``, then claims that quote the
  source) followed by its
  condition claims (a "condition" with no negation or condition word is detail), in the
  same unit: "Top up to 1.5 bar. Never top up while the boiler is
  hot." A condition is never moved to a later unit to meet the word budget.
* Further answer claims follow as their own units while each fits the word budget, at
  most ``MAX_SPOKEN_UNITS`` units in all; the rest, and every detail claim, is offered:
  the last spoken unit then ends with ``OFFER_PHRASE`` when that still fits the budget.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge.claim_text import (
    CONDITIONS,
    NEGATIONS,
    codes,
    join_spelled_codes,
    named_items,
    numbers,
    sentences,
    stem,
    subject_terms,
    topic_terms,
    words,
)
from desktop_agent.core.knowledge.derive import AMOUNT_PATTERN, CALCULATION_WORDS, derive
from desktop_agent.core.knowledge.index import KnowledgeIndex, Passage
from desktop_agent.core.knowledge.meaning import Meaning
from desktop_agent.core.knowledge.paraphrase import (
    COSTS_NOTHING,
    asks_amount,
    asks_price,
    names_a_person,
    said_otherwise,
)
from desktop_agent.core.knowledge.records import (
    AnswerPlan,
    Calculate,
    Claim,
    ClaimProposer,
    Quote,
    SpokenUnit,
    Verdict,
)
from desktop_agent.core.knowledge.support import support

LIMITATION: Final = "I couldn't find that in your documents."
OFFER_PHRASE: Final = "Want more detail?"
MAX_SPOKEN_UNITS: Final = 2
CONDITION_MARKERS: Final = NEGATIONS | CONDITIONS
"""A condition claim must hold one of these; one that does not is offered as detail."""
RETRIEVE_LIMIT: Final = 5
"""Passages retrieved per question."""
MIN_QUESTION_COVERAGE: Final = 0.6
"""Share of the question's topic words an answer (with its heading and file name) must
contain: both of two ("wifi password" is not answered by the wifi's name), two of three."""
_ABOVE: Final = (r"more than|over|above|longer than|older than|larger than|bigger than|"
                 r"higher than|exceeding|beyond|after")
_BELOW: Final = (r"less than|fewer than|under|below|within|up to|at most|no more than|"
                 r"shorter than|younger than|before|until")
_NUM: Final = r"([£€$])?(\d+(?:\.\d+)?)(?:\s*(%|[a-z]+))?"
LIMITS: Final = (
    (re.compile(rf"\b(?:{_ABOVE})\s+{_NUM}", re.I), "gt"),
    (re.compile(rf"\b(?:{_BELOW})\s+{_NUM}", re.I), "le"),
    (re.compile(rf"\b(?:at least|minimum(?: of)?)\s+{_NUM}", re.I), "ge"),
    (re.compile(r"\b([£€$])?(\d+(?:\.\d+)?)\s+([a-z]+)\s+or\s+(?:fewer|less|under|below)\b",
                re.I), "le"),
    (re.compile(r"\b([£€$])?(\d+(?:\.\d+)?)\s+([a-z]+)\s+or\s+(?:more|over|longer)\b",
                re.I), "ge"),
)
"""A limit a claim states on a number ("more than 14 days", "14 days or fewer"), with the
currency before it and the word after it (its unit when ``UNITS`` knows it)."""
UNITS: Final = {
    **dict.fromkeys(("minute", "minutes", "min", "mins"), "minute"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs"), "hour"),
    **dict.fromkeys(("day", "days"), "day"), **dict.fromkeys(("week", "weeks"), "week"),
    **dict.fromkeys(("month", "months"), "month"), **dict.fromkeys(("year", "years"), "year"),
    **dict.fromkeys(("pound", "pounds", "quid", "£"), "pound"),
    **dict.fromkeys(("euro", "euros", "€"), "euro"),
    **dict.fromkeys(("dollar", "dollars", "$"), "dollar"),
    "am": "am", "pm": "pm", **dict.fromkeys(("percent", "%"), "percent"),
    **dict.fromkeys(("kg", "kilo", "kilos"), "kg"), **dict.fromkeys(("mile", "miles"), "mile"),
}
"""Units a limit and a question's number must share to be compared ("until 9 pm" says
nothing of "6 am"; "under 16" of children is compared with "my fourteen year old")."""


def limit_answers(number: str, question: str, text: str) -> bool | None:
    """Whether ``text``'s limit holds for the question's ``number``; None: not judged.

    "14 days or fewer: 50% refund" holds for "ten days before", "More than 14 days before
    the start: full refund" does not. Judged only when ``text`` states exactly one limit
    it can read, ``number`` is a plain number, and both are in one unit (a limit with no
    unit is compared with a number of years: an age).
    """
    found = [(kind, m.group(2), UNITS.get((m.group(1) or m.group(3) or "").lower(), ""))
             for pattern, kind in LIMITS for m in pattern.finditer(text)]
    if len(found) != 1:
        return None
    kind, bound, unit = found[0]
    asked = _unit_of(number, question)
    if asked is None or (unit != asked and not (unit == "" and asked in ("year", ""))):
        return None
    try:
        value, limit = float(number), float(bound)
    except ValueError:
        return None  # "9:20"
    return {"gt": value > limit, "le": value <= limit, "ge": value >= limit}[kind]


def _unit_of(number: str, question: str) -> str | None:
    """The unit said with ``number`` in ``question`` ('' for none; None: not found)."""
    money = re.search(rf"([£€$])\s?{re.escape(number)}\b", question)
    if money is not None:
        return UNITS[money.group(1)]
    tokens = words(question)
    for i in range(len(tokens)):
        for j in range(i + 1, min(i + 5, len(tokens)) + 1):
            run = tokens[i:j]
            if all(numbers([t]) for t in run) and numbers(run) == [number]:
                after = tokens[j] if j < len(tokens) else ""
                if j + 1 < len(tokens) and after in ("pound", "pounds", "euro", "euros"):
                    return UNITS[after]
                return UNITS.get(after, "")
    return None


def compose_answer(question: str, index: KnowledgeIndex, proposer: ClaimProposer, *,
                   generation: int, word_budget: int = 30,
                   cancel: CancelToken | None = None,
                   meaning: Meaning | None = None,
                   calculate: Calculate | None = None) -> AnswerPlan:
    """Answer ``question`` from the documents in ``index``: retrieve -> propose -> gate -> plan.

    Args:
        question: The user's question as transcribed (any text).
        index: The knowledge index.
        proposer: Proposes claims from the retrieved passages (e.g. the local LLM).
        generation: The answer generation (a newer question has a higher one).
        word_budget: Most words in one spoken unit.
        cancel: The turn's token; once cancelled, the plan has no units.
        meaning: Sentence vectors: a question put in other words can be addressed
            (``addresses``) and sentences are ranked by meaning too.
        calculate: The calculator (``core.tools.calc.evaluate``): a number may be worked
            out from the passages (``derive``); None: never.

    Returns:
        The plan. Never raises on odd input (an empty question gets the limitation);
        an engine failure raises its typed error (e.g. ``LlmError``).
    """
    text = " ".join(str(question or "").split())
    if not topic_terms(text):
        return _limitation(text, generation, ())
    passages = tuple(index.search(text, RETRIEVE_LIMIT))
    if cancel is not None and cancel.cancelled:
        return AnswerPlan(text, generation, (), passages=passages)
    if not passages:
        return _limitation(text, generation, ())
    derived = derive(text, passages, calculate, meaning) if calculate is not None else []
    claims = _unique_keys([*proposer.propose(text, passages, cancel), *derived])
    if cancel is not None and cancel.cancelled:
        return AnswerPlan(text, generation, (), passages=passages)
    return plan_answer(text, passages, claims, generation=generation, word_budget=word_budget,
                       meaning=meaning, calculate=calculate)


def plan_answer(question: str, passages: Sequence[Passage], claims: Sequence[Claim], *,
                generation: int, word_budget: int = 30, meaning: Meaning | None = None,
                calculate: Calculate | None = None) -> AnswerPlan:
    """Gate ``claims`` and compose the spoken units (see the module docstring)."""
    accepted: list[tuple[Claim, Verdict]] = []
    rejected: list[tuple[Claim, str]] = []
    for claim in claims:
        verdict = support(claim, passages, calculate)
        if not verdict.ok:
            rejected.append((claim, "; ".join(verdict.reasons)))
            continue
        if claim.role == "answer":
            missing = addresses(question, claim, verdict, passages, meaning)
            if missing:
                rejected.append((claim, missing))
                continue
        accepted.append((claim, verdict))
    # A worked-out number first: it is offered only for what no sentence states ("how
    # much do students pay" where the text gives the full price and "students pay half").
    answers = sorted([cv for cv in accepted if cv[0].role == "answer"],
                     key=lambda cv: (cv[0].calculation is None, not cv[1].quoted))
    if not answers:
        return _limitation(question, generation, tuple(passages), tuple(rejected))
    conditions = [cv for cv in accepted if cv[0].role == "condition" and _conditional(cv[0])]
    details = [cv for cv in accepted if cv[0].role == "detail" or (
        cv[0].role == "condition" and not _conditional(cv[0]))]
    first, *more = answers
    first_parts = [first, *[c for c in conditions if not _says(first[0].text, c[0].text)]]
    units = [_unit("u1", generation, first_parts)]
    offered: list[list[tuple[Claim, Verdict]]] = []
    for cv in more:
        if _says(" ".join(u.text for u in units), cv[0].text):
            continue
        unit = _unit(f"u{len(units) + 1}", generation, [cv])
        if len(units) < MAX_SPOKEN_UNITS and unit.words <= word_budget:
            units.append(unit)
        else:
            offered.append([cv])
    spoken = " ".join(u.text for u in units)
    offered += [[cv] for cv in details if not _says(spoken, cv[0].text)]
    offer = tuple(_unit(f"o{i + 1}", generation, parts) for i, parts in enumerate(offered))
    last = units[-1]
    if offer and last.words + len(OFFER_PHRASE.split()) <= word_budget:
        units[-1] = SpokenUnit(last.key, generation, f"{last.text} {OFFER_PHRASE}",
                               last.claim_keys, last.evidence, last.quotes)
    used = [c for c, _ in [*first_parts, *more, *details]]
    return AnswerPlan(question, generation, tuple(units), offer, False, tuple(passages),
                      tuple(dict.fromkeys(used)), tuple(rejected))


def addresses(question: str, claim: Claim, verdict: Verdict,
              passages: Sequence[Passage], meaning: Meaning | None = None) -> str:
    """'' when ``claim`` addresses ``question``, else why not.

    Every code and number the question names must be in the claim (or meet the one limit
    the claim states in its unit, ``limit_answers``: "more than 10 minutes late" answers
    "what if I'm fifteen minutes late"), every name
    ("Sunday", "Patel") in the claim's passage, and at least
    ``MIN_QUESTION_COVERAGE`` of the question's topic words must be in the claim or the
    heading above its sentence ("fault" in "how do I fix an E2 fault" is in the table's
    header "Fault code Meaning What to do"); a code or number counts twice, so "what is
    error E3" is addressed by the E3 row. Words of the file's name are the document's
    subject and are not counted ("how much does a locker cost at the club" is not
    answered by the membership fee of club_rules.md). For a worked-out amount, the words
    that ask for the working (``derive.CALCULATION_WORDS``: "come to", "over a year",
    "altogether") count as said.

    A "how much" or "how many" question needs a number in the answer, and one asking
    "who" a person (a name, or a word such as
    "volunteers"; ``paraphrase.names_a_person``).

    With ``meaning``, a question put in other words is addressed too
    (``paraphrase.said_otherwise``): a question word the answer lacks may be said there in
    other words ("fix" ~ "repair").
    """
    q_tokens = join_spelled_codes(words(question))
    c_tokens = set(words(claim.text))
    if "who" in q_tokens and not names_a_person(claim.text):
        return "names no one, and the question asks who"
    # A price question wants a price ("£2"), or that it costs nothing ("Dogs travel free"),
    # not any number ("Our network has two zones").
    amount = asks_amount(q_tokens)
    priced = amount and asks_price(question)
    if priced and not (AMOUNT_PATTERN.search(claim.text) or COSTS_NOTHING.search(claim.text)):
        return "states no price, and the question asks how much it costs"
    if amount and not priced and not numbers(words(claim.text)):
        return "states no number, and the question asks how much or how many"
    for code in codes(q_tokens):
        if code not in c_tokens:
            return f"does not mention {code.upper()}, which the question asks about"
    c_numbers = set(numbers(words(claim.text)))
    limited: set[str] = set()  # question numbers a limit of the claim holds for
    for n in numbers(q_tokens):
        if n in c_numbers:
            continue
        judged = limit_answers(n, question, claim.text)
        if judged is None:
            return f"does not mention {n}, which the question asks about"
        if not judged:
            return f"states a limit that {n} does not meet"
        limited.add(n)
    q_terms = set(topic_terms(question))
    by_id = {p.passage_id: p for p in passages}
    cited_stems = {stem(w) for e in claim.evidence if e in by_id
                   for w in words(f"{by_id[e].title} {by_id[e].text}")}
    for name in named_items(question):
        if stem(name) not in cited_stems:
            return f"its passage never names {name.capitalize()}, which the question does"
    # The document's own subject ("boiler" of boiler_manual.pdf, "club" of club_rules.md)
    # says nothing about whether this sentence answers: it is left out of both sides.
    subject = set().union(*(subject_terms(by_id[e].title) for e in claim.evidence
                            if e in by_id))
    if q_terms - subject:
        q_terms -= subject
    if not q_terms:
        return ""
    quoted = {q.quote for q in verdict.quotes}
    headings = [s.context for e in claim.evidence if e in by_id
                for s in sentences(by_id[e].text) if s.raw(by_id[e].text) in quoted]
    c_terms = set(topic_terms(" ".join([claim.text, *quoted, *headings])))

    def weight(term: str) -> int:  # a code or number the claim names says more than a word
        return 2 if any(c.isdigit() for c in term) else 1

    # "fifteen minutes late" is answered by "more than 10 minutes late"
    c_terms |= {t for t in q_terms if set(numbers([t])) & limited}
    covered = sum(weight(t) for t in q_terms & c_terms) / sum(weight(t) for t in q_terms)
    if covered >= MIN_QUESTION_COVERAGE:
        return ""
    missing = sorted(q_terms - c_terms)
    if claim.calculation is not None:
        # A worked-out amount answers the words that ask for the working: "what does the
        # plan *come to over a year*" is answered by "£16.50 a month for a year is 198".
        working = [t for t in missing if t in CALCULATION_WORDS]
        covered += sum(weight(t) for t in working) / sum(weight(t) for t in q_terms)
        if covered >= MIN_QUESTION_COVERAGE:
            return ""
        missing = [t for t in missing if t not in working]
    if meaning is not None and meaning.available:
        own = [by_id[e] for e in claim.evidence if e in by_id]
        said = said_otherwise(question, missing, " ".join([claim.text, *headings]), own,
                              [p for p in passages if p not in own], meaning)
        if said is not None:
            covered += sum(weight(t) for t in said) / sum(weight(t) for t in q_terms)
            if covered >= MIN_QUESTION_COVERAGE:
                return ""
            missing = [t for t in missing if t not in said]
    return f"does not address the question ({', '.join(missing)})"


def _conditional(claim: Claim) -> bool:
    """True when ``claim`` states a condition (a negation or a condition word)."""
    return bool(set(words(claim.text)) & CONDITION_MARKERS)


def _says(text: str, part: str) -> bool:
    """True when ``part``'s words already appear, in order, in ``text``."""
    return (" " + " ".join(words(part)) + " ") in (" " + " ".join(words(text)) + " ")


def _unit(key: str, generation: int, parts: Sequence[tuple[Claim, Verdict]]) -> SpokenUnit:
    text = " ".join(_sentence(c.text) for c, _ in parts)
    evidence = tuple(dict.fromkeys(e for c, _ in parts for e in c.evidence))
    quotes: list[Quote] = []
    for _, v in parts:
        quotes += [q for q in v.quotes if q not in quotes]
    return SpokenUnit(key, generation, text, tuple(c.key for c, _ in parts), evidence,
                      tuple(quotes))


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text[-1:] in ".!?" else text + "."


def _limitation(question: str, generation: int, passages: tuple[Passage, ...],
                rejected: tuple[tuple[Claim, str], ...] = ()) -> AnswerPlan:
    unit = SpokenUnit("u1", generation, LIMITATION, (), (), ())
    return AnswerPlan(question, generation, (unit,), (), True, passages, (), rejected)


def _unique_keys(claims: Sequence[Claim]) -> list[Claim]:
    """The proposer's claims with unique keys (a repeated key gets a suffix)."""
    out: list[Claim] = []
    seen: set[str] = set()
    for i, c in enumerate(claims):
        key = c.key or f"c{i + 1}"
        while key in seen:
            key += "'"
        seen.add(key)
        out.append(c if key == c.key else Claim(key, c.text, c.evidence, c.role,
                                                c.calculation))
    return out
