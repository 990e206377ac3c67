"""Candidate sentences ranked by the question's words, and a proposer that needs no model.

``rank_sentences`` is shared: the LLM proposer numbers the best few for the model to pick
from, and ``LexicalProposer`` picks the best one itself (plus the condition that keeps it
true), which makes it the pipeline's model-free baseline and the tests' proposer.

Score of a sentence: the summed weight of the question's topic words it contains, each
weighted by its rarity among the candidates (a word in every sentence says little), a
code or number weighing double; words of the heading above the sentence count half.
With a ``Meaning`` (sentence vectors), the sentence's similarity to the question adds
``MEANING_WEIGHT`` per unit of cosine above ``MEANING_FLOOR``, and a sentence that shares
no word with the question is a candidate too when its cosine is at least
``MEANING_ALONE`` ("when is the club open?" -> "The club meets on Thursdays ...").
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge.claim_text import (
    NEGATIONS,
    Sentence,
    codes,
    sentences,
    subject_terms,
    topic_terms,
    words,
)
from desktop_agent.core.knowledge.derive import AMOUNT_PATTERN
from desktop_agent.core.knowledge.fusion import lexically_weak
from desktop_agent.core.knowledge.index import Passage
from desktop_agent.core.knowledge.meaning import Meaning
from desktop_agent.core.knowledge.paraphrase import FRAME_WORDS
from desktop_agent.core.knowledge.records import Claim

HEADING_WEIGHT: Final = 0.5
SUBJECT_WEIGHT: Final = 0.0
"""Weight of a question word that names the subject of every retrieved document (a word of
each file's name): it is in most of their sentences and says nothing about which answers."""
CANDIDATES: Final = 4
"""Sentences the proposer tries, best first, when ranking by meaning."""
MEANING_WEIGHT: Final = 6.0
"""Score per unit of cosine above the floor (a rare shared word scores about 1.5-3)."""
MEANING_FLOOR: Final = 0.2
"""Cosine that adds nothing (unrelated sentences of all-MiniLM-L6-v2 score 0.0-0.2)."""
MEANING_ALONE: Final = 0.4
"""Least cosine for a sentence sharing no topic word with the question to be ranked."""


@dataclass(frozen=True, slots=True)
class Ranked:
    """One candidate sentence with its score for the question."""

    passage: Passage
    sentence: Sentence
    score: float


def rank_sentences(question: str, passages: Sequence[Passage], limit: int = 8,
                   meaning: Meaning | None = None) -> list[Ranked]:
    """The ``limit`` best sentences of ``passages`` for ``question``, best first.

    Sentences sharing no topic word with the question are left out (unless ``meaning``
    finds them close, see the module docstring); ties keep passage (retrieval) order,
    then sentence order.
    """
    q_terms = list(dict.fromkeys(topic_terms(question)))
    if not q_terms:
        return []
    # "what *time* does it open" asks for a time; "time" in "finish in time" is no answer.
    q_terms = [t for t in q_terms if t not in FRAME_WORDS] or q_terms
    cands = [(p, s, set(topic_terms(s.text)), set(topic_terms(s.context + " " + p.title)))
             for p in passages for s in sentences(p.text)]
    if not cands:
        return []
    n = len(cands)
    # The documents' common subject ("gym" when every passage is from gym_terms.md) is in
    # most of their sentences and says nothing about which one answers: "the gym floor
    # closes ..." is no answer to "when does the gym open on a saturday". A word that names
    # only some of the files still tells them apart, so it counts in all of them.
    subject = set.intersection(*(subject_terms(p.title) for p in {c[0].file: c[0] for c in cands}
                                 .values()))
    sims = meaning.similarities(question, [_with_heading(s) for _, s, _, _ in cands]) \
        if meaning is not None else None
    ranked: list[tuple[float, int, Ranked]] = []
    for order, (p, s, own, ctx) in enumerate(cands):
        score = 0.0
        for t in q_terms:
            if t in own or t in ctx:
                df = sum(1 for _, _, o, _ in cands if t in o) or 1
                weight = math.log(1.0 + n / df) * (2.0 if t[0].isdigit() or _is_code(t)
                                                     else 1.0)
                weight *= SUBJECT_WEIGHT if t in subject else 1.0
                score += weight if t in own else weight * HEADING_WEIGHT
        shares = score > 0.0 and any(t in own for t in q_terms)
        if sims is not None:
            # By meaning, a sentence under a heading named by the question counts too (its
            # file's name does not: a sentence of dentist.md is no answer to "does the
            # dentist do teeth whitening" for naming the dentist).
            shares = shares or score > 0.0 or sims[order] >= MEANING_ALONE
            score += MEANING_WEIGHT * max(0.0, sims[order] - MEANING_FLOOR)
        if shares:
            ranked.append((-score, order, Ranked(p, s, round(score, 4))))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [r for _, _, r in ranked[:limit]]


ASKS_MONEY: Final = re.compile(
    r"\bhow much (?:is|are|does|do|did|will|would|money|deposit)\b|\b(?:cost|costs|price|"
    r"fee|fees|charged|deposit|owe|spend)\b|\bthe fine\b|\bcharge (?:me|for)\b", re.I)
"""A question whose answer is money: a sentence with an amount answers it before one without."""


def _addressing_first(question: str, ranked: list[Ranked], passages: Sequence[Passage],
                      meaning: Meaning) -> list[Ranked]:
    """``ranked`` with the first sentence that the gate would accept moved to the front.

    For a question about money, the first accepted sentence that states an amount
    ("A deposit of £50 per child secures a place" before "More than 14 days before the
    start: full refund, less the deposit" for "how much deposit do I put down").
    """
    money = bool(ASKS_MONEY.search(question))
    first = None
    for i, r in enumerate(ranked):
        has_amount = bool(AMOUNT_PATTERN.search(r.sentence.text))
        if first is not None and not has_amount:
            continue  # only an accepted amount can still come before the first accepted
        if not _accepted(question, r, passages, meaning):
            continue
        if not money or has_amount:
            return _to_front(ranked, i)
        first = i  # accepted, but states no amount: kept unless an amount follows
    return ranked if first is None else _to_front(ranked, first)


def _to_front(ranked: list[Ranked], i: int) -> list[Ranked]:
    return [ranked[i], *ranked[:i], *ranked[i + 1:]]


def _accepted(question: str, r: Ranked, passages: Sequence[Passage], meaning: Meaning) -> bool:
    """True when the gate would accept ``r``'s sentence as the answer."""
    from desktop_agent.core.knowledge.planner import addresses
    from desktop_agent.core.knowledge.support import support

    claim = Claim("c1", r.sentence.text, (r.passage.passage_id,), "answer")
    verdict = support(claim, passages)
    return verdict.ok and not addresses(question, claim, verdict, passages, meaning)


def _with_heading(s: Sentence) -> str:
    """The sentence as embedded: its heading gives it context ("Guests: Pay at the desk.")."""
    return f"{s.context}: {s.text}" if s.context else s.text


def _is_code(term: str) -> bool:
    return any(c.isdigit() for c in term) and any(c.isalpha() for c in term)


STRONG_CONDITIONS: Final = frozenset({"if", "when", "unless", "only", "while"}) | NEGATIONS
"""Words that make a sentence a condition on its neighbour ("until" and "before" alone
usually describe a step, not a limit)."""


def is_condition_of(candidate: Sentence, answer: Ranked) -> bool:
    """True when ``candidate`` states a condition on ``answer``'s statement.

    It must hold a negation or a condition word, name no code the answer does not (the
    next row of a table is about another item), and share two topic words (numbers
    aside) with the answer.
    """
    ws = set(words(candidate.text))
    if candidate == answer.sentence or not ws & STRONG_CONDITIONS:
        return False
    if set(codes(list(ws))) - set(codes(words(answer.sentence.text))):
        return False
    own = {t for t in topic_terms(answer.sentence.text) if not t[0].isdigit()}
    return len(own & set(topic_terms(candidate.text))) >= 2


def condition_for(answer: Ranked) -> Sentence | None:
    """The neighbouring sentence that states a condition on the answer, or None.

    E.g. "Never top up while the boiler is hot." after "To top up, open the filling loop
    valve ...". Only when the answer states no condition itself; the neighbour (the
    sentence just before or after, in the same passage) must pass ``is_condition_of``;
    a warning and the next sentence win ties.
    """
    if set(words(answer.sentence.text)) & STRONG_CONDITIONS:
        return None
    own = {t for t in topic_terms(answer.sentence.text) if not t[0].isdigit()}
    all_sentences = sentences(answer.passage.text)
    try:
        at = all_sentences.index(answer.sentence)
    except ValueError:
        return None
    best: Sentence | None = None
    best_score = 0.0
    for s in all_sentences[max(0, at - 1):at] + all_sentences[at + 1:at + 2]:
        if not is_condition_of(s, answer):
            continue
        shared = len(own & set(topic_terms(s.text)))
        # Ties: a warning ("never", "not") before a plain condition, the next sentence
        # before the previous one (documents state the limit after the instruction).
        score = shared + 0.5 * bool(set(words(s.text)) & NEGATIONS) + 0.25 * (
            s.start > answer.sentence.start)
        if score > best_score:
            best, best_score = s, score
    return best


BACK_REFERENCE: Final = re.compile(
    r"^(?:if (?:you|they|we) (?:do not|don't|can't|cannot|can not|are not|aren't|"
    r"did not|didn't|will not|won't)\s*[,.;:]|if (?:not|so)\b|otherwise\b|in that case\b"
    r"|if this happens\b)", re.I)
"""A sentence that opens by pointing back ("If you don't, we charge £20", "Otherwise ...")."""


def with_antecedent(r: Ranked) -> str:
    """``r``'s sentence, after the sentence before it when it opens by pointing back to it.

    "If you don't, we charge £20 ..." says nothing on its own; with "Please give us at
    least 24 hours' notice if you can't make your appointment." it says when.
    """
    text = r.sentence.text
    if not BACK_REFERENCE.match(text.replace("\u2019", "'")):
        return text
    before = [s for s in sentences(r.passage.text) if s.end <= r.sentence.start]
    if not before or before[-1].context != r.sentence.context:
        return text  # the sentence before is under another heading: not what it points to
    return f"{before[-1].text} {text}"


class LexicalProposer:
    """Proposes the best-ranked sentence as the answer, verbatim (no model).

    The sentence's condition (``condition_for``) is proposed as a condition claim, and
    the next ranked sentence as detail. With a ``Meaning``, sentences are ranked by
    meaning too (``rank_sentences``) when words fall short (word search is weak for the
    question, ``fusion.lexically_weak``, or the gate would refuse the best sentence by
    words), and the answer is then the best of the first
    ``CANDIDATES`` that addresses the question (``planner.addresses``): meaning alone
    ranks "From Monday to Friday the library is staffed ..." above "On Saturdays the doors
    close at 1 pm." for "when does the library shut on Saturday?".
    """

    def __init__(self, meaning: Meaning | None = None) -> None:
        """Rank by words, and by meaning when ``meaning`` is given."""
        self.meaning = meaning

    def propose(self, question: str, passages: Sequence[Passage],
                cancel: CancelToken | None = None) -> Sequence[Claim]:
        """Claims quoting the best sentences (see the class docstring)."""
        ranked = rank_sentences(question, passages, limit=3)
        meaning = self.meaning if self.meaning is not None and self.meaning.available else None
        # Meaning only where words fall short (a weak match, or a best sentence the gate
        # would refuse): a question the words answer embeds no sentence (no latency added).
        if meaning is not None and (lexically_weak(question, passages) or not ranked
                                    or not _accepted(question, ranked[0], passages, meaning)):
            ranked = rank_sentences(question, passages, limit=CANDIDATES, meaning=meaning)
            ranked = _addressing_first(question, ranked, passages, meaning)
        if not ranked or (cancel is not None and cancel.cancelled):
            return []
        top = ranked[0]
        claims = [Claim("c1", with_antecedent(top), (top.passage.passage_id,), "answer")]
        cond = condition_for(top)
        if cond is not None:
            claims.append(Claim("c2", cond.text, (top.passage.passage_id,), "condition"))
        for r in ranked[1:2]:
            if r.sentence.text not in {c.text for c in claims}:
                claims.append(Claim(f"c{len(claims) + 1}", r.sentence.text,
                                    (r.passage.passage_id,), "detail"))
        return claims
