"""Latency spans of finished turns, sent once each to the GUI and to the telemetry sink.

The machine keeps only its newest spans (a bounded deque) and counts every span ever
completed; the publisher remembers that count, so it sends exactly the new ones (at most
as many as the machine still keeps, should it fall that far behind).

Runs on: GUI thread.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import Protocol

from desktop_agent.core.turns.telemetry import TurnSpan

_LOGGER = logging.getLogger(__name__)


class SpanSource(Protocol):
    """What the publisher reads of the turn machine."""

    @property
    def spans_completed(self) -> int:
        """How many spans ever completed."""
        ...

    def spans_since(self, seen: int) -> tuple[TurnSpan, ...]:
        """The spans completed after the first ``seen`` ones (the newest kept), oldest first."""
        ...


class SpanPublisher:
    """Sends each completed span once.

    Args:
        source: The turn machine.
        emit: Sends a copy to the GUI (it may keep it; the machine's object is never shared).
        sink: Writes the span to the telemetry log (None: no log).
    """

    def __init__(self, source: SpanSource, emit: Callable[[TurnSpan], None],
                 sink: Callable[[TurnSpan], None] | None = None) -> None:
        """Start with nothing sent."""
        self._source = source
        self._emit = emit
        self._sink = sink
        self._seen = 0

    def publish(self) -> None:
        """Send the spans completed since the last call."""
        fresh = self._source.spans_since(self._seen)
        self._seen = self._source.spans_completed
        for span in fresh:
            self._emit(copy.deepcopy(span))
            if self._sink is not None:
                try:
                    self._sink(span)
                except OSError as exc:
                    _LOGGER.warning("turn=%d cannot write telemetry: %s", span.turn_id, exc)
