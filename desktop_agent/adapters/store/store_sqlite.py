"""The assistant's own store: notes, timers, reminders and the log of executed actions.

One SQLite file in the user data dir (WAL, synchronous FULL, ``PRAGMA user_version`` with an
ordered list of migrations). One connection, guarded by one re-entrant lock: the store is
called from the tool worker thread and from the GUI thread, and a write made by an action
inside ``execute_once`` runs on the same connection, inside the same transaction.

Exactly once: ``execute_once(key, ...)`` opens ``BEGIN IMMEDIATE``, returns the logged result if
``key`` was executed before, or else runs the action and logs it, then commits. The action's
writes and its log row commit together, so a process killed at any instant either executed
and logged (a retry replays the result) or did neither (a retry executes).

Errors: a damaged file or one that is not a database -> ``StoreError('store_corrupt')`` (the
store stays usable as an object; ``rebuild()`` moves the file aside and starts empty); a lock
held past the busy timeout -> ``StoreError('store_locked')``. Neither takes the app down.

The store never reads the clock in logic that tests control: callers pass ``now`` (UTC epoch
seconds).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from desktop_agent.adapters.store.sqlite_files import move_aside
from desktop_agent.adapters.store.store_records import (
    MIGRATIONS,
    SCHEMA_VERSION,
    Alarm,
    AlarmKind,
    Executed,
    Note,
    StoreError,
    _executed,
    _fts_all,
    _fts_word,
    _redacted,
    _statements,
    _words,
)
from desktop_agent.core.privacy import redact

_LOGGER = logging.getLogger(__name__)

FILE_NAME: Final = "assistant.sqlite3"
"""The store's file name inside the user data dir."""


_STOPWORDS: Final = frozenset(
    "a an and the of to for in on at my me i is it that this with about note notes".split())
_ALL_NOTES: Final = frozenset({"all", "all notes", "all my notes", "everything", "every note",
                               "all of them"})
_FILLER: Final = frozenset(
    "a an the my all of for to called named about timer timers reminder reminders alarm".split())


def default_store_path() -> Path:
    """``<user data dir>/assistant.sqlite3``."""
    from desktop_agent.adapters.paths import data_dir

    return data_dir() / FILE_NAME


