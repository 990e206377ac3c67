"""The knowledge index: the user's documents as passages in one SQLite file (FTS5, BM25).

Implements ``core.knowledge.KnowledgeIndex`` and ``KnowledgeIndexer``.

* One file (default ``<user data dir>/knowledge.sqlite3``), WAL, one connection per
  thread: ``search`` on a worker thread runs while another thread indexes (readers see the
  last committed file). One indexing run at a time (a lock).
* Passages (``core/text/passages.py``) are stored with their evidence id
  ``"<file key>@<sha256 prefix>#<start>-<end>"``; the file key is the absolute path, or
  ``notes:<id>`` for a note from the assistant's store. An FTS5 table (porter stemming,
  unicode61, diacritics folded) indexes the passage text and the document title.
* Incremental: a file whose size and mtime are unchanged is not read; a changed file whose
  content hash is unchanged only has its size and mtime updated; a new hash replaces its
  passages (new ids). Files that left the folders (deleted, or the folder removed from the
  list) leave the index. Each file is committed on its own, so a cancel between files
  leaves a consistent index.
* A file that cannot be indexed is an ``IndexProblem`` with the reason (remembered with
  its size and mtime, so an unchanged bad file is not parsed again); it never stops the
  rest.
* The index is derived data: a damaged file is moved aside as
  ``knowledge.sqlite3.corrupt-<time>`` and rebuilt from the documents, and the report says
  so as a problem; nothing else is lost.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from desktop_agent.adapters.doc_text import Unreadable, check_file, extract
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge import (
    IndexProblem,
    IndexProgress,
    IndexReport,
    Passage,
    ProgressSink,
)
from desktop_agent.core.text.fts_query import fts_match
from desktop_agent.core.text.passages import split_passages

_LOGGER = logging.getLogger(__name__)

FILE_NAME: Final = "knowledge.sqlite3"
"""The index's file name inside the user data dir."""
NOTES_PREFIX: Final = "notes:"
HASH_CHARS: Final = 12
"""Hex digits of the content hash kept in a passage id (48 bits: a collision is no risk)."""
SCHEMA_VERSION: Final = 1
_CORRUPT_CODES: Final = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS files (
    key TEXT PRIMARY KEY,           -- absolute path, or notes:<id>
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha TEXT NOT NULL,
    passages INTEGER NOT NULL,
    pages INTEGER,
    indexed_at REAL NOT NULL,
    note TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS passages (
    id INTEGER PRIMARY KEY,
    passage_id TEXT NOT NULL UNIQUE,
    file_key TEXT NOT NULL,
    title TEXT NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    page INTEGER,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_file ON passages (file_key);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5(
    text, title, content='passages', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS passages_ai AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts (rowid, text, title) VALUES (new.id, new.text, new.title);
END;
CREATE TRIGGER IF NOT EXISTS passages_ad AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts (passages_fts, rowid, text, title)
        VALUES ('delete', old.id, old.text, old.title);
END;
CREATE TABLE IF NOT EXISTS problems (
    key TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL
);
"""

_TITLE_WEIGHT: Final = 0.3
"""BM25 weight of the document title against 1.0 for the passage text."""


class NoteLike(Protocol):
    """What the index needs of a note (``store_sqlite.Note`` fits)."""

    @property
    def id(self) -> int: ...  # noqa: D102

    @property
    def text(self) -> str: ...  # noqa: D102


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


@dataclass
class _Run:
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0


def default_index_path() -> Path:
    """``<user data dir>/knowledge.sqlite3``."""
    from desktop_agent.adapters.paths import data_dir

    return data_dir() / FILE_NAME


def passage_id(file_key: str, sha: str, start: int, end: int) -> str:
    """The evidence id of a passage: ``"<file key>@<sha prefix>#<start>-<end>"``."""
    return f"{file_key}@{sha[:HASH_CHARS]}#{start}-{end}"


class SqliteKnowledgeIndex:
    """The knowledge index in one SQLite file.

    Runs on: any thread (one connection per thread; one indexing run at a time).
    """

    def __init__(self, path: Path | None = None,
                 notes: Callable[[], Iterable[NoteLike]] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        """Open (creating if needed) the index at ``path``.

        Args:
            path: The SQLite file (default: ``default_index_path()``).
            notes: Returns the user's current notes, indexed as ``notes:<id>``; None to
                leave notes out.
            clock: UTC epoch seconds, for ``indexed_at`` and the corrupt file's name.
        """
        self.path = Path(path) if path is not None else default_index_path()
        self._notes = notes
        self._clock = clock
        self._local = threading.local()
        self._generation = 0
        self._conns: list[sqlite3.Connection] = []
        self._conns_lock = threading.Lock()
        self._index_lock = threading.Lock()
        self.rebuilt_from: Path | None = None
        """Where a damaged index file was moved (None when none was)."""
        try:
            self._db()
        except sqlite3.DatabaseError as exc:
            if not _is_corrupt(exc):
                raise
            self._rebuild(exc)

    # --- connections ----------------------------------------------------------------------

    def _db(self) -> sqlite3.Connection:
        """This thread's connection (opened, and the schema made, on first use)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and self._local.generation == self._generation:
            return conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout = 10000")
            if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                raise sqlite3.OperationalError("the knowledge index cannot use WAL")
            conn.execute("PRAGMA synchronous = NORMAL")  # derived data: rebuilt if lost
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                self._make_schema(conn, version)
            conn.execute("SELECT count(*) FROM files").fetchone()
        except BaseException:
            conn.close()
            raise
        with self._conns_lock:
            self._conns.append(conn)
        self._local.conn = conn
        self._local.generation = self._generation
        return conn

    @staticmethod
    def _make_schema(conn: sqlite3.Connection, version: int) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                if version:  # another layout: the index is derived data, start again
                    for table in ("passages_fts", "passages", "files", "problems"):
                        conn.execute(f"DROP TABLE IF EXISTS {table}")
                for statement in _statements(_SCHEMA):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Close every thread's connection (a later call reopens this thread's)."""
        with self._conns_lock:
            conns, self._conns = self._conns, []
            self._generation += 1
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:
                pass

    def _rebuild(self, exc: BaseException) -> Path | None:
        """Move a damaged index aside and start an empty one (the caller re-indexes)."""
        self.close()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(self._clock()))
        moved: Path | None = None
        if self.path.exists():
            moved = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
            self.path.replace(moved)
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                side.replace(side.with_name(f"{self.path.name}.corrupt-{stamp}{suffix}"))
        _LOGGER.warning("turn=0 knowledge index %s was damaged (%s); moved aside to %s and "
                        "rebuilt empty", self.path, exc, moved)
        self.rebuilt_from = moved
        self._db()
        return moved

    # --- search ---------------------------------------------------------------------------

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        """Passages for a spoken query, best first (BM25); [] when nothing matches.

        Runs on: any thread. Never raises for the query's text; a damaged index logs a
        warning and returns [] (the next indexing run rebuilds it).
        """
        match = fts_match(query)
        if not match or limit <= 0:
            return []
        sql = (
            "SELECT p.passage_id, p.file_key, p.title, p.text, p.start, p.\"end\", p.page, "
            f"bm25(passages_fts, 1.0, {_TITLE_WEIGHT}) AS rank "
            "FROM passages_fts JOIN passages p ON p.id = passages_fts.rowid "
            "WHERE passages_fts MATCH ? ORDER BY rank LIMIT ?")
        try:
            rows = self._db().execute(sql, (match, limit)).fetchall()
        except sqlite3.DatabaseError as exc:
            if not _is_corrupt(exc):
                raise
            _LOGGER.warning("turn=0 knowledge index %s is damaged (%s): search found nothing; "
                            "the next indexing run rebuilds it", self.path, exc)
            return []
        return [_passage(row[:7], score=-float(row[7])) for row in rows]

    def passage(self, passage_id: str) -> Passage | None:
        """The passage with this evidence id, or None when it left the index.

        Runs on: any thread.
        """
        row = self._db().execute(
            "SELECT passage_id, file_key, title, text, start, \"end\", page FROM passages "
            "WHERE passage_id = ?", (passage_id,)).fetchone()
        return None if row is None else _passage(row)

    def passages_of(self, file: str) -> list[Passage]:
        """Every passage of one indexed file (absolute path or ``notes:<id>``), in order."""
        rows = self._db().execute(
            "SELECT passage_id, file_key, title, text, start, \"end\", page FROM passages "
            "WHERE file_key = ? ORDER BY start", (file,)).fetchall()
        return [_passage(row) for row in rows]

    def list_files(self) -> list[IndexedFile]:
        """Every indexed file and note, by path."""
        rows = self._db().execute(
            "SELECT key, title, kind, passages, sha, indexed_at, pages, note FROM files "
            "ORDER BY key").fetchall()
        return [IndexedFile(r[0], r[1], r[2], r[3], r[4][:HASH_CHARS], r[5], r[6], r[7])
                for r in rows]

    def problems(self) -> list[IndexProblem]:
        """The files the last runs could not index, with why."""
        rows = self._db().execute("SELECT key, reason FROM problems ORDER BY key").fetchall()
        return [IndexProblem(r[0], r[1]) for r in rows]

    def passage_count(self) -> int:
        """Passages in the index."""
        return int(self._db().execute("SELECT count(*) FROM passages").fetchone()[0])

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
                if not _is_corrupt(exc):
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
        conn = self._db()
        run = _Run()
        problems: list[IndexProblem] = []
        files, missing = _walk(folders, cancel)
        problems += missing
        cancelled = cancel is not None and cancel.cancelled
        total = len(files) + (1 if self._notes is not None else 0)
        if not cancelled:
            run.removed += self._drop_missing(conn, {str(f) for f in files})
        done = 0
        for path in files:
            if progress is not None:
                progress(IndexProgress(done, total, str(path)))
            if cancel is not None and cancel.cancelled:
                cancelled = True
                break
            problem = self._index_file(conn, path, run)
            if problem is not None:
                problems.append(problem)
            done += 1
        if self._notes is not None and not cancelled:
            if progress is not None:
                progress(IndexProgress(done, total, "notes"))
            problems += self._index_notes(conn, run)
            done += 1
        if progress is not None:
            progress(IndexProgress(done, total, ""))
        if cancelled:
            _LOGGER.info("turn=0 knowledge indexing cancelled after %d of %d", done, total)
        return IndexReport(run.added, run.updated, run.removed, run.unchanged,
                           self.passage_count(), tuple(problems))

    def _drop_missing(self, conn: sqlite3.Connection, present: set[str]) -> int:
        """Remove the files (not notes) that are no longer under the folders."""
        rows = conn.execute("SELECT key FROM files").fetchall()
        gone = [k for (k,) in rows if not k.startswith(NOTES_PREFIX) and k not in present]
        for key in gone:
            with _transaction(conn):
                _delete_file(conn, key)
        with _transaction(conn):
            for (key,) in conn.execute("SELECT key FROM problems").fetchall():
                if not key.startswith(NOTES_PREFIX) and key not in present:
                    conn.execute("DELETE FROM problems WHERE key = ?", (key,))
        return len(gone)

    def _index_file(self, conn: sqlite3.Connection, path: Path,
                    run: _Run) -> IndexProblem | None:
        key = str(path)
        try:
            stat = path.stat()
        except OSError as exc:
            return self._problem(conn, key, _os_reason(exc), 0, 0)
        row = conn.execute("SELECT size, mtime_ns, sha FROM files WHERE key = ?",
                           (key,)).fetchone()
        if row is not None and (row[0], row[1]) == (stat.st_size, stat.st_mtime_ns):
            run.unchanged += 1
            return None
        known = conn.execute("SELECT reason, size, mtime_ns FROM problems WHERE key = ?",
                             (key,)).fetchone()
        if known is not None and (known[1], known[2]) == (stat.st_size, stat.st_mtime_ns):
            return IndexProblem(key, known[0])
        try:
            check_file(path, stat.st_size)
            data = path.read_bytes()
            sha = hashlib.sha256(data).hexdigest()
            if row is not None and row[2] == sha:  # touched, not changed: keep the ids
                with _transaction(conn):
                    conn.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE key = ?",
                                 (stat.st_size, stat.st_mtime_ns, key))
                run.unchanged += 1
                return None
            doc = extract(path, data)
        except Unreadable as exc:
            return self._problem(conn, key, exc.reason, stat.st_size, stat.st_mtime_ns)
        except OSError as exc:
            return self._problem(conn, key, _os_reason(exc), stat.st_size, stat.st_mtime_ns)
        except Exception as exc:  # one strange file must not stop the rest
            _LOGGER.warning("turn=0 could not index %s: %s: %s", key, type(exc).__name__, exc)
            return self._problem(conn, key, f"could not be read ({type(exc).__name__}: {exc})"
                                 ": check the file opens in its usual program",
                                 stat.st_size, stat.st_mtime_ns)
        spans = split_passages(doc.text, doc.pages, markdown=doc.kind == "markdown")
        self._store(conn, key, path.name, doc.kind, sha, spans, doc.text,
                    (stat.st_size, stat.st_mtime_ns), len(doc.pages) or None, doc.note)
        if row is None:
            run.added += 1
        else:
            run.updated += 1
        return IndexProblem(key, doc.note) if doc.note else None

    def _problem(self, conn: sqlite3.Connection, key: str, reason: str, size: int,
                 mtime_ns: int) -> IndexProblem:
        """Record a problem file; a file that was indexed before leaves the index."""
        with _transaction(conn):
            _delete_file(conn, key)
            conn.execute("INSERT OR REPLACE INTO problems (key, reason, size, mtime_ns) "
                         "VALUES (?, ?, ?, ?)", (key, reason, size, mtime_ns))
        return IndexProblem(key, reason)

    def _store(self, conn: sqlite3.Connection, key: str, title: str, kind: str, sha: str,
               spans: Sequence[Any], text: str, stat: tuple[int, int], pages: int | None,
               note: str) -> None:
        rows = [(passage_id(key, sha, s.start, s.end), key, title, s.start, s.end, s.page,
                 text[s.start:s.end]) for s in spans]
        with _transaction(conn):
            _delete_file(conn, key)
            conn.executemany(
                "INSERT INTO passages (passage_id, file_key, title, start, \"end\", page, text) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            conn.execute(
                "INSERT INTO files (key, title, kind, size, mtime_ns, sha, passages, pages, "
                "indexed_at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, title, kind, stat[0], stat[1], sha, len(rows), pages, self._clock(),
                 note))
            conn.execute("DELETE FROM problems WHERE key = ?", (key,))

    def _index_notes(self, conn: sqlite3.Connection, run: _Run) -> list[IndexProblem]:
        assert self._notes is not None
        try:
            notes = {f"{NOTES_PREFIX}{n.id}": n.text for n in self._notes()}
        except Exception as exc:  # a damaged store: keep the notes indexed before
            _LOGGER.warning("turn=0 could not read the notes: %s", exc)
            return [IndexProblem("notes", f"your notes could not be read ({exc}); the notes "
                                 "indexed before are kept")]
        indexed = dict(conn.execute("SELECT key, sha FROM files WHERE key LIKE 'notes:%'"))
        for key in indexed.keys() - notes.keys():
            with _transaction(conn):
                _delete_file(conn, key)
            run.removed += 1
        for key, text in notes.items():
            sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
            if indexed.get(key) == sha:
                run.unchanged += 1
                continue
            spans = split_passages(text)
            if not spans:
                continue
            self._store(conn, key, "Note", "note", sha, spans, text,
                        (len(text), 0), None, "")
            if key in indexed:
                run.updated += 1
            else:
                run.added += 1
        return []


def _walk(folders: Sequence[str],
          cancel: CancelToken | None) -> tuple[list[Path], list[IndexProblem]]:
    """Every file under ``folders`` (hidden files and folders skipped), sorted, no duplicate."""
    seen: dict[str, Path] = {}
    problems: list[IndexProblem] = []
    for folder in folders:
        root = Path(folder).expanduser()
        if not root.is_dir():
            what = "is not a folder" if root.exists() else "was not found"
            problems.append(IndexProblem(str(root), f"this knowledge folder {what}: check the "
                                         "path in Settings, or remove it from the list"))
            continue
        root = root.resolve()
        for dirpath, dirnames, filenames in os.walk(root, onerror=None):
            if cancel is not None and cancel.cancelled:
                break
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in filenames:
                if name.startswith((".", "~$")):
                    continue
                path = Path(dirpath) / name
                if not path.is_file():  # a broken link, a socket
                    continue
                seen.setdefault(str(path), path)
    return sorted(seen.values(), key=lambda p: (str(p.parent), p.name)), problems


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "cannot be read (permission denied): check the file's permissions"
    if isinstance(exc, FileNotFoundError):
        return "it disappeared while it was being indexed"
    return f"cannot be read ({exc.strerror or exc}): check the disk and the file"


def _delete_file(conn: sqlite3.Connection, key: str) -> None:
    conn.execute("DELETE FROM passages WHERE file_key = ?", (key,))
    conn.execute("DELETE FROM files WHERE key = ?", (key,))


class _transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any error)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self._conn.execute("BEGIN IMMEDIATE")
        return self._conn

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        if kind is None:
            self._conn.execute("COMMIT")
        elif self._conn.in_transaction:
            self._conn.execute("ROLLBACK")


def _passage(row: Sequence[Any], score: float = 0.0) -> Passage:
    return Passage(passage_id=row[0], file=row[1], title=row[2], text=row[3], start=row[4],
                   end=row[5], score=score, page=row[6])


def _is_corrupt(exc: BaseException) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and (code & 0xFF) in _CORRUPT_CODES:
        return True
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def _statements(script: str) -> list[str]:
    """The statements of a script (a trigger body's ';' stays inside its statement)."""
    out: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--") or not line.strip():
            continue
        current += line.split("--", 1)[0].rstrip() + "\n" if "--" in line else line
        if sqlite3.complete_statement(current):
            out.append(current.strip())
            current = ""
    return out
