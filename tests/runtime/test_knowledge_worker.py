"""The knowledge worker indexes a real temp folder on its own thread (pytest-qt)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QTimer, Slot

from desktop_agent.adapters.knowledge.knowledge_sqlite import SqliteKnowledgeIndex
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AgentError
from desktop_agent.core.knowledge.index import IndexProgress, IndexReport, ProgressSink
from desktop_agent.runtime.knowledge_worker import (
    KnowledgeWorker,
    start_knowledge_worker,
    stop_knowledge_worker,
)

pytestmark = pytest.mark.gui


class GatedIndexer:
    """The real index, held at the first file of each run until the test lets it go."""

    def __init__(self, index: SqliteKnowledgeIndex) -> None:
        self.index_ = index
        self.reached = threading.Event()
        self.release = threading.Event()
        self.threads: list[int] = []
        self.runs: list[tuple[str, ...]] = []

    def index(self, folders: Sequence[str], progress: ProgressSink | None = None,
              cancel: CancelToken | None = None) -> IndexReport:
        self.runs.append(tuple(folders))

        def gated(p: IndexProgress) -> None:
            self.threads.append(threading.get_ident())
            if not self.reached.is_set():
                self.reached.set()
                assert self.release.wait(30), "the test never released the indexer"
            assert progress is not None
            progress(p)

        return self.index_.index(folders, gated, cancel)


class Receiver(QObject):
    """Collects the worker's signals on the GUI thread (queued connections, as in the app)."""

    def __init__(self, worker: KnowledgeWorker) -> None:
        super().__init__()
        self.progressed: list[IndexProgress] = []
        self.finished: list[IndexReport] = []
        self.failed: list[AgentError] = []
        self.threads: set[int] = set()
        worker.sig_progressed.connect(self.on_progressed)
        worker.sig_finished.connect(self.on_finished)
        worker.sig_failed.connect(self.on_failed)

    @Slot(object)
    def on_progressed(self, progress: IndexProgress) -> None:
        self.threads.add(threading.get_ident())
        self.progressed.append(progress)

    @Slot(object)
    def on_finished(self, report: IndexReport) -> None:
        self.threads.add(threading.get_ident())
        self.finished.append(report)

    @Slot(object)
    def on_failed(self, error: AgentError) -> None:
        self.failed.append(error)


def _folder(root: Path, name: str, files: int) -> Path:
    folder = root / name
    folder.mkdir()
    for i in range(files):
        (folder / f"{name}{i}.md").write_text(f"# {name} {i}\n\nThe {name} page {i} text.")
    return folder


@pytest.fixture
def index(tmp_path: Path) -> Iterator[SqliteKnowledgeIndex]:
    ix = SqliteKnowledgeIndex(tmp_path / "knowledge.sqlite3")
    yield ix
    ix.close()


@pytest.fixture
def running(qtbot, index) -> Iterator[tuple[KnowledgeWorker, GatedIndexer]]:
    indexer = GatedIndexer(index)
    worker, thread = start_knowledge_worker(indexer)
    yield worker, indexer
    indexer.release.set()
    assert stop_knowledge_worker(worker, thread)


def test_indexes_on_its_thread_while_the_gui_thread_stays_free(qtbot, running, tmp_path,
                                                               index) -> None:
    worker, indexer = running
    got = Receiver(worker)
    docs = _folder(tmp_path, "manual", 4)
    worker.request([str(docs)])
    assert indexer.reached.wait(30)  # the worker is inside a run, held at file 1 ...
    ticked = []
    QTimer.singleShot(0, lambda: ticked.append(True))
    qtbot.waitUntil(lambda: bool(ticked))  # ... and the GUI thread still runs events
    assert worker.busy and got.finished == []
    indexer.release.set()
    qtbot.waitUntil(lambda: bool(got.finished), timeout=30_000)
    report = got.finished[0]
    assert isinstance(report, IndexReport) and report.added == 4 and report.problems == ()
    assert threading.get_ident() not in indexer.threads  # indexing ran off the GUI thread
    assert got.threads == {threading.get_ident()}  # the payloads arrive on the GUI thread
    assert [p.done for p in got.progressed] == [0, 1, 2, 3, 4]
    assert got.progressed[0].total == 4 and got.progressed[-1].current == ""
    assert "manual page 2" in index.search("manual page 2")[0].text
    qtbot.waitUntil(lambda: not worker.busy)


def test_a_new_request_cancels_the_run_and_the_newest_folders_win(qtbot, running,
                                                                  tmp_path, index) -> None:
    worker, indexer = running
    got = Receiver(worker)
    old, new = _folder(tmp_path, "old", 30), _folder(tmp_path, "new", 3)
    worker.request([str(old)])
    assert indexer.reached.wait(30)
    worker.request([str(tmp_path / "never")])  # coalesced: replaced before it runs
    worker.request([str(new)])
    indexer.release.set()
    qtbot.waitUntil(lambda: bool(got.finished) and not worker.busy, timeout=30_000)
    reports = got.finished
    assert indexer.runs == [(str(old),), (str(new),)]
    assert len(reports) == 1  # the cancelled run reported nothing
    assert (reports[0].added, reports[0].removed) == (3, 0)  # no old file got in
    assert {Path(f.file).parent.name for f in index.list_files()} == {"new"}


def test_a_failing_run_reports_and_the_worker_keeps_going(qtbot, tmp_path, index) -> None:
    class Flaky:
        calls = 0

        def index(self, folders, progress=None, cancel=None) -> IndexReport:
            Flaky.calls += 1
            if Flaky.calls == 1:
                raise OSError(28, "No space left on device")
            return index.index(folders, progress, cancel)

    worker, thread = start_knowledge_worker(Flaky())
    got = Receiver(worker)
    try:
        worker.request([str(_folder(tmp_path, "a", 1))])
        qtbot.waitUntil(lambda: bool(got.failed), timeout=30_000)
        error = got.failed[0]
        assert isinstance(error, AgentError) and error.code == "knowledge_index_failed"
        assert "No space left" in error.message and error.fix
        worker.request([str(tmp_path / "a")])
        qtbot.waitUntil(lambda: bool(got.finished), timeout=30_000)
        assert got.finished[0].added == 1 and got.finished[0].problems == ()
    finally:
        assert stop_knowledge_worker(worker, thread)
