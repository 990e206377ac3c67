"""The knowledge index: the user's documents as passages in one SQLite file (FTS5, BM25).

Implements ``core.knowledge.index.KnowledgeIndex`` and ``KnowledgeIndexer``.

* One file (default ``<user data dir>/knowledge.sqlite3``), WAL, one connection per
  thread: ``search`` on a worker thread runs while another thread indexes (readers see the
  last committed file). One indexing run at a time (a lock).
* Passages (``core/text/passages.py``) are stored with their evidence id
  ``"<file key>@<sha256 prefix>#<start>-<end>"``; the file key is the absolute path, or
  ``notes:<id>`` for a note from the assistant's store. An FTS5 table (porter stemming,
  unicode61, diacritics folded) indexes the passage text and the document title.
* Incremental (``knowledge_files``): a file whose size and mtime are unchanged is not
  read; a changed file whose content hash is unchanged only has its size and mtime updated;
  a new hash replaces its passages (new ids). Files that left the folders (deleted, or the
  folder removed from the list) leave the index. Each file is committed on its own, so a
  cancel between files leaves a consistent index.
* A file that cannot be indexed is an ``IndexProblem`` with the reason (remembered with
  its size and mtime, so an unchanged bad file is not parsed again); it never stops the
  rest.
* Meaning search (optional, with a ``Meaning`` over the sentence-embedding engine): each
  passage's vector is computed at indexing (``knowledge_vectors``: incremental, a changed
  model re-embeds) and, when word search is weak for a question (``core.knowledge.fusion``),
  BM25 is fused with the cosine ranking by reciprocal rank. Without the model it is word
  search alone, said once in the log.
* The index is derived data: a damaged file is moved aside as
  ``knowledge.sqlite3.corrupt-<time>`` and rebuilt from the documents, and the report says
  so as a problem; nothing else is lost.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from desktop_agent.adapters.knowledge.doc_text import walk_folders
from desktop_agent.adapters.knowledge.knowledge_db import (
    FILE_NAME,
    ThreadConnections,
    default_index_path,
    is_corrupt,
)
from desktop_agent.adapters.knowledge.knowledge_files import (
    HASH_CHARS,
    IndexRun,
    NoteLike,
    drop_missing,
    index_file,
    index_notes,
)
from desktop_agent.adapters.knowledge.knowledge_vectors import VectorSearch, embed_missing
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge.fusion import fuse_passages, lexically_weak
from desktop_agent.core.knowledge.index import (
    IndexProblem,
    IndexProgress,
    IndexReport,
    Passage,
    ProgressSink,
)
from desktop_agent.core.knowledge.meaning import Meaning
from desktop_agent.core.text.fts_query import fts_match

__all__ = ["FILE_NAME", "IndexedFile", "SqliteKnowledgeIndex", "default_index_path"]
_LOGGER = logging.getLogger(__name__)

_TITLE_WEIGHT: Final = 0.3
"""BM25 weight of the document title against 1.0 for the passage text."""
VECTORS_PROGRESS: Final = "vectors"
"""``IndexProgress.current`` while passage vectors are computed."""
FUSION_DEPTH: Final = 3
"""Each ranking fused is ``limit`` times this deep (a passage ranked 6th by both wins)."""


@dataclass(frozen=True, slots=True)
class IndexedFile:
    """One row of ``list_files``."""

    file: str
    title: str
    kind: str
    passages: int
    version: str
    """The content hash prefix in this file's passage ids."""
    indexed_at: float
    """UTC epoch seconds."""
    pages: int | None = None
    note: str = ""


