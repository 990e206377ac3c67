"""One document in or out of the knowledge index: a file's passages, a problem file, the notes.

``SqliteKnowledgeIndex.index`` (knowledge_sqlite.py) walks the folders and calls these for
each file, then for the notes; each file is committed on its own. A file whose size and
mtime are unchanged is not read; a touched file whose hash is unchanged keeps its passage ids;
a file that cannot be indexed is remembered as a problem with its size and mtime.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from desktop_agent.adapters.knowledge.doc_text import Unreadable, check_file, extract, os_reason
from desktop_agent.adapters.knowledge.knowledge_db import delete_file, transaction
from desktop_agent.core.knowledge.index import IndexProblem
from desktop_agent.core.text.passages import split_passages

_LOGGER = logging.getLogger(__name__)

NOTES_PREFIX: Final = "notes:"
HASH_CHARS: Final = 12
"""Hex digits of the content hash kept in a passage id (48 bits: a collision is no risk)."""


class NoteLike(Protocol):
    """What the index needs of a note (``store_sqlite.Note`` fits)."""

    @property
    def id(self) -> int: ...  # noqa: D102

    @property
    def text(self) -> str: ...  # noqa: D102


@dataclass
class IndexRun:
    """What one indexing run did, file by file."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0


def passage_id(file_key: str, sha: str, start: int, end: int) -> str:
    """The evidence id of a passage: ``"<file key>@<sha prefix>#<start>-<end>"``."""
    return f"{file_key}@{sha[:HASH_CHARS]}#{start}-{end}"


def drop_missing(conn: sqlite3.Connection, present: set[str]) -> int:
    """Remove the files (not notes) that are no longer under the folders."""
    rows = conn.execute("SELECT key FROM files").fetchall()
    gone = [k for (k,) in rows if not k.startswith(NOTES_PREFIX) and k not in present]
    for key in gone:
        with transaction(conn):
            delete_file(conn, key)
    with transaction(conn):
        for (key,) in conn.execute("SELECT key FROM problems").fetchall():
            if not key.startswith(NOTES_PREFIX) and key not in present:
                conn.execute("DELETE FROM problems WHERE key = ?", (key,))
    return len(gone)


def index_file(conn: sqlite3.Connection, path: Path, run: IndexRun,
               clock: Callable[[], float]) -> IndexProblem | None:
    """Index one file if it is new or changed (``clock``: UTC epoch seconds)."""
    key = str(path)
    try:
        stat = path.stat()
    except OSError as exc:
        return record_problem(conn, key, os_reason(exc), 0, 0)
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
            with transaction(conn):
                conn.execute("UPDATE files SET size = ?, mtime_ns = ? WHERE key = ?",
                             (stat.st_size, stat.st_mtime_ns, key))
            run.unchanged += 1
            return None
        doc = extract(path, data)
    except Unreadable as exc:
        return record_problem(conn, key, exc.reason, stat.st_size, stat.st_mtime_ns)
    except OSError as exc:
        return record_problem(conn, key, os_reason(exc), stat.st_size, stat.st_mtime_ns)
    except Exception as exc:  # one strange file must not stop the rest
        _LOGGER.warning("turn=0 could not index %s: %s: %s", key, type(exc).__name__, exc)
        return record_problem(conn, key, f"could not be read ({type(exc).__name__}: {exc})"
                              ": check the file opens in its usual program",
                              stat.st_size, stat.st_mtime_ns)
    spans = split_passages(doc.text, doc.pages, markdown=doc.kind == "markdown")
    store_document(conn, key, path.name, doc.kind, sha, spans, doc.text,
                   (stat.st_size, stat.st_mtime_ns), len(doc.pages) or None, doc.note, clock)
    if row is None:
        run.added += 1
    else:
        run.updated += 1
    return IndexProblem(key, doc.note) if doc.note else None


def record_problem(conn: sqlite3.Connection, key: str, reason: str, size: int,
                   mtime_ns: int) -> IndexProblem:
    """Record a problem file; a file that was indexed before leaves the index."""
    with transaction(conn):
        delete_file(conn, key)
        conn.execute("INSERT OR REPLACE INTO problems (key, reason, size, mtime_ns) "
                     "VALUES (?, ?, ?, ?)", (key, reason, size, mtime_ns))
    return IndexProblem(key, reason)


def store_document(conn: sqlite3.Connection, key: str, title: str, kind: str, sha: str,
                   spans: Sequence[Any], text: str, stat: tuple[int, int], pages: int | None,
                   note: str, clock: Callable[[], float]) -> None:
    """Replace a document's passages and its row (``clock``: UTC epoch seconds)."""
    rows = [(passage_id(key, sha, s.start, s.end), key, title, s.start, s.end, s.page,
             text[s.start:s.end]) for s in spans]
    with transaction(conn):
        delete_file(conn, key)
        conn.executemany(
            "INSERT INTO passages (passage_id, file_key, title, start, \"end\", page, text) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        conn.execute(
            "INSERT INTO files (key, title, kind, size, mtime_ns, sha, passages, pages, "
            "indexed_at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (key, title, kind, stat[0], stat[1], sha, len(rows), pages, clock(),
             note))
        conn.execute("DELETE FROM problems WHERE key = ?", (key,))


def index_notes(conn: sqlite3.Connection, read_notes: Callable[[], Iterable[NoteLike]],
                run: IndexRun, clock: Callable[[], float]) -> list[IndexProblem]:
    """Index the notes that are new or changed; drop those deleted from the store."""
    try:
        notes = {f"{NOTES_PREFIX}{n.id}": n.text for n in read_notes()}
    except Exception as exc:  # a damaged store: keep the notes indexed before
        _LOGGER.warning("turn=0 could not read the notes: %s", exc)
        return [IndexProblem("notes", f"your notes could not be read ({exc}); the notes "
                             "indexed before are kept")]
    indexed = dict(conn.execute("SELECT key, sha FROM files WHERE key LIKE 'notes:%'"))
    for key in indexed.keys() - notes.keys():
        with transaction(conn):
            delete_file(conn, key)
        run.removed += 1
    for key, text in notes.items():
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if indexed.get(key) == sha:
            run.unchanged += 1
            continue
        spans = split_passages(text)
        if not spans:
            continue
        store_document(conn, key, "Note", "note", sha, spans, text,
                       (len(text), 0), None, "", clock)
        if key in indexed:
            run.updated += 1
        else:
            run.added += 1
    return []
