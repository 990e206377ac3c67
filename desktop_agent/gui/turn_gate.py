"""Defence in depth against stale turns in the view.

The controller already drops a cancelled turn's output. If something late still reaches
the GUI, the gate decides whether it may be shown: output for a turn older than the newest
one seen must not overwrite newer content (the live partial line, the streaming reply,
the current state), while a late *correction* of an old turn's own record (its
HeardReport, its latency span) is still welcome.
"""

from __future__ import annotations

import logging

_LOGGER = logging.getLogger(__name__)


class TurnGate:
    """Tracks the newest turn id the view has seen.

    Runs on: GUI thread.
    """

    def __init__(self) -> None:
        self.newest = 0
        self.dropped = 0
        """How many payloads were refused (for tests and the debug log)."""

    def see(self, turn_id: int) -> None:
        """Note that ``turn_id`` exists (never moves backwards)."""
        if turn_id > self.newest:
            self.newest = turn_id

    def admit_live(self, turn_id: int, kind: str) -> bool:
        """True if live output of ``turn_id`` may be shown (it is the newest turn or newer)."""
        if turn_id < self.newest:
            self.dropped += 1
            _LOGGER.debug("turn=%d dropped stale %s (newest turn %d)", turn_id, kind, self.newest)
            return False
        self.see(turn_id)
        return True
