"""The narrow ports the controller hands its collaborators.

A collaborator gets exactly what it uses: ``feed`` (the controller's single entry into the
turn machine), a read-only view of the machine, callables that emit a signal. None of them
holds a reference back to the controller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeAlias

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.conversation.history import History
from desktop_agent.core.turns.events import Event
from desktop_agent.core.turns.states import JobId, State
from desktop_agent.runtime.view_api import ActionRow, AlarmRow

Feed: TypeAlias = Callable[[Event], None]
"""Hands one event to the turn machine. Runs on: GUI thread."""

TokenFor: TypeAlias = Callable[[JobId, TurnId], CancelToken]
"""The cancel token of a job (created on first use)."""


class MachineView(Protocol):
    """What a collaborator may read of the turn machine (never drive it: use ``Feed``)."""

    @property
    def state(self) -> State:
        """The current state."""
        ...

    @property
    def turn_id(self) -> TurnId:
        """The current turn."""
        ...

    @property
    def history(self) -> History:
        """The conversation history."""
        ...


class Ledger(Protocol):
    """The local store as the runtime sees it: the actions log, timers and reminders.

    Runs on: GUI thread (each call is a short local SQLite read or write).
    """

    def actions(self, limit: int) -> list[ActionRow]:
        """Executed writes, newest first."""
        ...

    def alarms(self) -> list[AlarmRow]:
        """Pending timers and reminders, soonest first."""
        ...

    def undo(self, key: str) -> str:
        """Undo an executed action; the sentence of what happened (raises AgentError)."""
        ...

    def take_due(self, now_s: float) -> list[AlarmRow]:
        """Alarms due at ``now_s`` (UTC epoch), marked fired so each comes once."""
        ...

    def take_missed(self, now_s: float) -> list[AlarmRow]:
        """Alarms that came due while the app was closed, marked missed (once, at start)."""
        ...
