"""Passage vectors in the real SQLite index (a fake embedder stands in for the model):
stored with their model id, computed incrementally, redone for a new model, dropped with
their passages, searched and fused when word search is weak, and never a failure without
the model. The real model on the whole answer path: test_answers_meaning_real.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from desktop_agent.adapters.knowledge.knowledge_db import SCHEMA_VERSION
from desktop_agent.adapters.knowledge.knowledge_sqlite import SqliteKnowledgeIndex
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge.meaning import Meaning
from tests.fakes.embed import FakeEmbedder

SYNONYMS = [{"open", "meets"}]
CLUB = "# Chess club\n\nThe chess club meets on Thursdays from 7 pm to 10 pm.\n"
POOL = "# Pool\n\nThe pool is open from 7 am on weekdays. Lanes are roped off.\n"
LIBRARY = "# Library\n\nBooks are lent for three weeks.\n"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "club.md").write_text(CLUB)
    (folder / "pool.md").write_text(POOL)
    (folder / "library.md").write_text(LIBRARY)
    return folder


def _index(tmp_path: Path, fake: FakeEmbedder | None) -> SqliteKnowledgeIndex:
    return SqliteKnowledgeIndex(tmp_path / "k.sqlite3",
                                meaning=Meaning(fake) if fake is not None else None)


def _vectors(path: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT p.file_key, v.model_id, length(v.vector) FROM vectors v "
            "JOIN passages p ON p.id = v.passage ORDER BY p.file_key").fetchall()


def test_vectors_are_stored_with_the_model_id_and_computed_once(tmp_path: Path,
                                                                 docs: Path) -> None:
    fake = FakeEmbedder(SYNONYMS)
    index = _index(tmp_path, fake)
    index.index([str(docs)])
    rows = _vectors(index.path)
    assert len(rows) == index.passage_count() == 3
    assert {(m, n) for _, m, n in rows} == {("fake-embed", 384 * 4)}
    embedded = len(fake.embedded)
    index.index([str(docs)])  # unchanged: nothing embedded again
    assert len(fake.embedded) == embedded
    (docs / "club.md").write_text(CLUB + "\nNew members are welcome.\n")
    index.index([str(docs)])  # only the changed file's passages
    assert len(fake.embedded) == embedded + 1 and "New members" in fake.embedded[-1]
    (docs / "pool.md").unlink()
    index.index([str(docs)])
    assert len(_vectors(index.path)) == index.passage_count() == 2  # gone with the passage
    index.close()


def test_a_new_model_re_embeds_everything(tmp_path: Path, docs: Path) -> None:
    _index(tmp_path, FakeEmbedder(model_id="old")).index([str(docs)])
    fake = FakeEmbedder(model_id="new")
    index = _index(tmp_path, fake)
    index.index([str(docs)])
    assert {m for _, m, _ in _vectors(index.path)} == {"new"} and len(fake.embedded) == 3


def test_a_cancelled_run_leaves_the_rest_for_the_next(tmp_path: Path, docs: Path) -> None:
    token = CancelToken()
    fake = FakeEmbedder()
    index = _index(tmp_path, fake)

    def cancel_at_vectors(progress):  # type: ignore[no-untyped-def]
        if progress.current == "vectors":
            token.cancel("test")

    index.index([str(docs)], cancel_at_vectors, token)
    assert _vectors(index.path) == []
    index.index([str(docs)])
    assert len(_vectors(index.path)) == 3


def test_weak_word_search_is_fused_with_meaning(tmp_path: Path, docs: Path) -> None:
    index = _index(tmp_path, FakeEmbedder(SYNONYMS))
    index.index([str(docs)])
    # BM25 alone: "open" only in the pool's passage, "chess club" in the club's.
    words_only = _index(tmp_path, None)
    assert [Path(p.file).name for p in words_only.search("When is the chess club open?")][0] \
        in {"pool.md", "club.md"}
    hits = index.search("When is the chess club open?", limit=3)
    assert Path(hits[0].file).name == "club.md"  # first by both rankings
    # Found by meaning alone: no word shared.
    by_meaning = index.semantic_search("thursdays meets", limit=1)
    assert Path(by_meaning[0].file).name == "club.md" and 0.0 < by_meaning[0].score <= 1.0
    # Strong word search is left as it was: same order as BM25.
    assert [p.passage_id for p in index.search("books lent weeks")] == \
        [p.passage_id for p in words_only.search("books lent weeks")]


def test_without_the_model_it_is_word_search_and_never_an_error(
        tmp_path: Path, docs: Path, caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeEmbedder(fail=True)
    index = _index(tmp_path, fake)
    report = index.index([str(docs)])  # no raise, files indexed
    assert report.passages == 3 and _vectors(index.path) == []
    assert index.search("chess club")  # words still work
    assert index.semantic_search("chess club") == []
    assert index.meaning is not None and not index.meaning.available
    assert sum("words only" in r.getMessage() for r in caplog.records) == 1


def test_an_index_of_schema_1_gains_the_vectors_and_keeps_its_passages(
        tmp_path: Path, docs: Path) -> None:
    index = _index(tmp_path, None)
    index.index([str(docs)])
    index.close()
    with sqlite3.connect(index.path) as conn:  # as version 1 left it
        conn.execute("DROP TRIGGER passages_vd")
        conn.execute("DROP TABLE vectors")
        conn.execute("PRAGMA user_version = 1")
    fake = FakeEmbedder()
    again = _index(tmp_path, fake)
    report = again.index([str(docs)])
    assert report.unchanged == 3 and report.added == 0  # passages kept
    assert len(_vectors(again.path)) == 3 and SCHEMA_VERSION == 2
    vec = np.frombuffer(sqlite3.connect(again.path).execute(
        "SELECT vector FROM vectors LIMIT 1").fetchone()[0], dtype="<f4")
    assert abs(float(np.linalg.norm(vec)) - 1.0) < 1e-5
