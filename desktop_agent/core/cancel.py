"""Turn ids and per-turn cancel tokens."""

from __future__ import annotations

import threading
from typing import NewType

TurnId = NewType("TurnId", int)
"""Monotonically increasing id of one user->assistant exchange. 0 means 'no turn'."""

NO_TURN: TurnId = TurnId(0)


class CancelToken:
    """A thread-safe, one-way cancel flag carried with each job of a turn.

    Long loops check ``cancelled`` at every natural yield point (per Whisper
    segment, per LLM chunk, per Piper sentence, per playback block).
    """

    __slots__ = ("turn_id", "_event", "_reason")

    def __init__(self, turn_id: TurnId = NO_TURN) -> None:
        """Create a live (not cancelled) token for a job of ``turn_id``."""
        self.turn_id = turn_id
        self._event = threading.Event()
        self._reason = ""

    def cancel(self, reason: str = "cancelled") -> None:
        """Mark the job cancelled. Idempotent; the first reason wins."""
        if not self._event.is_set():
            self._reason = reason
            self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once ``cancel`` was called."""
        return self._event.is_set()

    @property
    def reason(self) -> str:
        """Why the job was cancelled ('' while it is not)."""
        return self._reason

    def __repr__(self) -> str:
        """The turn and whether (and why) the token was cancelled."""
        state = f"cancelled:{self._reason}" if self.cancelled else "live"
        return f"CancelToken(turn={self.turn_id}, {state})"
