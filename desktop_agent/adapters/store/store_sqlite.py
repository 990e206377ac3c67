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
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from desktop_agent.adapters.store.store_connection import StoreConnection
from desktop_agent.adapters.store.store_records import (
    Alarm,
    AlarmKind,
    Executed,
    Note,
    StoreError,
    _executed,
    _fts_all,
    _fts_word,
    _redacted,
    _words,
)
from desktop_agent.core.privacy import redact

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


class Store(StoreConnection):
    """Notes, alarms and the action log in one SQLite file.

    Runs on: any thread (one lock serialises every call on the one connection).
    """

    _effects: dict[str, list[int]] | None = None
    """What the action inside ``execute_once`` changed, by kind (None outside one)."""

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
