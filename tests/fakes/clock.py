"""A fake clock: seconds that move only when a test says so."""

from __future__ import annotations


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
