"""Per-turn latency spans. Pure data: times come in on events, never from a clock read."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from desktop_agent.core.cancel import TurnId

SPAN_MARKS: tuple[str, ...] = (
    "speech_end",
    "endpoint",
    "asr_final",
    "filler",
    "llm_first_token",
    "first_chunk",
    "first_audio",
    "llm_done",
    "barge_in",
    "playback_stopped",
)
"""The marks a turn span may carry, in pipeline order."""


@dataclass(slots=True)
class TurnSpan:
    """Clock times (seconds) of the milestones of one turn; None where not reached."""

    turn_id: TurnId
    marks: dict[str, float] = field(default_factory=dict)

    def mark(self, name: str, at_s: float) -> None:
        """Record ``name`` at ``at_s`` once (the first mark wins)."""
        if name not in SPAN_MARKS:
            raise ValueError(f"unknown span mark {name!r}")
        self.marks.setdefault(name, at_s)

    def since_endpoint_ms(self, name: str) -> float | None:
        """Milliseconds from the endpoint to ``name``, or None if either is missing."""
        if "endpoint" not in self.marks or name not in self.marks:
            return None
        return (self.marks[name] - self.marks["endpoint"]) * 1000.0

    def barge_in_to_silence_ms(self) -> float | None:
        """Milliseconds from the barge-in to the playback being stopped."""
        if "barge_in" not in self.marks or "playback_stopped" not in self.marks:
            return None
        return (self.marks["playback_stopped"] - self.marks["barge_in"]) * 1000.0

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (for the JSON-lines log)."""
        data = asdict(self)
        data["since_endpoint_ms"] = {
            name: self.since_endpoint_ms(name) for name in SPAN_MARKS if name in self.marks
        }
        return data
