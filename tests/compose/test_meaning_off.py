"""Without the sentence-embedding model, the documents are searched and answered by words
alone: the composition says so once and never raises."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from desktop_agent.compose import knowledge
from desktop_agent.core.errors import ModelError


def test_a_missing_embedding_model_means_words_alone_said_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    from desktop_agent.adapters.embed import embed_minilm

    def missing(*args: object, **kwargs: object) -> None:
        raise ModelError("embed_model_missing", "The sentence-embedding model is missing.",
                         "Install it.")

    monkeypatch.setattr(embed_minilm, "load_embedder", missing)
    monkeypatch.setattr(knowledge, "_MEANING", [])
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "club.md").write_text("The chess club meets on Thursdays.\n")
    with caplog.at_level(logging.WARNING):
        index, report = knowledge.open_index([docs], tmp_path / "k.sqlite3")
        proposer = knowledge.make_proposer(None)
        hits = index.search("When is the chess club open?")
    index.close()
    assert report.passages == 1 and hits  # word search as before
    assert index.meaning is knowledge.shared_meaning() and not index.meaning.available
    assert getattr(proposer, "meaning", None) is index.meaning
    said = [r.getMessage() for r in caplog.records if "words only" in r.getMessage()]
    assert len(said) == 1 and "embed_model_missing" in said[0]
