"""The knowledge index's SQLite file: schema, one connection per thread, damage handling.

Used by ``knowledge_sqlite.SqliteKnowledgeIndex`` only. WAL, so readers on other threads
see the last committed state while one thread writes; ``synchronous = NORMAL`` because the
file is derived data (a crash can lose the last run, which the next run redoes). A damaged
file (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``) is moved aside and an empty one started.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from desktop_agent.adapters.store.sqlite_files import move_aside as move_db_aside

_LOGGER = logging.getLogger(__name__)

FILE_NAME: Final = "knowledge.sqlite3"
"""The index's file name inside the user data dir."""

SCHEMA_VERSION: Final = 2
"""1: passages and FTS5; 2: adds ``vectors`` (kept passages, their vectors computed anew)."""
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
CREATE TABLE IF NOT EXISTS vectors (
    passage INTEGER PRIMARY KEY,    -- passages.id
    model_id TEXT NOT NULL,         -- the Embedder's model id: another model's are redone
    vector BLOB NOT NULL            -- float32 little-endian, unit length
);
CREATE TRIGGER IF NOT EXISTS passages_vd AFTER DELETE ON passages BEGIN
    DELETE FROM vectors WHERE passage = old.id;
END;
CREATE TABLE IF NOT EXISTS problems (
    key TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL
);
"""


def default_index_path() -> Path:
    """``<user data dir>/knowledge.sqlite3``."""
    from desktop_agent.adapters.paths import data_dir

    return data_dir() / FILE_NAME


class ThreadConnections:
    """One connection per thread to one SQLite file, all closed together.

    Runs on: any thread. ``close`` (from any thread) makes every thread open a fresh
    connection on its next ``get``.
    """

    def __init__(self, path: Path) -> None:
        """Remember ``path``; nothing is opened until ``get``."""
        self.path = path
        self._local = threading.local()
        self._generation = 0
        self._conns: list[sqlite3.Connection] = []
        self._conns_lock = threading.Lock()

    def get(self) -> sqlite3.Connection:
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
                _make_schema(conn, version)
            conn.execute("SELECT count(*) FROM files").fetchone()
        except BaseException:
            conn.close()
            raise
        with self._conns_lock:
            self._conns.append(conn)
        self._local.conn = conn
        self._local.generation = self._generation
        return conn

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

    def move_aside(self, exc: BaseException, now: float) -> Path | None:
        """Move a damaged file aside as ``<name>.corrupt-<time>`` and start an empty one.

        Args:
            exc: What showed the damage (logged).
            now: UTC epoch seconds, for the moved file's name.

        Returns:
            Where the damaged file now is (None when there was no file).
        """
        self.close()
        moved = move_db_aside(self.path, now)
        _LOGGER.warning("turn=0 knowledge index %s was damaged (%s); moved aside to %s and "
                        "rebuilt empty", self.path, exc, moved)
        self.get()
        return moved


def _make_schema(conn: sqlite3.Connection, version: int) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            if version and version != 1:  # another layout: derived data, start again
                for table in ("passages_fts", "passages", "files", "problems", "vectors"):
                    conn.execute(f"DROP TABLE IF EXISTS {table}")
            # Version 1 lacks only the vectors: CREATE ... IF NOT EXISTS adds them.
            for statement in statements(_SCHEMA):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def delete_file(conn: sqlite3.Connection, key: str) -> None:
    """Remove one file's row and its passages (inside the caller's transaction)."""
    conn.execute("DELETE FROM passages WHERE file_key = ?", (key,))
    conn.execute("DELETE FROM files WHERE key = ?", (key,))


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any error)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def is_corrupt(exc: BaseException) -> bool:
    """True when ``exc`` says the file is damaged or not a database."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and (code & 0xFF) in _CORRUPT_CODES:
        return True
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def statements(script: str) -> list[str]:
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
