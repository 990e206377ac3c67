"""Microphone and speaker level meters with the echo canceller's ERLE, drawn at ~15 Hz."""

from __future__ import annotations

import math
from typing import Final

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QGridLayout, QLabel, QProgressBar, QWidget

from desktop_agent.runtime.view_api import LevelReading

FLOOR_DB: Final = -60.0
REFRESH_MS: Final = 66
"""Readings may arrive at 100 Hz; the meters redraw at most this often (~15 Hz)."""


def _meter(name: str, description: str) -> QProgressBar:
    bar = QProgressBar()
    bar.setRange(0, int(-FLOOR_DB * 10))
    bar.setValue(0)
    bar.setTextVisible(True)
    bar.setFormat("\u2014 dB")
    bar.setAccessibleName(name)
    bar.setAccessibleDescription(description)
    bar.setMinimumWidth(140)
    return bar


class LevelMeters(QWidget):
    """Mic and speaker meters plus the live ERLE figure.

    ``push`` only stores the newest reading and arms a one-shot timer that draws it, so a
    flood of readings costs one repaint per tick, and no reading costs no wake-up at all.

    Runs on: GUI thread.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mic = _meter("Microphone level", "Microphone level after echo cancellation, in dB")
        self.speaker = _meter("Speaker level", "Level of the assistant's voice being played, in dB")
        self.erle = QLabel("ERLE \u2014")
        self.erle.setAccessibleName("Echo reduction")
        self.erle.setAccessibleDescription(
            "How much of the assistant's own voice the echo canceller removes (ERLE), in dB"
        )
        # A fixed width keeps the meters from jumping as the figure changes length.
        self.erle.setMinimumWidth(self.erle.fontMetrics().horizontalAdvance("ERLE -99.9 dB") + 8)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(QLabel("Mic"), 0, 0)
        grid.addWidget(self.mic, 0, 1)
        grid.addWidget(QLabel("Speaker"), 1, 0)
        grid.addWidget(self.speaker, 1, 1)
        grid.addWidget(self.erle, 0, 2, 2, 1)
        grid.setColumnStretch(1, 1)
        self._pending: LevelReading | None = None
        self.draws = 0
        """Number of times the meters were redrawn (for tests of the throttle)."""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def push(self, reading: LevelReading) -> None:
        """Keep ``reading`` to draw on the next tick (older pending readings are dropped)."""
        self._pending = reading
        if not self._timer.isActive():
            self._timer.start()

    def flush(self) -> None:
        """Draw the pending reading now, if any."""
        reading, self._pending = self._pending, None
        if reading is None:
            return
        self.draws += 1
        for bar, db in ((self.mic, reading.mic_db), (self.speaker, reading.speaker_db)):
            shown = FLOOR_DB if math.isnan(db) or db < FLOOR_DB else min(db, 0.0)
            bar.setValue(int(round((shown - FLOOR_DB) * 10)))
            bar.setFormat(f"{shown:.0f} dB" if shown > FLOOR_DB else "silent")
        if reading.erle_db is None or math.isnan(reading.erle_db):
            self.erle.setText("ERLE \u2014")
        else:
            self.erle.setText(f"ERLE {reading.erle_db:.1f} dB")
        self.erle.setAccessibleName(self.erle.text())

    def _on_timer_timeout(self) -> None:
        self.flush()
