"""Trims the heap once a turn has settled back into listening (adapters/heap_trim.py).

A turn's engines free hundreds of megabytes that glibc keeps; trimming after each turn keeps
the resident size near what the app really holds. The trim waits ``SETTLE_MS`` after the
machine is back in LISTENING (not while a reply is assembled or played), runs at most once
every ``MIN_GAP_S`` (a turn that ends sooner gets its trim once the gap has passed, if the
app is still listening then), and runs on a short-lived thread: it walks every arena (a few ms to a
few tens of ms) and the GUI thread must not wait for it.

Runs on: GUI thread (the trim itself on its own thread).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QObject, QTimer

from desktop_agent.core.turns.states import State

_LOGGER = logging.getLogger(__name__)

SETTLE_MS: Final = 300
"""Quiet time in LISTENING before a trim (the end of a turn, not a pause inside it)."""
MIN_GAP_S: Final = 5.0
"""Seconds between two trims at least."""


class HeapKeeper(QObject):
    """Calls ``trim`` after each turn (see the module doc)."""

    def __init__(self, trim: Callable[[], bool], parent: QObject | None = None,
                 settle_ms: int = SETTLE_MS, min_gap_s: float = MIN_GAP_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``trim`` gives freed memory back; ``clock`` is for tests."""
        super().__init__(parent)
        self._trim = trim
        self._gap = min_gap_s
        self._clock = clock
        self._last = -min_gap_s
        self._thread: threading.Thread | None = None
        self.trims = 0
        """Trims started (tests, the soak)."""
        self._settle_ms = settle_ms
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._due)

    def on_state(self, state: State) -> None:
        """The machine's state after an event: arm in LISTENING, disarm elsewhere."""
        if state is State.LISTENING:
            if not self._timer.isActive():
                self._timer.start(self._settle_ms)
        else:
            self._timer.stop()

    def _due(self) -> None:
        now = self._clock()
        busy = self._thread is not None and self._thread.is_alive()
        wait_s = self._gap - (now - self._last)
        if busy or wait_s > 0:  # later, not never: what this turn freed goes back too
            self._timer.start(max(self._settle_ms, int(wait_s * 1000)))
            return
        self._last = now
        self.trims += 1
        self._thread = threading.Thread(target=self._run, name="heap-trim", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        started = time.perf_counter()
        try:
            self._trim()
        except Exception:  # never worth more than a log line
            _LOGGER.debug("turn=0 heap trim failed", exc_info=True)
            return
        _LOGGER.debug("turn=0 heap trimmed in %.1f ms", (time.perf_counter() - started) * 1000)

    def join(self, timeout_s: float = 2.0) -> None:
        """Wait for a running trim (tests, shutdown)."""
        if self._thread is not None:
            self._thread.join(timeout_s)
