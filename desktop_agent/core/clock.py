"""The clock port. Core code never reads the clock; it is injected."""

from __future__ import annotations

from typing import Protocol


class Clock(Protocol):
    """Monotonic seconds."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...


class FakeClock:
    """A clock that only moves when told to. For tests and scripted timelines."""

    def __init__(self, start_s: float = 0.0) -> None:
        self._now = start_s

    def now(self) -> float:
        """The current fake time in seconds."""
        return self._now

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` and return the new time."""
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        self._now += seconds
        return self._now

    def set(self, at_s: float) -> None:
        """Jump to ``at_s`` (never backwards)."""
        if at_s < self._now:
            raise ValueError("a clock cannot go backwards")
        self._now = at_s