class SqliteKnowledgeIndex:
    """The knowledge index in one SQLite file.

    Runs on: any thread (one connection per thread; one indexing run at a time).
    """

    def __init__(self, path: Path | None = None,
                 notes: Callable[[], Iterable[NoteLike]] | None = None,
                 clock: Callable[[], float] = time.time, meaning: Meaning | None = None,
                 ) -> None:
        """Open (creating if needed) the index at ``path``.

        Args:
            path: The SQLite file (default: ``default_index_path()``).
            notes: Returns the user's current notes, indexed as ``notes:<id>``; None to
                leave notes out.
            clock: UTC epoch seconds, for ``indexed_at`` and the corrupt file's name.
            meaning: Sentence vectors for meaning search (None: word search only).
        """
        self.path = Path(path) if path is not None else default_index_path()
        self.meaning = meaning
        """The index's ``Meaning`` (None: word search only); the answer pipeline uses it too."""
        self._vectors = VectorSearch()
        self._notes = notes
        self._clock = clock
        self._db = ThreadConnections(self.path)
        self._index_lock = threading.Lock()
        self.rebuilt_from: Path | None = None
        """Where a damaged index file was moved (None when none was)."""
        try:
            self._db.get()
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise
            self._rebuild(exc)

    def close(self) -> None:
        """Close every thread's connection (a later call reopens this thread's)."""
        self._db.close()

    def _rebuild(self, exc: BaseException) -> None:
        """Move a damaged index aside and start an empty one (the caller re-indexes)."""
        self.rebuilt_from = self._db.move_aside(exc, self._clock())

    # --- search ---------------------------------------------------------------------------

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        """Passages for a spoken query, best first; [] when nothing matches.

        BM25; when that is weak for the query (``lexically_weak``) and meaning search is on,
        fused with the passages nearest in meaning (``fuse_passages``). Runs on: any
        thread. Never raises for the query's text; a damaged index logs a warning and
        returns [] (the next indexing run rebuilds it).
        """
        if limit <= 0:
            return []
        depth = limit * FUSION_DEPTH if self.meaning is not None else limit
        lexical = self._bm25(query, depth)
        if self.meaning is None or not self.meaning.available or not query.strip() \
                or not lexically_weak(query, lexical[:limit]):
            return lexical[:limit]
        return fuse_passages(lexical, self.semantic_search(query, depth), limit)

    def semantic_search(self, query: str, limit: int = 5) -> list[Passage]:
        """Passages nearest ``query`` in meaning, best first, ``score`` = cosine.

        [] without meaning search (or before any vector is computed). Runs on: any thread.
        """
        vectors = self.meaning.vectors([query]) if self.meaning is not None else None
        if not vectors or self.meaning is None:
            return []
        try:
            conn = self._db.get()
            hits = self._vectors.nearest(conn, self.meaning.model_id, vectors[0], limit)
            found = {row[0]: row[1:] for row in conn.execute(
                "SELECT id, passage_id, file_key, title, text, start, \"end\", page "
                f"FROM passages WHERE id IN ({','.join('?' * len(hits))})",
                [h for h, _ in hits]).fetchall()} if hits else {}
        except (sqlite3.ProgrammingError, sqlite3.DatabaseError) as exc:
            _LOGGER.info("turn=0 knowledge meaning search failed (%s): word search only", exc)
            return []
        return [_passage(found[h], score=round(s, 4)) for h, s in hits if h in found]

    def _bm25(self, query: str, limit: int) -> list[Passage]:
        match = fts_match(query)
        if not match:
            return []
        sql = (
            "SELECT p.passage_id, p.file_key, p.title, p.text, p.start, p.\"end\", p.page, "
            f"bm25(passages_fts, 1.0, {_TITLE_WEIGHT}) AS rank "
            "FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid "
            "WHERE passages_fts MATCH ? ORDER BY rank LIMIT ?")
        try:
            rows = self._db.get().execute(sql, (match, limit)).fetchall()
        except sqlite3.ProgrammingError as exc:  # closed under us by a rebuild: next call reopens
            _LOGGER.info("turn=0 knowledge search interrupted by a rebuild: %s", exc)
            return []
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise
            _LOGGER.warning("turn=0 knowledge index %s is damaged (%s): search found nothing; "
                            "the next indexing run rebuilds it", self.path, exc)
            return []
        return [_passage(row[:7], score=-float(row[7])) for row in rows]

    def passage(self, passage_id: str) -> Passage | None:
        """The passage with this evidence id, or None when it left the index.

        Runs on: any thread.
        """
        row = self._db.get().execute(
            "SELECT passage_id, file_key, title, text, start, \"end\", page FROM passages "
            "WHERE passage_id = ?", (passage_id,)).fetchone()
        return None if row is None else _passage(row)

    def passages_of(self, file: str) -> list[Passage]:
        """Every passage of one indexed file (absolute path or ``notes:<id>``), in order."""
        rows = self._db.get().execute(
            "SELECT passage_id, file_key, title, text, start, \"end\", page FROM passages "
            "WHERE file_key = ? ORDER BY start", (file,)).fetchall()
        return [_passage(row) for row in rows]

    def list_files(self) -> list[IndexedFile]:
        """Every indexed file and note, by path."""
        rows = self._db.get().execute(
            "SELECT key, title, kind, passages, sha, indexed_at, pages, note FROM files "
            "ORDER BY key").fetchall()
        return [IndexedFile(r[0], r[1], r[2], r[3], r[4][:HASH_CHARS], r[5], r[6], r[7])
                for r in rows]

    def problems(self) -> list[IndexProblem]:
        """The files the last runs could not index, with why."""
        rows = self._db.get().execute("SELECT key, reason FROM problems ORDER BY key").fetchall()
        return [IndexProblem(r[0], r[1]) for r in rows]

    def passage_count(self) -> int:
        """Passages in the index."""
        return int(self._db.get().execute("SELECT count(*) FROM passages").fetchone()[0])

    # --- indexing -------------------------------------------------------------------------

    def index(self, folders: Sequence[str], progress: ProgressSink | None = None,
              cancel: CancelToken | None = None) -> IndexReport:
        """Index new and changed files under ``folders`` (and the notes); drop the rest.

        Runs on: a worker thread. Never raises for one bad file; a damaged index is moved
        aside and rebuilt (listed as a problem of the index file).
        """
        with self._index_lock:
            started = time.perf_counter()
            extra: list[IndexProblem] = []
            if self.rebuilt_from is not None:
                extra.append(self._rebuilt_problem())
            try:
                report = self._index(folders, progress, cancel)
            except sqlite3.DatabaseError as exc:
                if not is_corrupt(exc):
                    raise
                self._rebuild(exc)
                extra.append(self._rebuilt_problem())
                report = self._index(folders, progress, cancel)
            self.rebuilt_from = None
            return IndexReport(report.added, report.updated, report.removed,
                               report.unchanged, report.passages,
                               (*extra, *report.problems),
                               round(time.perf_counter() - started, 3))

    def _rebuilt_problem(self) -> IndexProblem:
        return IndexProblem(str(self.path), f"the index was damaged: it was moved aside to "
                            f"{self.rebuilt_from} and rebuilt from your documents "
                            "(nothing else was lost)")

    def _index(self, folders: Sequence[str], progress: ProgressSink | None,
               cancel: CancelToken | None) -> IndexReport:
        conn = self._db.get()
        run = IndexRun()
        problems: list[IndexProblem] = []
        files, missing = walk_folders(folders, cancel)
        problems += missing
        cancelled = cancel is not None and cancel.cancelled
        total = len(files) + (1 if self._notes is not None else 0)
        if not cancelled:
            run.removed += drop_missing(conn, {str(f) for f in files})
        done = 0
        for path in files:
            if progress is not None:
                progress(IndexProgress(done, total, str(path)))
            if cancel is not None and cancel.cancelled:
                cancelled = True
                break
            problem = index_file(conn, path, run, self._clock)
            if problem is not None:
                problems.append(problem)
            done += 1
        if self._notes is not None and not cancelled:
            if progress is not None:
                progress(IndexProgress(done, total, "notes"))
            problems += index_notes(conn, self._notes, run, self._clock)
            done += 1
        if self.meaning is not None and not cancelled:
            if progress is not None:
                progress(IndexProgress(done, total, VECTORS_PROGRESS))
            embed_missing(conn, self.meaning, cancel)
        if progress is not None:
            progress(IndexProgress(done, total, ""))
        if cancelled:
            _LOGGER.info("turn=0 knowledge indexing cancelled after %d of %d", done, total)
        return IndexReport(run.added, run.updated, run.removed, run.unchanged,
                           self.passage_count(), tuple(problems))


def _passage(row: Sequence[Any], score: float = 0.0) -> Passage:
    return Passage(passage_id=row[0], file=row[1], title=row[2], text=row[3], start=row[4],
                   end=row[5], score=score, page=row[6])
