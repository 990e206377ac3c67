"""Tools by meaning, composed: built from the embedder, or off with one line in the log."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import desktop_agent.adapters.embed.embed_minilm as embed_minilm
from desktop_agent.compose.tool_meanings import tool_meanings
from desktop_agent.core.errors import ModelError
from desktop_agent.core.tools.semantic import labelled_examples


class TinyEmbedder:
    """Every text to one of four directions by its first letter; counts what it embeds."""

    model_id = "tiny"
    dimensions = 4

    def __init__(self) -> None:
        self.embedded = 0
        self.loaded = False

    def load(self) -> None:
        self.loaded = True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += len(texts)
        rows = np.zeros((len(texts), 4), dtype=np.float32)
        for i, t in enumerate(texts):
            rows[i, ord((t or "a")[0].lower()) % 4] = 1.0
        return rows


def test_the_router_is_built_once_and_its_vectors_kept(tmp_path: Path) -> None:
    engine = TinyEmbedder()
    router = tool_meanings(embedder=engine, cache=tmp_path)
    _, texts = labelled_examples()
    assert router is not None and engine.loaded and engine.embedded == len(texts)
    assert len(router.meanings) == len(texts)
    assert len(list(tmp_path.glob("tool-examples-*.npy"))) == 1
    again = TinyEmbedder()
    assert tool_meanings(embedder=again, cache=tmp_path) is not None
    assert again.embedded == 0  # read back from disk


def test_without_the_embedding_model_the_rules_alone_run_and_the_log_says_so_once(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        tmp_path: Path) -> None:
    def missing(*_args: object, **_kw: object) -> None:
        raise ModelError("embed_model_missing", "The sentence-embedding model x does not exist.",
                         "Run scripts/setup.sh.")

    monkeypatch.setattr(embed_minilm, "load_embedder", missing)
    caplog.set_level(logging.INFO)
    assert tool_meanings(cache=tmp_path) is None  # no exception
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    line = warnings[0].getMessage()
    assert "embed_model_missing" in line and "keyword rules" in line and "setup.sh" in line
    assert warnings[0].exc_info is None  # a line, never a traceback


def test_a_corrupt_model_at_load_is_the_same_line(caplog: pytest.LogCaptureFixture,
                                                  tmp_path: Path) -> None:
    class Corrupt(TinyEmbedder):
        def load(self) -> None:
            raise ModelError("embed_model_corrupt", "model.onnx could not be loaded.", "Reinstall.")

    caplog.set_level(logging.WARNING)
    assert tool_meanings(embedder=Corrupt(), cache=tmp_path) is None
    assert [r.getMessage().split(":")[0] for r in caplog.records] == [
        "turn=0 tools by meaning are off, tool requests are read by the keyword rules only"]
