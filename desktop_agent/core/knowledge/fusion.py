"""Word search and meaning search combined: reciprocal rank fusion, and when to use it.

BM25 finds a passage that shares the question's words; a question put the way people talk
("when is the club *open*?" of a notice that says when it *meets*) shares few of them. So
the index ranks passages by meaning too (cosine of sentence vectors), and the two rankings
are fused by their ranks, not their scores (BM25 and cosine are on different scales):

    fused(p) = sum over rankings r of 1 / (RRF_K + rank_r(p))      (rank from 1)

(Cormack, Clarke and Buettcher, SIGIR 2009; ``RRF_K`` = 60 as there). A passage that only
one ranking found still counts, once.

Fusion runs only when word search is weak (``lexically_weak``): when the best passages
already hold every topic word of the question, they are kept as they are, so a question
that names a fault code or a word of the text is answered exactly as before.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Final, TypeVar

from desktop_agent.core.knowledge.claim_text import topic_terms
from desktop_agent.core.knowledge.index import Passage

RRF_K: Final = 60
"""Rank offset of reciprocal rank fusion: larger flattens the difference between ranks."""
MIN_SEMANTIC_SCORE: Final = 0.25
"""Least cosine for a passage that only the meaning search found (an unrelated passage of
all-MiniLM-L6-v2 scores about 0.0-0.2 against a question)."""
WEAK_COVERAGE: Final = 1.0
"""Word search is weak when no passage it found holds at least this share of the
question's topic words (1.0: when each of them lacks one)."""

K = TypeVar("K", bound=Hashable)


def reciprocal_rank_fusion(rankings: Sequence[Sequence[K]], k: int = RRF_K) -> list[K]:
    """The items of ``rankings`` (each best first) by fused rank, best first.

    Ties keep the order in which the items were first seen (the first ranking first).

    Raises:
        ValueError: ``k`` is negative.
    """
    if k < 0:
        raise ValueError("k must not be negative")
    score: dict[K, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(dict.fromkeys(ranking), 1):
            score[item] = score.get(item, 0.0) + 1.0 / (k + rank)
    order = {item: i for i, item in enumerate(score)}
    return sorted(score, key=lambda item: (-score[item], order[item]))


def lexically_weak(question: str, passages: Sequence[Passage]) -> bool:
    """True when word search needs help for ``question``.

    That is when no passage of ``passages`` holds (with its title) every topic word of
    the question. Each passage on its own: "open" in the pool's hours and "chess club" in the notice
    board do not make "when is the chess club open?" a strong match.
    """
    terms = set(topic_terms(question))
    if not terms:
        return False
    best = max((len(terms & set(topic_terms(f"{p.title} {p.text}"))) / len(terms)
                for p in passages), default=0.0)
    return best < WEAK_COVERAGE


def fuse_passages(lexical: Sequence[Passage], semantic: Sequence[Passage],
                  limit: int) -> list[Passage]:
    """``lexical`` (BM25, best first) fused with ``semantic`` (cosine, best first).

    A passage found only by meaning must score at least ``MIN_SEMANTIC_SCORE``; each
    passage keeps its own ``score`` (BM25 if word search found it, else its cosine).
    """
    semantic = [p for p in semantic if p.score >= MIN_SEMANTIC_SCORE
                or any(p.passage_id == q.passage_id for q in lexical)]
    by_id = {p.passage_id: p for p in semantic}
    by_id.update({p.passage_id: p for p in lexical})
    order = reciprocal_rank_fusion([[p.passage_id for p in lexical],
                                    [p.passage_id for p in semantic]])
    return [by_id[i] for i in order[:max(0, limit)]]
