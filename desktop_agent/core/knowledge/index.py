"""The knowledge port: the user's documents as passages with stable evidence ids.

The index (``adapters/knowledge/knowledge_sqlite.py``) and the grounded-answer pipeline
(``core/knowledge/``) meet here and nowhere else. A passage id is stable for a
given content version of a file: ``"<file key>@<sha256 prefix>#<start>-<end>"``
(character offsets into the extracted text), so evidence recorded with a spoken
unit can be shown, opened and checked later, and a changed file yields new ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from desktop_agent.core.cancel import CancelToken


@dataclass(frozen=True, slots=True)
class Passage:
    """One retrievable span of one document."""

    passage_id: str
    """Stable evidence id: file key, content hash prefix, character span."""
    file: str
    """Absolute path of the source file, or ``"notes:"`` + note id for a store note."""
    title: str
    """What to show for the source: the file name, or "Note" for a note."""
    text: str
    """The passage text exactly as extracted (what a claim is checked against)."""
    start: int
    """Character offset of the passage in the extracted document text."""
    end: int
    """Character offset one past the passage's last character."""
    score: float = 0.0
    """Retrieval score for this query, higher is better (0 when not retrieved)."""
    page: int | None = None
    """1-based page number for a PDF passage, None otherwise."""


@dataclass(frozen=True, slots=True)
class IndexProblem:
    """A file that was not indexed, and why (shown to the user, never fatal)."""

    file: str
    reason: str
    """A sentence the user can act on, e.g. "not a text file (binary)"."""


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Progress of one indexing run (emitted per file)."""

    done: int
    total: int
    current: str
    """The file being indexed now ("" when finished)."""


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What one indexing run did."""

    added: int
    updated: int
    removed: int
    unchanged: int
    passages: int
    """Passages in the index after the run."""
    problems: tuple[IndexProblem, ...] = ()
    seconds: float = 0.0


class KnowledgeIndex(Protocol):
    """Search over the user's documents.

    ``search`` is safe to call from a worker thread while another thread indexes
    (the adapter uses its own SQLite connection per thread).
    """

    def search(self, query: str, limit: int = 5) -> Sequence[Passage]:
        """Passages for a spoken query, best first; [] when nothing matches.

        Any text is accepted: spoken punctuation ("what's", "C++") never raises.
        """
        ...

    def passage(self, passage_id: str) -> Passage | None:
        """The passage with this evidence id, or None when it left the index."""
        ...


class KnowledgeIndexer(Protocol):
    """Keeps the index in step with the knowledge folders."""

    def index(
        self,
        folders: Sequence[str],
        progress: ProgressSink | None = None,
        cancel: CancelToken | None = None,
    ) -> IndexReport:
        """Index new and changed files, drop deleted ones.

        Runs on: a worker thread. Never raises for one bad file: it is listed in
        ``IndexReport.problems`` and the rest goes on.
        """
        ...


class ProgressSink(Protocol):
    """Receives indexing progress."""

    def __call__(self, progress: IndexProgress) -> None:
        """Called once per file, on the indexing thread."""
        ...
