"""A sentence embedder without a model: words of one meaning share a dimension.

``FakeEmbedder(synonyms=[{"fix", "repair", "repairs"}, ...])``: every word is one dimension
(hashed; a plural is its singular), except that the words of one synonym group share
theirs; a text's vector is the normalised count of its words' dimensions (a few stop words
left out). So two words of one
group have cosine 1.0, unrelated words 0.0, and a sentence is near another in proportion to
the words (or synonyms) they share: enough to test fusion, ranking and the paraphrase gate
exactly. The real model is tested in tests/adapters/embed/ and on the whole answer path in
tests/adapters/knowledge/test_answers_meaning_real.py.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Sequence

import numpy as np

from desktop_agent.core.errors import ModelError

DIMENSIONS = 384
_STOP = frozenset("""a an the is are of to in on at for and or i do does can my it be what who
how when where if""".split())


class FakeEmbedder:
    """Implements ``core.ports.Embedder``; counts the texts it embedded."""

    def __init__(self, synonyms: Iterable[Iterable[str]] = (), *, model_id: str = "fake-embed",
                 fail: bool = False) -> None:
        self._group: dict[str, str] = {}
        for group in synonyms:
            words = sorted(group)
            for w in words:
                self._group[w] = words[0]
        self._model_id = model_id
        self.fail = fail
        self.embedded: list[str] = []

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail:
            raise ModelError("embed_model_corrupt", "The fake model is damaged.", "Fix it.")
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for row, text in enumerate(texts):
            self.embedded.append(text)
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                if word in _STOP:
                    continue
                if len(word) > 3 and word.endswith("s") and word not in self._group:
                    word = word[:-1]  # "bikes" is "bike"
                key = self._group.get(word, word)
                out[row, zlib.crc32(key.encode()) % DIMENSIONS] += 1.0
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
        return out