class Store:
    """Notes, alarms and the action log in one SQLite file.

    Runs on: any thread (one lock serialises every call on the one connection).
    """

    def __init__(self, path: Path, busy_timeout_s: float = 5.0) -> None:
        """Open (creating and migrating as needed) the store at ``path``.

        Never raises for a damaged or locked file: the problem is kept in ``error`` and every
        call raises it (a locked file is retried on the next call).
        """
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._tx_depth = 0
        self._effects: dict[str, list[int]] | None = None
        self.error: StoreError | None = None
        with self._lock:
            try:
                self._open()
            except StoreError as err:
                self.error = err
                _LOGGER.warning("store unavailable: %s", err.describe())

    # --- opening, errors, transactions ------------------------------------------------------

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout_s, isolation_level=None,
                               check_same_thread=False)
        try:
            with self._mapped():
                conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
                check = conn.execute("PRAGMA quick_check").fetchone()[0]
                if check != "ok":
                    raise sqlite3.DatabaseError(f"database disk image is malformed ({check})")
                if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                    raise sqlite3.OperationalError("database is locked (cannot enter WAL)")
                conn.execute("PRAGMA synchronous = FULL")
                conn.execute("PRAGMA secure_delete = ON")  # deleted text is zeroed, not left
                self._migrate(conn)
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self.error = None

    def _migrate(self, conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return  # the usual case: no write lock needed (another writer may hold it)
        # Read the version again inside the write transaction: two processes starting
        # together must not both run migration N.
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    "store_too_new",
                    f"The database {self.path} was written by a newer desktop_agent "
                    f"(schema {version}, this one knows {SCHEMA_VERSION}).",
                    "Update desktop_agent, or move the file aside to start empty.")
            for number in range(version, SCHEMA_VERSION):
                for statement in _statements(MIGRATIONS[number]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number + 1}")
                _LOGGER.info("store %s: migrated to schema %d", self.path, number + 1)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    @contextmanager
    def _mapped(self) -> Iterator[None]:
        """Turn sqlite3 errors into StoreError with a code and a fix."""
        try:
            yield
        except sqlite3.Error as exc:
            raise self._store_error(exc) from exc

    def _store_error(self, exc: sqlite3.Error) -> StoreError:
        name = getattr(exc, "sqlite_errorname", "") or ""
        text = str(exc).lower()
        if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "not a database" in text \
                or "malformed" in text:
            return StoreError(
                "store_corrupt",
                f"The assistant's database {self.path} is damaged or is not a database ({exc}).",
                f"Restart the app: it keeps the damaged file as {self.path.name}.corrupt-<time> "
                "and starts an empty database (the notes, timers and reminders in it are not "
                "in the new one); or close the app and restore the file from a backup.")
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
            return StoreError(
                "store_locked",
                f"The assistant's database {self.path} is locked by another program "
                f"(still busy after {self.busy_timeout_s:g} s).",
                "Close the other copy of desktop_agent (or the program holding the file) "
                "and try again.")
        return StoreError("store_error", f"The assistant's database {self.path} failed: {exc}.",
                          "Check that the disk is not full and the file is writable.")

    def _db(self) -> sqlite3.Connection:
        """The open connection (reopening after a lock cleared); raises the stored error."""
        if self._conn is None:
            if self.error is not None and self.error.code != "store_locked":
                raise self.error
            try:
                self._open()
            except StoreError as err:
                self.error = err
                raise
        assert self._conn is not None
        return self._conn

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._guard():
            yield self._db()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, or a part of the one already open (inside execute_once)."""
        with self._lock, self._guard():
            conn = self._db()
            if self._tx_depth:
                yield conn
                return
            conn.execute("BEGIN IMMEDIATE")
            self._tx_depth = 1
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            finally:
                self._tx_depth = 0

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on the one connection, for a sibling module's own table
        (adapters/store/history_store.py); errors become StoreError as for the store's own calls."""
        with self._write() as conn:
            yield conn

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The one connection, under the lock, outside any transaction (reads, checkpoints)."""
        with self._read() as conn:
            yield conn

    @contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            with self._mapped():
                yield
        except StoreError as err:
            if err.code == "store_corrupt":
                # A damaged file stays damaged: fail fast until rebuild().
                self.error = err
                self._close()
            raise

    def _close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
            self._conn = None

    def close(self) -> None:
        """Close the connection (a later call reopens it)."""
        with self._lock:
            self._close()

    def rebuild(self, now: float | None = None) -> Path | None:
        """Move the damaged file aside as ``<name>.corrupt-<time>`` and start an empty store.

        Args:
            now: UTC epoch seconds for the backup's name (default: the clock).

        Returns:
            Where the old file now is (None when there was no file).
        """
        with self._lock:
            self._close()
            moved = move_aside(self.path, time.time() if now is None else now)
            self.error = None
            self._open()
            _LOGGER.warning("store %s rebuilt empty; the old file is %s", self.path, moved)
            return moved

    def schema_version(self) -> int:
        """The file's ``PRAGMA user_version``."""
        with self._read() as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def journal_mode(self) -> str:
        """The file's journal mode ('wal')."""
        with self._read() as conn:
            return str(conn.execute("PRAGMA journal_mode").fetchone()[0])

    # --- exactly once -----------------------------------------------------------------------

    def execute_once(self, key: str, tool: str, args: Mapping[str, Any],
                     action: Callable[[Store], str], now: float | None = None) -> Executed:
        """Run ``action`` once per ``key``, its writes and its log row in one transaction.

        Args:
            key: The idempotency key (one per confirmed action).
            tool: The tool's name, for the log.
            args: The normalised arguments, JSON-able, for the log and undo.
            action: Writes through this store (same connection, same transaction) and
                returns the sentence of what happened.
            now: UTC epoch seconds for the log (default: the clock).

        Returns:
            The logged action; ``replayed`` is True when ``key`` ran before (``action`` was
            not called).

        Raises:
            StoreError: store_corrupt / store_locked / store_error. An error raised by
                ``action`` rolls everything back and propagates.
        """
        args_json = json.dumps(dict(args), sort_keys=True, ensure_ascii=False)
        # The log keeps the arguments and result with e-mails, card and phone numbers
        # redacted (core/privacy.py); the caller still gets the real ones this first time.
        logged_args = json.dumps(_redacted(dict(args)), sort_keys=True, ensure_ascii=False)
        with self._lock:  # the RLock _write takes too: no other thread between the check
            if self._tx_depth:
                raise RuntimeError("execute_once cannot nest")
            with self._write() as conn:  # one BEGIN IMMEDIATE ... COMMIT (or ROLLBACK)
                row = conn.execute(
                    "SELECT idempotency_key, tool, args, result, executed_at, undone_at "
                    "FROM actions WHERE idempotency_key = ?", (key,)).fetchone()
                if row is not None:
                    return _executed(row, replayed=True)
                self._effects = {}
                try:
                    result = action(self)
                    stamp = time.time() if now is None else now
                    conn.execute(
                        "INSERT INTO actions (idempotency_key, tool, args, result, "
                        "executed_at, effects) VALUES (?, ?, ?, ?, ?, ?)",
                        (key, tool, logged_args, redact(result), stamp,
                         json.dumps(self._effects)))
                finally:
                    self._effects = None
            return Executed(key, tool, json.loads(args_json), result, stamp, False)

    def executed_actions(self, limit: int = 50) -> list[Executed]:
        """The last ``limit`` executed actions, newest first (for the GUI's list)."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT idempotency_key, tool, args, result, executed_at, undone_at FROM actions "
                "ORDER BY executed_at DESC, id DESC LIMIT ?", (limit,)).fetchall()
        return [_executed(r, replayed=True) for r in rows]

    def undo(self, key: str, now: float) -> Executed:
        """Undo a logged action: a note added is deleted, notes deleted come back, a timer
        or reminder set is cancelled, one cancelled is pending again (if still in the future).

        Raises:
            StoreError: 'nothing_to_undo' for an unknown key or one already undone.
        """
        with self._write() as conn:
            row = conn.execute(
                "SELECT idempotency_key, tool, args, result, executed_at, undone_at, effects "
                "FROM actions WHERE idempotency_key = ?", (key,)).fetchone()
            if row is None or row[5] is not None:
                raise StoreError("nothing_to_undo", "That action is already undone or unknown.")
            effects: dict[str, list[int]] = json.loads(row[6])
            for note_id in effects.get("notes_added", []):
                conn.execute("UPDATE notes SET deleted_at = ? WHERE id = ?", (now, note_id))
            for note_id in effects.get("notes_deleted", []):
                conn.execute("UPDATE notes SET deleted_at = NULL WHERE id = ?", (note_id,))
            for alarm_id in effects.get("alarms_added", []):
                conn.execute("UPDATE alarms SET state = 'cancelled' WHERE id = ? "
                             "AND state = 'pending'", (alarm_id,))
            for alarm_id in effects.get("alarms_cancelled", []):
                conn.execute("UPDATE alarms SET state = 'pending' WHERE id = ? "
                             "AND state = 'cancelled' AND due_at > ?", (alarm_id, now))
            conn.execute("UPDATE actions SET undone_at = ? WHERE idempotency_key = ?", (now, key))
        return _executed((*row[:5], now), replayed=True)

    def _effect(self, kind: str, ids: Sequence[int]) -> None:
        if self._effects is not None and ids:
            self._effects.setdefault(kind, []).extend(ids)

    # --- notes ------------------------------------------------------------------------------

    def add_note(self, text: str, now: float) -> Note:
        """Save a note (text stripped; must not be empty)."""
        text = text.strip()
        if not text:
            raise StoreError("empty_note", "A note needs some words.")
        with self._write() as conn:
            cur = conn.execute("INSERT INTO notes (text, created_at) VALUES (?, ?)", (text, now))
            note = Note(int(cur.lastrowid or 0), text, now)
            self._effect("notes_added", [note.id])
        return note

    def list_notes(self) -> list[Note]:
        """Every note not deleted, oldest first."""
        with self._read() as conn:
            rows = conn.execute("SELECT id, text, created_at FROM notes WHERE deleted_at IS NULL "
                                "ORDER BY created_at, id").fetchall()
        return [Note(*r) for r in rows]

    def search_notes(self, query: str, limit: int = 10) -> list[Note]:
        """Notes mentioning every word of ``query`` (prefixes match), best first (bm25);
        when none has them all, notes with any of its content words.

        Any text is safe: each word is quoted, so "what's", "C++", '"' or "NEAR(" never
        reach FTS5 as syntax.
        """
        words = _words(query)
        if not words:
            return []
        with self._read() as conn:
            found = self._match(conn, _fts_all(words), limit)
            content = [w for w in words if w not in _STOPWORDS]
            if not found and content and (len(content) > 1 or content != words):
                found = self._match(conn, " OR ".join(_fts_word(w) for w in content), limit)
        return found

    def count_notes(self, query: str) -> int:
        """How many notes ``delete_notes(query)`` would delete now."""
        return len(self._to_delete(query))

    def delete_notes(self, query: str, now: float) -> list[Note]:
        """Delete (soft: undo restores) the notes mentioning every word of ``query``;
        ``'all'`` deletes every note. Returns the notes deleted."""
        with self._write() as conn:
            notes = self._to_delete(query)
            conn.executemany("UPDATE notes SET deleted_at = ? WHERE id = ?",
                             [(now, n.id) for n in notes])
            self._effect("notes_deleted", [n.id for n in notes])
        return notes

    def restore_notes(self, ids: Sequence[int]) -> int:
        """Bring deleted notes back; returns how many came back."""
        with self._write() as conn:
            cur = conn.executemany("UPDATE notes SET deleted_at = NULL WHERE id = ? "
                                   "AND deleted_at IS NOT NULL", [(i,) for i in ids])
            return int(cur.rowcount)

    def _to_delete(self, query: str) -> list[Note]:
        if " ".join(_words(query)) in _ALL_NOTES:
            return self.list_notes()
        words = _words(query)
        if not words:
            return []
        with self._read() as conn:
            return self._match(conn, _fts_all(words), None)

    @staticmethod
    def _match(conn: sqlite3.Connection, fts_query: str, limit: int | None) -> list[Note]:
        rows = conn.execute(
            "SELECT n.id, n.text, n.created_at FROM notes_fts JOIN notes n ON n.id = "
            "notes_fts.rowid WHERE notes_fts MATCH ? AND n.deleted_at IS NULL "
            "ORDER BY bm25(notes_fts), n.id LIMIT ?",
            (fts_query, -1 if limit is None else limit)).fetchall()
        return [Note(*r) for r in rows]

    # --- alarms -----------------------------------------------------------------------------

    def add_alarm(self, kind: AlarmKind, label: str, due_at: float, now: float) -> Alarm:
        """Set a timer or a reminder due at ``due_at`` (UTC epoch seconds)."""
        with self._write() as conn:
            cur = conn.execute("INSERT INTO alarms (kind, label, due_at, created_at) "
                               "VALUES (?, ?, ?, ?)", (kind, label.strip(), due_at, now))
            alarm = Alarm(int(cur.lastrowid or 0), kind, label.strip(), due_at, now, "pending")
            self._effect("alarms_added", [alarm.id])
        return alarm

    def pending_alarms(self) -> list[Alarm]:
        """Timers and reminders still to come, soonest first."""
        return self._alarms("state = 'pending'", ())

    def matching_alarms(self, which: str) -> list[Alarm]:
        """The pending alarms ``which`` names: 'all', label words ('pasta'), or a kind
        ('the timer' -> every pending timer)."""
        said = _words(which)
        pending = self.pending_alarms()
        if not said:
            return []
        if " ".join(said) in {"all", "everything", "all of them"}:
            return pending
        kinds = {k for k in ("timer", "reminder") if k in said or k + "s" in said}
        if kinds:
            pending = [a for a in pending if a.kind in kinds]
        words = [w for w in said if w not in _FILLER]
        return [a for a in pending
                if all(any(t.startswith(w) for t in _words(a.label)) for w in words)]

    def cancel_alarms(self, which: str) -> list[Alarm]:
        """Cancel the pending alarms ``which`` names (see ``matching_alarms``)."""
        with self._write() as conn:
            alarms = self.matching_alarms(which)
            conn.executemany("UPDATE alarms SET state = 'cancelled' WHERE id = ?",
                             [(a.id,) for a in alarms])
            self._effect("alarms_cancelled", [a.id for a in alarms])
        return alarms

    def due_alarms(self, now: float) -> list[Alarm]:
        """Pending alarms due at or before ``now``, oldest first (to announce, then
        ``mark_fired``)."""
        return self._alarms("state = 'pending' AND due_at <= ?", (now,))

    def mark_fired(self, alarm_id: int) -> bool:
        """Record that a pending alarm was announced; False if it was not pending."""
        with self._write() as conn:
            cur = conn.execute("UPDATE alarms SET state = 'fired' WHERE id = ? "
                               "AND state = 'pending'", (alarm_id,))
            return cur.rowcount == 1

    def missed_on_start(self, now: float) -> list[Alarm]:
        """At start: pending alarms that came due while the app was closed become 'missed'
        and are returned (oldest first) so the app can announce them."""
        with self._write() as conn:
            missed = self._alarms("state = 'pending' AND due_at <= ?", (now,))
            conn.executemany("UPDATE alarms SET state = 'missed' WHERE id = ?",
                             [(a.id,) for a in missed])
        return [Alarm(a.id, a.kind, a.label, a.due_at, a.created_at, "missed") for a in missed]

    def _alarms(self, where: str, params: tuple[Any, ...]) -> list[Alarm]:
        with self._read() as conn:
            rows = conn.execute("SELECT id, kind, label, due_at, created_at, state FROM alarms "
                                f"WHERE {where} ORDER BY due_at, id", params).fetchall()
        return [Alarm(*r) for r in rows]
