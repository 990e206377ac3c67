"""The clock port. Core code never reads the clock; it is injected."""

from __future__ import annotations

from typing import Protocol


class Clock(Protocol):
    """Monotonic seconds."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...
