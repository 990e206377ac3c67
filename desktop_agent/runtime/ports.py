"""The narrow ports the controller hands its collaborators.

A collaborator gets exactly what it uses: ``feed`` (the controller's single entry into the
turn machine), a read-only view of the machine, callables that emit a signal. None of them
holds a reference back to the controller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeAlias

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.history import History
from desktop_agent.core.turns.events import Event
from desktop_agent.core.turns.model import JobId, State

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
