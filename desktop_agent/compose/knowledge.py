"""The user's documents, composed: the index over the knowledge folders and the claim proposer.

One place builds them for ``ask --knowledge``, ``bench answers``, ``knowledge index`` and the
app, so all answer from the same index with the same proposer. Meaning search (sentence
vectors, ``shared_meaning``) is loaded once per process; without the embedding model every
part works on words alone, and the log says so once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from desktop_agent.adapters.knowledge.knowledge_sqlite import VECTORS_PROGRESS, SqliteKnowledgeIndex
from desktop_agent.core.errors import AgentError
from desktop_agent.core.knowledge import ClaimProposer, LexicalProposer, Meaning
from desktop_agent.core.knowledge.index import IndexProgress, IndexReport

_LOGGER = logging.getLogger(__name__)
_MEANING_LOCK = threading.Lock()
_MEANING: list[Meaning] = []


def shared_meaning() -> Meaning:
    """The process's ``Meaning`` over the sentence-embedding model (built at the first call).

    The model itself loads at the first vector. Without it (not installed, damaged) the
    ``Meaning`` is off and answers use words alone: logged once, never raised.
    Runs on: any thread.
    """
    with _MEANING_LOCK:
        if not _MEANING:
            from desktop_agent.adapters.embed.embed_minilm import load_embedder

            try:
                _MEANING.append(Meaning(load_embedder()))
            except AgentError as exc:
                meaning = Meaning(None)
                meaning.problem = f"{meaning.problem} ({exc.describe()})"
                _LOGGER.warning("turn=0 %s", meaning.problem)
                _MEANING.append(meaning)
        return _MEANING[0]


def new_index(path: Path | None = None, notes: Callable[[], Any] | None = None,
              ) -> SqliteKnowledgeIndex:
    """The knowledge index at ``path`` (default: the user data dir) with meaning search."""
    return SqliteKnowledgeIndex(path, notes=notes, meaning=shared_meaning())


def check_folders(folders: Sequence[str | Path]) -> list[str]:
    """The folders as absolute paths; AgentError naming the first one that is not a folder."""
    out = []
    for folder in folders:
        path = Path(folder).expanduser()
        if not path.is_dir():
            raise AgentError("knowledge_folder_missing", f"{path} is not a folder.",
                             "Give a folder of your documents (Markdown, text or PDF).")
        out.append(str(path.resolve()))
    return out


def open_index(folders: Sequence[str | Path], index_path: Path | None = None,
               notes: Callable[[], Any] | None = None,
               progress: Callable[[IndexProgress], None] | None = None,
               ) -> tuple[SqliteKnowledgeIndex, IndexReport]:
    """Open the index and bring it up to date with ``folders`` (new, changed, deleted files).

    Unreadable files are listed in the report, never fatal.
    """
    index = new_index(index_path, notes=notes)
    report = index.index(check_folders(folders), progress)
    for problem in report.problems:
        _LOGGER.info("knowledge: not indexed: %s (%s)", problem.file, problem.reason)
    return index, report


def make_proposer(llm: Any | None, kind: str = "lexical") -> ClaimProposer:
    """The claim proposer for answers (``knowledge.proposer``).

    'lexical' (the default, chosen from ``bench answers``: as accurate on the fixtures and
    about 2 s sooner) quotes the best-ranked sentence (ranked by meaning too, with the
    shared ``Meaning``); 'model' lets the local model pick among the best sentences
    (constrained to their ids). Without a local model (none loaded, or a server's) it is
    always the lexical one. With two local models (``CompositeLlm``) the small one picks:
    the words are the document's, not the model's.
    """
    from desktop_agent.compose.reflection import local_model

    local = local_model(llm)
    if kind != "model" or local is None:
        return LexicalProposer(shared_meaning())
    from desktop_agent.adapters.llm.llm_claims import LlmClaimProposer

    return LlmClaimProposer(local)


class KnowledgeFolders:
    """The knowledge folders now chosen (Settings may change them while the app runs).

    Runs on: any thread (a tuple is replaced whole; readers see the old or the new one).
    """

    def __init__(self, folders: Sequence[str] = ()) -> None:
        """Start with ``folders``."""
        self.folders: tuple[str, ...] = tuple(folders)

    def __bool__(self) -> bool:
        return bool(self.folders)


def with_knowledge(llm: Any, store: Any, folders: KnowledgeFolders,
                   index_path: Path | None = None, proposer: str = "lexical") -> Any:
    """``llm`` wrapped so that questions about the user's documents get grounded answers.

    The index (in the user data dir) and the proposer are opened at the first turn that
    needs them: with no knowledge folders chosen nothing is opened and every turn goes to
    ``llm``. The app's knowledge worker keeps the index up to date. Runs on: the LLM thread.
    """
    from desktop_agent.core.conversation.knowledge_llm import KnowledgeLlm

    return KnowledgeLlm(llm, _Lazy(lambda: new_index(index_path, notes=store.list_notes)),
                        _Lazy(lambda: make_proposer(llm, proposer)),
                        active=lambda: bool(folders))


class _Lazy:
    """Builds its object on first use, then forwards every attribute to it."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build: Callable[[], Any] | None = build
        self._obj: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._build is not None:
            self._obj, self._build = self._build(), None
        return getattr(self._obj, name)


def passage_lookup(index_path: Path | None = None) -> Callable[[str], str | None]:
    """Evidence id -> the whole passage text, for the evidence panel (None when gone).

    The index is opened at the first lookup. Runs on: the GUI thread.
    """
    index = _Lazy(lambda: SqliteKnowledgeIndex(index_path))

    def lookup(passage_id: str) -> str | None:
        try:
            passage = index.passage(passage_id)
        except Exception as exc:  # the panel then shows the quote alone
            _LOGGER.warning("knowledge: passage lookup failed: %s", exc)
            return None
        return None if passage is None else str(passage.text)

    return lookup


class Indexing(QObject):
    """The app's background indexing: the worker, its thread, and the folders it follows.

    ``follow(folders)`` (at start and whenever Settings are saved) updates the folders the
    LLM thread answers from and asks the worker to bring the index up to date; the worker
    cancels a run in progress and never blocks a turn (its own thread, its own connection).

    Runs on: GUI thread.
    """

    sig_status = Signal(str)
    """A status line: progress while indexing, a summary when done ('' clears it)."""

    def __init__(self, store: Any, folders: KnowledgeFolders,
                 index_path: Path | None = None) -> None:
        """Nothing starts until folders are chosen (or an index from before exists)."""
        from desktop_agent.adapters.knowledge.knowledge_sqlite import default_index_path

        super().__init__()
        self.folders = folders
        self._store = store
        self._path = index_path or default_index_path()
        self._index: SqliteKnowledgeIndex | None = None
        self.worker: Any = None
        self.thread: Any = None

    def follow(self, folders: Sequence[str]) -> None:
        """Answer from ``folders`` from now on and index them (none: the index is emptied)."""
        from desktop_agent.runtime.knowledge_worker import start_knowledge_worker

        self.folders.folders = tuple(folders)
        if self.worker is None:
            if not folders and not self._path.exists():
                return  # nothing to index and nothing to forget: no file is made
            self._index = new_index(self._path, notes=self._store.list_notes)
            self.worker, self.thread = start_knowledge_worker(self._index)
            # Bound slots of this GUI-thread object: queued across the thread boundary.
            self.worker.sig_progressed.connect(self._on_worker_progressed)
            self.worker.sig_finished.connect(self._on_worker_finished)
            self.worker.sig_failed.connect(self._on_worker_failed)
        self.worker.request(self.folders.folders)

    @Slot(object)
    def _on_worker_progressed(self, progress: IndexProgress) -> None:
        self.sig_status.emit(progress_text(progress))

    @Slot(object)
    def _on_worker_finished(self, report: IndexReport) -> None:
        self.sig_status.emit(report_text(report))

    @Slot(object)
    def _on_worker_failed(self, exc: object) -> None:
        self.sig_status.emit(f"Your documents could not be indexed: {exc}")

    def stop(self) -> None:
        """Cancel a run in progress and end the thread (shutdown)."""
        from desktop_agent.runtime.knowledge_worker import stop_knowledge_worker

        if self.worker is not None:
            stop_knowledge_worker(self.worker, self.thread)
        if self._index is not None:
            self._index.close()


def progress_text(progress: IndexProgress) -> str:
    """The status line while indexing: 'Indexing your documents: 3 of 10 (manual.pdf)'."""
    if not progress.current:
        return ""
    what = {"notes": "your notes", VECTORS_PROGRESS: "meaning search"}.get(
        progress.current) or Path(progress.current).name
    return f"Indexing your documents: {progress.done + 1} of {progress.total} ({what})"


def report_text(report: IndexReport) -> str:
    """The status line after indexing, e.g. 'Documents ready: 120 passages; 1 file skipped'."""
    text = f"Documents ready: {report.passages} passages"
    if report.problems:
        n = len(report.problems)
        text += f"; {n} file{'s' if n != 1 else ''} not read (see `desktop-agent knowledge list`)"
    return text
