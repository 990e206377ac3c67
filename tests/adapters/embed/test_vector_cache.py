"""Fixed texts' vectors kept on disk: read back when they fit, embedded again when they do not."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from desktop_agent.adapters.embed.vector_cache import cached_vectors

TEXTS = ("set a timer", "what time is it", "hello")


class CountingEmbedder:
    """Deterministic 4-dimension vectors from the text's length; counts the texts embedded."""

    model_id = "counting"
    dimensions = 4

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        rows = np.array([[len(t), 1.0, 0.0, 2.0] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_the_first_call_embeds_and_keeps_the_second_reads(tmp_path: Path) -> None:
    engine = CountingEmbedder()
    first = cached_vectors(engine, TEXTS, "k1", tmp_path / "vectors")
    assert engine.embedded == 3 and (tmp_path / "vectors" / "k1.npy").is_file()
    again = cached_vectors(engine, TEXTS, "k1", tmp_path / "vectors")
    assert engine.embedded == 3  # read back, not embedded
    np.testing.assert_array_equal(first, again)
    assert again.dtype == np.float32 and again.shape == (3, 4)
    assert [p.name for p in (tmp_path / "vectors").iterdir()] == ["k1.npy"]  # no temp left


def test_another_key_is_another_file(tmp_path: Path) -> None:
    engine = CountingEmbedder()
    cached_vectors(engine, TEXTS, "k1", tmp_path)
    cached_vectors(engine, TEXTS[:2], "k2", tmp_path)
    assert engine.embedded == 5


@pytest.mark.parametrize("content", [b"", b"not a numpy file", b"\x93NUMPY\x01\x00garbage"])
def test_a_damaged_file_is_embedded_again_and_rewritten(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "k.npy").write_bytes(content)
    engine = CountingEmbedder()
    rows = cached_vectors(engine, TEXTS, "k", tmp_path)
    assert engine.embedded == 3 and rows.shape == (3, 4)
    assert np.load(tmp_path / "k.npy").shape == (3, 4)


def test_a_file_of_the_wrong_shape_is_not_trusted(tmp_path: Path) -> None:
    np.save(tmp_path / "k.npy", np.zeros((2, 4), dtype=np.float32))
    engine = CountingEmbedder()
    assert cached_vectors(engine, TEXTS, "k", tmp_path).shape == (3, 4)
    assert engine.embedded == 3


def test_a_folder_that_cannot_be_written_costs_only_the_time(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the folder should be")
    engine = CountingEmbedder()
    rows = cached_vectors(engine, TEXTS, "k", blocked / "vectors")
    assert rows.shape == (3, 4) and engine.embedded == 3
