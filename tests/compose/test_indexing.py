"""The app's background indexing: started by the folders, status lines, never a stray file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_agent.adapters.knowledge.knowledge_sqlite import SqliteKnowledgeIndex
from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.compose.knowledge import Indexing, KnowledgeFolders

CORPUS = Path(__file__).resolve().parents[1] / "data" / "knowledge" / "corpus"
pytestmark = pytest.mark.gui


@pytest.fixture()
def store(tmp_path: Path):
    s = Store(tmp_path / "assistant.sqlite3")
    yield s
    s.close()


def test_no_folders_and_no_index_makes_no_file(tmp_path: Path, store: Store) -> None:
    indexing = Indexing(store, KnowledgeFolders(), tmp_path / "knowledge.sqlite3")
    indexing.follow(())
    assert not (tmp_path / "knowledge.sqlite3").exists() and indexing.worker is None
    indexing.stop()


def test_following_folders_indexes_them_in_the_background(qtbot, tmp_path: Path,
                                                          store: Store) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS, docs)
    folders = KnowledgeFolders()
    indexing = Indexing(store, folders, tmp_path / "knowledge.sqlite3")
    try:
        _index_and_forget(qtbot, indexing, folders, docs, tmp_path)
    finally:
        indexing.stop()


def _index_and_forget(qtbot, indexing: Indexing, folders: KnowledgeFolders, docs: Path,
                      tmp_path: Path) -> None:
    lines: list[str] = []
    indexing.sig_status.connect(lines.append)
    with qtbot.waitSignal(indexing.sig_status, timeout=60_000,
                          check_params_cb=lambda text: text.startswith("Documents ready")):
        indexing.follow([str(docs)])
    assert folders.folders == (str(docs),) and bool(folders)
    assert "Indexing your documents: 1 of 4 (boiler_manual.pdf)" in lines  # 3 files + notes
    assert "Indexing your documents: 4 of 4 (your notes)" in lines
    index = SqliteKnowledgeIndex(tmp_path / "knowledge.sqlite3")
    assert index.search("what does E2 mean")
    # Folders removed in Settings: the documents leave the index.
    with qtbot.waitSignal(indexing.sig_status, timeout=60_000,
                          check_params_cb=lambda text: text.startswith("Documents ready")):
        indexing.follow(())
    assert not folders and not index.search("what does E2 mean")
    index.close()
