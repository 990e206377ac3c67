"""The store's one SQLite connection: opening and migrating it, its errors, its transactions.

``Store`` (store_sqlite.py) is this connection plus the notes, alarms and action log run on it;
the file's settings (WAL, synchronous FULL), the error contract and the lock are described
there.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from desktop_agent.adapters.store.sqlite_files import move_aside
from desktop_agent.adapters.store.store_records import (
    MIGRATIONS,
    SCHEMA_VERSION,
    StoreError,
    _statements,
)

_LOGGER = logging.getLogger(__name__)


class StoreConnection:
    """The one connection to the store's file, guarded by one re-entrant lock.

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
