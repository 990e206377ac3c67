"""Nearest labelled examples by cosine similarity: pure Python over sentence vectors.

What a meaning-based router needs ("which tool's example sentences is this utterance nearest
to?") and what a retriever fuses with word matching: labelled example vectors, indexed once
(each row normalised once), then the k best for a query, optionally at most ``per_label``
of each label (``per_label=1`` gives the best example of every label).

The vectors come from an ``Embedder`` (``core/ports.py``) as numpy rows; core never imports
numpy, so rows are read as plain floats once, at indexing. A query against a few hundred
384-dimension examples costs a few milliseconds here; a caller that already has the scores
(a numpy matrix product over many thousand passages) ranks them with ``rank`` alone.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Neighbour:
    """One example near the query."""

    label: str
    """The example's label (e.g. the tool it is an example of)."""
    index: int
    """The example's row, in the order the examples were given."""
    score: float
    """Cosine similarity with the query, in [-1, 1] (0.0 against a zero vector)."""


def _dot(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return float(sum(map(operator.mul, a, b)))


def _unit(vector: Iterable[float]) -> tuple[float, ...]:
    """``vector`` as plain floats scaled to length 1 (a zero vector stays zero)."""
    values = tuple(float(x) for x in vector)
    norm = math.sqrt(_dot(values, values))
    return tuple(x / norm for x in values) if norm > 0.0 else values


def cosine(a: Iterable[float], b: Iterable[float]) -> float:
    """Cosine similarity of two vectors of one length (0.0 when either is all zeros).

    Raises:
        ValueError: the vectors differ in length.
    """
    ua, ub = _unit(a), _unit(b)
    if len(ua) != len(ub):
        raise ValueError(f"vectors of length {len(ua)} and {len(ub)} cannot be compared")
    return _dot(ua, ub)


def rank(scores: Sequence[float], labels: Sequence[str], k: int,
         per_label: int | None = None) -> list[Neighbour]:
    """The ``k`` highest scores, best first; ties go to the earlier example.

    Args:
        scores: one score per example (e.g. cosine similarities computed elsewhere).
        labels: one label per example, in the same order.
        k: how many neighbours to return at most (0 gives none).
        per_label: at most this many neighbours of any one label (None: no limit).

    Raises:
        ValueError: ``scores`` and ``labels`` differ in length, or ``k``/``per_label`` < 0.
    """
    if len(scores) != len(labels):
        raise ValueError(f"{len(scores)} scores but {len(labels)} labels")
    if k < 0 or (per_label is not None and per_label < 0):
        raise ValueError("k and per_label must not be negative")
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    if per_label is None:
        order = order[:k]
    out: list[Neighbour] = []
    taken: dict[str, int] = {}
    for i in order:
        if len(out) == k:
            break
        if per_label is not None and taken.get(labels[i], 0) >= per_label:
            continue
        taken[labels[i]] = taken.get(labels[i], 0) + 1
        out.append(Neighbour(labels[i], i, float(scores[i])))
    return out


class ExampleIndex:
    """Labelled example vectors, each normalised once, ranked against a query by cosine."""

    def __init__(self, labels: Sequence[str], vectors: Iterable[Iterable[float]]) -> None:
        """Index the examples.

        Args:
            labels: one label per example (several examples may share a label).
            vectors: one vector per example, all of one length (e.g. the rows of an
                ``Embedder.embed`` result).

        Raises:
            ValueError: the counts differ, or the vectors differ in length.
        """
        self.labels: tuple[str, ...] = tuple(labels)
        self._rows = [_unit(v) for v in vectors]
        if len(self._rows) != len(self.labels):
            raise ValueError(f"{len(self.labels)} labels but {len(self._rows)} vectors")
        lengths = {len(r) for r in self._rows}
        if len(lengths) > 1:
            raise ValueError(f"the example vectors differ in length: {sorted(lengths)}")
        self.dimensions: int = lengths.pop() if lengths else 0
        """Length of every example vector (0 for an empty index)."""

    def __len__(self) -> int:
        """Number of examples."""
        return len(self._rows)

    def scores(self, query: Iterable[float]) -> list[float]:
        """Cosine similarity of ``query`` with every example, in example order.

        Raises:
            ValueError: ``query`` is not as long as the examples.
        """
        q = _unit(query)
        if self._rows and len(q) != self.dimensions:
            raise ValueError(f"a query of length {len(q)} against examples of length "
                             f"{self.dimensions}")
        return [_dot(q, row) for row in self._rows]

    def nearest(self, query: Iterable[float], k: int = 5,
                per_label: int | None = None) -> list[Neighbour]:
        """The ``k`` examples nearest to ``query``, best first (see ``rank``)."""
        return rank(self.scores(query), self.labels, k, per_label)

    def best_per_label(self, query: Iterable[float]) -> list[Neighbour]:
        """Every label once, with its nearest example, best label first."""
        return self.nearest(query, k=len(set(self.labels)), per_label=1)

