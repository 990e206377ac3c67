"""The store's schema and records: migrations, notes, alarms, logged actions, and the
FTS5 query words (store_sqlite.py runs them)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from desktop_agent.core.errors import AgentError
from desktop_agent.core.privacy import redact

AlarmKind = Literal["timer", "reminder"]
AlarmState = Literal["pending", "fired", "cancelled", "missed"]

MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: the tables.
    """
    CREATE TABLE notes (
        id INTEGER PRIMARY KEY,
        text TEXT NOT NULL,
        created_at REAL NOT NULL,
        deleted_at REAL
    );
    CREATE TABLE alarms (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('timer', 'reminder')),
        label TEXT NOT NULL DEFAULT '',
        due_at REAL NOT NULL,
        created_at REAL NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending'
            CHECK (state IN ('pending', 'fired', 'cancelled', 'missed'))
    );
    CREATE INDEX alarms_pending ON alarms (state, due_at);
    CREATE TABLE actions (
        id INTEGER PRIMARY KEY,
        idempotency_key TEXT NOT NULL UNIQUE,
        tool TEXT NOT NULL,
        args TEXT NOT NULL,
        result TEXT NOT NULL,
        executed_at REAL NOT NULL,
        undone_at REAL
    );
    """,
    # 2: full-text search over notes (bm25), and what each action changed (for undo).
    """
    CREATE VIRTUAL TABLE notes_fts USING fts5(text, content='notes', content_rowid='id');
    INSERT INTO notes_fts (notes_fts) VALUES ('rebuild');
    CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
        INSERT INTO notes_fts (rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
        INSERT INTO notes_fts (notes_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TRIGGER notes_au AFTER UPDATE OF text ON notes BEGIN
        INSERT INTO notes_fts (notes_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO notes_fts (rowid, text) VALUES (new.id, new.text);
    END;
    ALTER TABLE actions ADD COLUMN effects TEXT NOT NULL DEFAULT '{}';
    """,
)
"""Schema migrations in order: ``user_version`` N means the first N have run. Append only."""

SCHEMA_VERSION: Final = len(MIGRATIONS)


class StoreError(AgentError):
    """The assistant's database failed: damaged, locked, or newer than this app."""

    default_code = "store_error"


@dataclass(frozen=True, slots=True)
class Note:
    """One saved note."""

    id: int
    text: str
    created_at: float
    """UTC epoch seconds."""


@dataclass(frozen=True, slots=True)
class Alarm:
    """A timer or a reminder."""

    id: int
    kind: AlarmKind
    label: str
    """The timer's label or the reminder's text ('' for an unlabelled timer)."""
    due_at: float
    """UTC epoch seconds."""
    created_at: float
    state: AlarmState


@dataclass(frozen=True, slots=True)
class Executed:
    """One logged action: what ran, with which (normalised) arguments, and what it said."""

    key: str
    tool: str
    args: Mapping[str, Any]
    result: str
    executed_at: float
    """UTC epoch seconds."""
    replayed: bool
    """True when the key had run before: the logged result, the action not run again."""
    undone_at: float | None = None


def _statements(script: str) -> list[str]:
    """Split a migration into statements (``sqlite3.complete_statement`` keeps triggers
    whole); executed one by one so they share the migration's transaction."""
    out: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    if pending.strip():
        out.append(pending.strip())
    return out


def _words(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits), as FTS5's unicode61 tokenizer sees them."""
    return re.findall(r"[^\W_]+", text.lower())


def _fts_word(word: str) -> str:
    # A quoted string is never FTS5 syntax; the words hold no quote, so no escaping needed.
    # Prefixes ("plumb" finds "plumber") from three letters: "C++" must not find "call".
    return f'"{word}"*' if len(word) >= 3 else f'"{word}"'


def _fts_all(words: Sequence[str]) -> str:
    return " AND ".join(_fts_word(w) for w in words)


def _redacted(value: Any) -> Any:
    """``value`` (JSON-able) with every string in it redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redacted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v) for v in value]
    return value


def _executed(row: Sequence[Any], replayed: bool) -> Executed:
    return Executed(key=row[0], tool=row[1], args=json.loads(row[2]), result=row[3],
                    executed_at=row[4], replayed=replayed, undone_at=row[5])
