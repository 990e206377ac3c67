"""Similarity by meaning for the answer pipeline: sentence vectors from an ``Embedder``.

``Meaning`` wraps the sentence-embedding engine (``core.ports.Embedder``) for the three
places that compare by meaning: the index's meaning search (the question's vector), the
ranking of candidate sentences, and the support gate's paraphrase check (a question word
and its close paraphrase in the answer: "fix" ~ "repair", "shut" ~ "closed").

* Vectors are read as plain floats (core has no numpy) and cached by text (the last
  ``CACHE_SIZE`` texts: a question's candidate sentences are embedded once).
* Without the model, or after the engine fails, ``available`` is False, every method
  answers "no opinion" (None or 0.0) and the pipeline matches words only. That is logged
  once, with the engine's message and fix; never raised.

Runs on: the LLM worker thread (and the index's search, on the same thread). A lock makes
the cache safe from any thread.
"""

from __future__ import annotations

import logging
import math
import operator
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Final, Protocol

from desktop_agent.core.errors import AgentError

_LOGGER = logging.getLogger(__name__)

CACHE_SIZE: Final = 4096
"""Texts whose vectors are kept (about 1.5 KB each as Python floats: a few MB)."""
UNAVAILABLE: Final = "sentence embeddings are not available: answers match words only"


class Embedder(Protocol):
    """What ``Meaning`` needs of ``core.ports.Embedder``.

    Named here because ``core.ports`` imports this package, which cannot import it back.
    """

    @property
    def model_id(self) -> str:
        """Which model made the vectors."""
        ...

    def embed(self, texts: Sequence[str]) -> Any:
        """One unit vector per text (rows of floats); ``ModelError`` when it cannot."""
        ...


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return float(sum(map(operator.mul, a, b)))


class Meaning:
    """Cosine similarity of texts, from an ``Embedder`` (see the module docstring)."""

    def __init__(self, embedder: Embedder | None, *, cache_size: int = CACHE_SIZE) -> None:
        """Use ``embedder`` (None: no model; every answer is "no opinion")."""
        self._embedder = embedder
        self._cache: OrderedDict[str, tuple[float, ...]] = OrderedDict()
        self._cache_size = max(1, cache_size)
        self._lock = threading.Lock()
        self.problem = "" if embedder is not None else UNAVAILABLE
        """Why meaning is off ('' while it works): said once in the log."""

    @property
    def available(self) -> bool:
        """True while the embedding engine works."""
        return not self.problem

    @property
    def model_id(self) -> str:
        """The embedding model's id ('' without one): stored vectors carry it."""
        return self._embedder.model_id if self._embedder is not None else ""

    def vectors(self, texts: Sequence[str]) -> list[tuple[float, ...]] | None:
        """One unit vector per text (cached), or None when meaning is off.

        A failure of the engine turns meaning off for good (logged once).
        """
        if self._embedder is None or self.problem:
            return None
        with self._lock:
            found = {t: self._cache[t] for t in texts if t in self._cache}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            try:
                rows = self._embedder.embed(missing)
                fresh = [tuple(float(x) for x in row) for row in rows]
            except AgentError as exc:
                self._off(exc.describe())
                return None
            found.update(zip(missing, fresh, strict=True))
            with self._lock:
                self._cache.update(zip(missing, fresh, strict=True))
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return [found[t] for t in texts]

    def similarities(self, text: str, others: Sequence[str]) -> list[float] | None:
        """Cosine of ``text`` with each of ``others``, or None when meaning is off."""
        vecs = self.vectors([text, *others])
        if vecs is None:
            return None
        return [_cosine(vecs[0], v) for v in vecs[1:]]

    def closest(self, phrase: str, candidates: Sequence[str]) -> float:
        """The best cosine of ``phrase`` with any of ``candidates`` (0.0: none, or off)."""
        if not candidates:
            return 0.0
        sims = self.similarities(phrase, candidates)
        return max(sims) if sims else 0.0

    def _off(self, why: str) -> None:
        if not self.problem:
            self.problem = f"{UNAVAILABLE} ({why})"
            _LOGGER.warning("turn=0 %s", self.problem)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of two vectors (rows of an Embedder are unit length; a fake's may not be)."""
    na, nb = math.sqrt(_dot(a, a)), math.sqrt(_dot(b, b))
    return _dot(a, b) / (na * nb) if na > 0.0 and nb > 0.0 else 0.0
