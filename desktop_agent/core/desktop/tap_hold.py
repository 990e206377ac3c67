"""Tap or hold a global talk key: a short tap toggles listening, a long press is held talk.

People who cannot hold a key (motor impairments, a switch, a foot pedal that only clicks)
tap it: listening starts and stays on until the next tap. Everyone else holds it while they
speak and lets go. One key does both, told apart by how long it was down.

Pure: times are any monotonic seconds the caller passes; the policy answers what to do.
"""

from __future__ import annotations

import enum
from typing import Final, Literal

TAP_S: Final = 0.5
"""A press released sooner than this, seconds, is a tap: listening stays on."""

Action = Literal["start", "stop", "none"]


class _State(enum.Enum):
    IDLE = "idle"
    HELD = "held"  # down since it started listening
    LATCHED = "latched"  # tapped: listening until the next press
    ENDING = "ending"  # the press that stopped a latched turn, still down


class TapOrHold:
    """What a press or a release of the talk key does to listening."""

    __slots__ = ("tap_s", "_state", "_down_at")

    def __init__(self, tap_s: float = TAP_S) -> None:
        """``tap_s``: the longest press that still counts as a tap, seconds."""
        self.tap_s = tap_s
        self._state = _State.IDLE
        self._down_at = 0.0

    @property
    def listening(self) -> bool:
        """Whether the key has listening on (held, or tapped and not tapped again)."""
        return self._state in (_State.HELD, _State.LATCHED)

    def press(self, now: float) -> Action:
        """The key went down: start listening, or end a tapped turn."""
        if self._state is _State.IDLE:
            self._state, self._down_at = _State.HELD, now
            return "start"
        if self._state is _State.LATCHED:
            self._state = _State.ENDING
            return "stop"
        return "none"  # a press while down: the listener lost a release; ignore it

    def release(self, now: float) -> Action:
        """The key came up: a long press ends its turn, a tap leaves listening on."""
        if self._state is _State.HELD:
            if now - self._down_at < self.tap_s:
                self._state = _State.LATCHED
                return "none"
            self._state = _State.IDLE
            return "stop"
        if self._state is _State.ENDING:
            self._state = _State.IDLE
        return "none"

    def reset(self) -> None:
        """The turn ended some other way (cancelled, the window's own key): start afresh."""
        self._state = _State.IDLE
