"""The runtime's ``Ledger`` port on the SQLite store, and the spoken lines of alarms."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_agent.adapters.store.store_records import Alarm, Executed
from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.runtime.view_api import ActionRow, AlarmRow

_UNDOABLE = frozenset({"add_note", "delete_notes"})


def _row(alarm: Alarm) -> AlarmRow:
    return AlarmRow(alarm.id, alarm.kind, alarm.label, alarm.due_at)


def _args_text(args: Any) -> str:
    if not isinstance(args, dict):
        return json.dumps(args)
    shown = {k: v for k, v in args.items() if k not in ("duration_s", "due_at", "count")}
    return ", ".join(f"{k}: {v}" for k, v in shown.items() if v not in ("", None))


def _action(done: Executed) -> ActionRow:
    return ActionRow(done.key, done.tool, _args_text(dict(done.args)), done.result,
                     done.executed_at, undone=done.undone_at is not None,
                     can_undo=done.tool in _UNDOABLE and done.undone_at is None)


class StoreLedger:
    """``runtime.controller_ports.Ledger`` over a ``Store``.

    Runs on: GUI thread (short local calls).
    """

    def __init__(self, store: Store, wall: Callable[[], float]) -> None:
        """Args: store: the local store; wall: UTC epoch seconds now."""
        self.store = store
        self._wall = wall

    def actions(self, limit: int) -> list[ActionRow]:
        """Executed writes, newest first."""
        return [_action(x) for x in self.store.executed_actions(limit)]

    def alarms(self) -> list[AlarmRow]:
        """Pending timers and reminders, soonest first."""
        return [_row(a) for a in self.store.pending_alarms()]

    def undo(self, key: str) -> str:
        """Undo one executed action; the sentence of what happened."""
        done = self.store.undo(key, self._wall())
        return f"Undone: {done.result.rstrip('.')}."

    def take_due(self, now_s: float) -> list[AlarmRow]:
        """Due alarms, each marked fired so it is announced once."""
        return [_row(a) for a in self.store.due_alarms(now_s) if self.store.mark_fired(a.id)]

    def take_missed(self, now_s: float) -> list[AlarmRow]:
        """Alarms that came due while the app was closed (marked missed)."""
        return [_row(a) for a in self.store.missed_on_start(now_s)]


def open_store(path: Path) -> tuple[Store, str]:
    """Open the store at ``path``; a damaged file is kept aside and a new store started.

    Returns:
        The store and what to tell the user ('' when nothing happened). A locked store is
        returned as it is: its calls raise ``store_locked`` with the fix until it frees.
    """
    store = Store(path)
    if store.error is None or store.error.code != "store_corrupt":
        return store, ""
    moved = store.rebuild()
    return store, (f"Your assistant database was damaged. It was kept as {moved} and a new, "
                   "empty one was started: earlier notes, timers and reminders are in the "
                   "old file.")
