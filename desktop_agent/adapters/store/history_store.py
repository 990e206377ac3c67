"""The kept conversation history: one table in the assistant's store, kept as Privacy says.

What is kept: each finished exchange as ``core/conversation/history.py`` records it (the
user's words, any tool call and result, the reply as far as it was heard, with its
``interrupted`` flag), one row per message, every text redacted by ``core.privacy.redact``
before it is written.

When (``privacy`` settings):

* ``keep_history`` off, or ``transcript_retention_days`` 0: nothing is written, and what was
  kept before is erased as soon as the setting is seen (at start or when it changes).
* otherwise rows older than the retention period are purged (``purge``: at start and daily,
  by ``runtime/history_keeper.py``; the headless commands purge when they open the store).

``clear`` erases everything (the "Clear history" menu item). Deleting is real: the store's
connection runs with ``secure_delete`` (deleted rows are zeroed in the file) and the write-ahead
log is truncated after a purge, so the words are gone from every file, not only from queries.

The table lives in the store's file and uses its one connection, lock and error mapping
(``Store.transaction`` / ``Store.reading``): a damaged store is rebuilt as a whole by
``compose/ledger.open_store``. It is created with ``IF NOT EXISTS`` on first use, outside the
store's numbered migrations (which stay the notes/alarms/actions schema).

Runs on: the history's owner thread (the GUI thread in the app); the store's lock makes every
call safe from any thread.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop_agent.adapters.store.store_records import StoreError
from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.privacy import redact, retention_cutoff
from desktop_agent.core.settings import PrivacySettings

_LOGGER = logging.getLogger(__name__)

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS history (
        id INTEGER PRIMARY KEY,
        exchange INTEGER NOT NULL,
        at REAL NOT NULL,
        role TEXT NOT NULL,
        name TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL,
        interrupted INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX IF NOT EXISTS history_at ON history (at)",
)


@dataclass(frozen=True, slots=True)
class KeptMessage:
    """One kept message, as it is on disk (redacted)."""

    exchange: int
    """Messages of one exchange share this number (increasing)."""
    at: float
    """UTC epoch seconds when the exchange was recorded."""
    role: str
    """'user', 'assistant', 'tool_call' (name = the tool, text = its arguments) or 'tool'."""
    name: str
    text: str
    interrupted: bool
    """True for a reply the user cut off (``text`` is what was heard)."""


def keeps(privacy: PrivacySettings) -> bool:
    """True when these settings let the conversation be written to disk."""
    return privacy.keep_history and privacy.transcript_retention_days > 0


class HistoryStore:
    """The ``history`` table: write exchanges when allowed, purge, clear, read back."""

    def __init__(self, store: Store, privacy: PrivacySettings,
                 wall: Callable[[], float] = time.time) -> None:
        """Args: store: the assistant's store; privacy: the settings now; wall: UTC epoch s."""
        self.store = store
        self.privacy = privacy
        self._wall = wall
        self._ready = False

    @property
    def keeping(self) -> bool:
        """True when exchanges are written (``keep_history`` and a retention of 1+ days)."""
        return keeps(self.privacy)

    def _table(self) -> None:
        if not self._ready:
            with self.store.transaction() as conn:
                for statement in _SCHEMA:
                    conn.execute(statement)
            self._ready = True

    # --- writing -----------------------------------------------------------------------------

    def record(self, messages: Sequence[ChatMessage]) -> bool:
        """Keep one exchange (redacted) if the settings allow; True when it was written.

        A ``History`` sink: never raises. A damaged, locked or full store is logged (without
        the words) and the exchange is not kept; the turn goes on.
        """
        if not self.keeping or not messages:
            return False
        now = self._wall()
        rows = [_row(m) for m in messages]
        try:
            self._table()
            with self.store.transaction() as conn:
                last = conn.execute("SELECT COALESCE(MAX(exchange), 0) FROM history").fetchone()
                exchange = int(last[0]) + 1
                conn.executemany(
                    "INSERT INTO history (exchange, at, role, name, text, interrupted) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [(exchange, now, *row) for row in rows])
        except StoreError as err:
            _LOGGER.warning("turn=0 conversation not kept: [%s] %s", err.code, err.message)
            return False
        return True

    def set_privacy(self, privacy: PrivacySettings) -> int:
        """Use new settings; erase now what they no longer allow. Returns rows deleted.

        Raises:
            StoreError: the store cannot be written (damaged, locked).
        """
        self.privacy = privacy
        return self.purge()

    # --- forgetting ---------------------------------------------------------------------------

    def purge(self, now: float | None = None) -> int:
        """Delete what is older than the retention period (everything when not keeping).

        Args:
            now: UTC epoch seconds (default: the wall clock given at construction).

        Returns:
            How many messages were deleted.

        Raises:
            StoreError: the store cannot be written (damaged, locked).
        """
        if not self.keeping:
            return self.clear()
        cutoff = retention_cutoff(self._wall() if now is None else now,
                                  self.privacy.transcript_retention_days)
        return self._delete("DELETE FROM history WHERE at < ?", (cutoff,))

    def clear(self) -> int:
        """Delete every kept message ("Clear history"); returns how many.

        Raises:
            StoreError: the store cannot be written (damaged, locked).
        """
        return self._delete("DELETE FROM history", ())

    def _delete(self, sql: str, params: tuple[float, ...]) -> int:
        self._table()
        with self.store.transaction() as conn:
            deleted = int(conn.execute(sql, params).rowcount)
        if deleted:
            # The rows' pages were zeroed (secure_delete), but the write-ahead log still holds
            # the frames that wrote them: copy back and truncate it to nothing.
            with self.store.reading() as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return deleted

    # --- reading -------------------------------------------------------------------------------

    def messages(self) -> list[KeptMessage]:
        """Every kept message, oldest first (as on disk: redacted).

        Raises:
            StoreError: the store cannot be read.
        """
        self._table()
        with self.store.reading() as conn:
            rows = conn.execute("SELECT exchange, at, role, name, text, interrupted "
                                "FROM history ORDER BY id").fetchall()
        return [KeptMessage(r[0], r[1], r[2], r[3], r[4], bool(r[5])) for r in rows]


def _row(message: ChatMessage) -> tuple[str, str, str, int]:
    """(role, name, redacted text, interrupted) for one message."""
    if message.tool_call is not None:
        call = message.tool_call
        args = json.dumps(dict(call.arguments), sort_keys=True, ensure_ascii=False)
        return "tool_call", call.name, redact(args), 0
    return (message.role, message.name or "", redact(message.content),
            int(bool(message.interrupted)))
