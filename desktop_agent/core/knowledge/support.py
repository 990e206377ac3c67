"""The support gate: a deterministic check of one claim against the passages it cites.

A claim passes when, compared with its cited passages:

* every passage it cites was retrieved (an unknown id is refused);
* each of its numbers is in the passage sentences it matches (digits and number words
  compare equal: "two" = "2");
* so is each negation ("not", "never", "no", "only", ...) and condition word ("if",
  "when", "unless", "before", "after", "while", "until", ...) it says;
* each named item (a capitalised word inside a sentence, a code such as "E2") is in
  the cited passages;
* most of its topic words are in the passage sentences it matches (at least
  ``MIN_COVERAGE``), and it keeps the negations and condition words of those
  sentences: "Top up to 1.5 bar" from "Top up to 1.5 bar (only when cold)" is refused,
  because the condition that keeps it true was dropped.

A derived claim (``Claim.calculation``, see ``derive``) may state one number the passages
do not: its result, and only when the calculator, run again on the expression, gives that
result and every operand of the expression is a number of the cited passages. Its
evidence gains a quote for the calculation (file ``CALCULATION_FILE``).

The gate proves a claim says nothing the passage does not say in those respects; it
does not prove entailment. A claim whose words are the passage's own (``quoted``) is the
safest kind, and the planner prefers it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.knowledge.claim_text import (
    CONDITIONS,
    NEGATIONS,
    Sentence,
    codes,
    named_items,
    numbers,
    sentences,
    topic_terms,
    words,
)
from desktop_agent.core.knowledge.index import Passage
from desktop_agent.core.knowledge.records import (
    CALCULATION_FILE,
    Calculate,
    Claim,
    Quote,
    Verdict,
)

MIN_COVERAGE: Final = 0.6
"""Share of a claim's topic words that its matched passage sentences must contain."""


def support(claim: Claim, passages: Sequence[Passage],
            calculate: Calculate | None = None) -> Verdict:
    """Check ``claim`` against the passages it cites (see the module docstring).

    Args:
        claim: The proposed claim.
        passages: The passages retrieved for the question (the claim may cite only these).
        calculate: The calculator that checks a derived claim (None: a derived claim is
            refused, as nothing can check it).

    Returns:
        The verdict: ``ok`` and, when refused, one reason per missing or added item.
    """
    by_id = {p.passage_id: p for p in passages}
    if not claim.evidence:
        return Verdict(False, ("cites no passage",))
    unknown = [e for e in claim.evidence if e not in by_id]
    if unknown:
        return Verdict(False, tuple(f"cites a passage that was not retrieved: {e}"
                                    for e in unknown))
    if not words(claim.text):
        return Verdict(False, ("says nothing",))
    cited = [by_id[e] for e in dict.fromkeys(claim.evidence)]
    matched = _matched_sentences(claim.text, cited)
    result, reasons = _calculation_checked(claim, cited, calculate)
    reasons += [r for r in _items_missing(claim.text, cited, [s.text for _, s in matched])
                if r != f"number {result} is not in the passage"]
    # A worked-out claim ends with its calculation ("... for a year is 198 pounds"): its
    # words are the calculator's, checked above, not the passage's.
    stated = claim.text if claim.calculation is None else " ".join(
        s.text for s in sentences(claim.text)[:-1]) or claim.text
    claim_terms = set(topic_terms(stated))
    matched_terms = {t for _, s in matched for t in topic_terms(s.text + " " + s.context)}
    if claim_terms:
        coverage = len(claim_terms & matched_terms) / len(claim_terms)
        if coverage < MIN_COVERAGE:
            reasons.append(f"only {coverage:.0%} of its words are in the passage")
    claim_words = set(words(claim.text))
    for _, s in matched:
        for w in words(s.text):
            if (w in NEGATIONS or w in CONDITIONS) and w not in claim_words:
                reasons.append(f"drops '{w}' from the passage")
    reasons = list(dict.fromkeys(reasons))
    quotes = tuple(Quote(p.passage_id, p.file, p.title, s.raw(p.text), p.page)
                   for p, s in matched)
    if claim.calculation is not None:
        calc = claim.calculation
        quotes += (Quote(f"{CALCULATION_FILE}{calc.expression}", CALCULATION_FILE,
                         "Calculation", calc.said or f"{calc.expression} = {calc.result}"),)
    return Verdict(not reasons, tuple(reasons), quoted=_is_quote(claim.text, cited),
                   quotes=quotes)


def _calculation_checked(claim: Claim, cited: Sequence[Passage],
                         calculate: Calculate | None) -> tuple[str, list[str]]:
    """The derived result the claim may state ('' for none) and what is wrong with it."""
    calc = claim.calculation
    if calc is None:
        return "", []
    if calculate is None:
        return "", ["its calculation cannot be checked (no calculator)"]
    try:
        value = calculate(calc.expression)
    except AgentError as exc:
        return "", [f"its calculation cannot be done ({exc.message})"]
    stated = numbers([calc.result])
    if not stated or abs(float(stated[0]) - float(value)) > 1e-9:
        return "", [f"its calculation gives {float(value):g}, not {calc.result}"]
    if not calc.operands:
        return "", ["its calculation names no number of the passages"]
    passage_numbers = {n for p in cited for n in numbers(words(p.text))}
    in_expression = set(numbers(words(calc.expression)))
    missing = [f"operand {n} is not in the passage" for n in numbers(list(calc.operands))
               if n not in passage_numbers or n not in in_expression]
    return stated[0], missing


def _items_missing(text: str, cited: Sequence[Passage], matched: Sequence[str]) -> list[str]:
    """Numbers, negations, condition words and named items of ``text`` not supported.

    Numbers, negations and condition words must be in the passage sentences the claim
    matches (a "not" elsewhere in the passage supports nothing); named items anywhere in
    the cited passages.
    """
    passage_words = {w for p in cited for w in words(p.text)}
    near = [w for m in matched for w in words(m)]
    near_words = set(near)
    near_numbers = set(numbers(near))
    tokens = words(text)
    reasons = [f"number {n} is not in the passage" for n in numbers(tokens)
               if n not in near_numbers]
    reasons += [f"adds '{w}'" for w in tokens
                if (w in NEGATIONS or w in CONDITIONS) and w not in near_words]
    reasons += [f"names '{n}', which the passage does not"
                for n in dict.fromkeys([*named_items(text), *codes(tokens)])
                if n not in passage_words]
    return reasons


def _matched_sentences(text: str, cited: Sequence[Passage]) -> list[tuple[Passage, Sentence]]:
    """For each sentence of the claim, the cited passage sentence sharing most topic words."""
    candidates = [(p, s) for p in cited for s in sentences(p.text)]
    found: list[tuple[Passage, Sentence]] = []
    for part in sentences(text) or [Sentence(text, 0, len(text))]:
        terms = set(topic_terms(part.text))
        if not terms:
            continue
        best: tuple[Passage, Sentence] | None = None
        best_score = 0.0
        for p, s in candidates:
            shared = len(terms & set(topic_terms(s.text)))
            score = shared / len(terms)
            if score > best_score:
                best, best_score = (p, s), score
        if best is not None and best not in found:
            found.append(best)
    return found


def _is_quote(text: str, cited: Sequence[Passage]) -> bool:
    """True when the claim's words appear, in order and contiguous, in a cited passage."""
    needle = " " + " ".join(words(text)) + " "
    return any(needle in " " + " ".join(words(p.text)) + " " for p in cited)
