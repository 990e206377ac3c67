"""Index the knowledge folders in the background, so indexing never blocks a turn.

``KnowledgeWorker`` lives on its own QThread (``start_knowledge_worker``). The GUI thread
calls ``request(folders)`` (at start-up, and whenever Settings change the folders): the
request is stored under a lock and the run in progress, if any, is cancelled through its
``CancelToken`` (a queued slot call would not reach a busy worker); the worker then runs
the latest request. Requests that arrive while a run is busy coalesce into one run over
the newest folders.

Signals carry frozen payloads from ``core.knowledge.index``: ``sig_progressed(IndexProgress)``
per file, ``sig_finished(IndexReport)`` after each completed run. A cancelled run reports
nothing (the run that replaced it does); a run that fails reports ``sig_failed`` with an
``AgentError``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AgentError
from desktop_agent.core.knowledge.index import IndexProgress, KnowledgeIndexer

_LOGGER = logging.getLogger(__name__)


class KnowledgeWorker(QObject):
    """Runs ``KnowledgeIndexer.index`` for the latest requested folders.

    Runs on: its own QThread (the slots); ``request`` and ``cancel`` on any thread.
    """

    sig_progressed = Signal(object)
    """IndexProgress: the file being indexed now, and how many of how many are done."""
    sig_finished = Signal(object)
    """IndexReport: what a completed run did (added, updated, removed, problems, ...)."""
    sig_failed = Signal(object)
    """AgentError: the run stopped (e.g. the index file cannot be written)."""
    _sig_requested = Signal()
    """Internal: a request is waiting (queued to the worker's thread)."""

    def __init__(self, indexer: KnowledgeIndexer) -> None:
        """Keep ``indexer``; create the worker on the GUI thread, then move it."""
        super().__init__()
        self._indexer = indexer
        self._lock = threading.Lock()
        self._pending: tuple[str, ...] | None = None
        self._token: CancelToken | None = None
        # Queued even when emitted on the worker's own thread: a request made from inside
        # a run (a progress slot) must not start a nested run.
        self._sig_requested.connect(self._on_self_requested, Qt.ConnectionType.QueuedConnection)

    def request(self, folders: Sequence[str]) -> None:
        """Index ``folders`` soon (replacing any earlier request; a busy run is cancelled).

        Runs on: any thread (usually the GUI thread). Returns at once.
        """
        with self._lock:
            self._pending = tuple(folders)
            if self._token is not None:
                self._token.cancel("new knowledge folders")
        self._sig_requested.emit()

    def cancel(self) -> None:
        """Drop a waiting request and stop the run in progress between two files.

        Runs on: any thread (shutdown calls it before quitting the thread).
        """
        with self._lock:
            self._pending = None
            if self._token is not None:
                self._token.cancel("shutdown")

    @property
    def busy(self) -> bool:
        """True while a run is in progress or waiting."""
        with self._lock:
            return self._token is not None or self._pending is not None

    @Slot()
    def _on_self_requested(self) -> None:
        """Run the waiting request, then any that arrived meanwhile. Runs on: worker thread."""
        while True:
            with self._lock:
                folders, self._pending = self._pending, None
                if folders is None:
                    self._token = None
                    return
                token = self._token = CancelToken()
            try:
                report = self._indexer.index(folders, self._on_indexer_progressed, token)
            except AgentError as exc:
                self.sig_failed.emit(exc)
                continue
            except Exception as exc:  # a failed run must report, never kill the thread
                _LOGGER.exception("turn=0 knowledge indexing failed")
                self.sig_failed.emit(AgentError(
                    "knowledge_index_failed",
                    f"Indexing your documents failed ({type(exc).__name__}: {exc}).",
                    "Check that the data folder is writable, then save Settings again."))
                continue
            if token.cancelled:
                _LOGGER.info("turn=0 knowledge run cancelled (%s)", token.reason)
                continue
            self.sig_finished.emit(report)

    def _on_indexer_progressed(self, progress: IndexProgress) -> None:
        """Runs on: worker thread (the indexer's progress sink)."""
        self.sig_progressed.emit(progress)


def start_knowledge_worker(indexer: KnowledgeIndexer) -> tuple[KnowledgeWorker, QThread]:
    """A worker for ``indexer`` on a new, started QThread (``thread.finished`` deletes it).

    Runs on: GUI thread. Keep both references; stop with ``stop_knowledge_worker``.
    """
    worker = KnowledgeWorker(indexer)
    thread = QThread()
    thread.setObjectName("knowledge")
    worker.moveToThread(thread)
    thread.finished.connect(worker.deleteLater)
    thread.start()
    return worker, thread


def stop_knowledge_worker(worker: KnowledgeWorker, thread: QThread,
                          timeout_ms: int = 10_000) -> bool:
    """Cancel the run in progress and end the thread; True when it ended in time.

    Runs on: GUI thread. The run stops between two files, so the wait is one file's time.
    """
    worker.cancel()
    thread.quit()
    return bool(thread.wait(timeout_ms))
