"""Latency of the last turn as a waterfall, and a short history of recent turns."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.turns.telemetry import TurnSpan
from desktop_agent.gui.theme import NORMAL, Colors

STEPS: Final[tuple[tuple[str, str, str], ...]] = (
    ("Speech end \u2192 endpoint", "speech_end", "endpoint"),
    ("Endpoint \u2192 ASR final", "endpoint", "asr_final"),
    ("ASR \u2192 filler", "asr_final", "filler"),
    ("ASR \u2192 LLM 1st token", "asr_final", "llm_first_token"),
    ("Token \u2192 1st chunk", "llm_first_token", "first_chunk"),
    ("Chunk \u2192 1st audio", "first_chunk", "first_audio"),
    ("Barge-in \u2192 silence", "barge_in", "playback_stopped"),
)
"""(label, from mark, to mark) of each bar, top to bottom."""
HISTORY: Final = 6


def _ms(marks: dict[str, float], a: str, b: str) -> float | None:
    if a not in marks or b not in marks:
        return None
    return (marks[b] - marks[a]) * 1000.0


def _zero(marks: dict[str, float]) -> float | None:
    """The chart's 0 ms: the real end of speech (hands-free), else the endpoint (the key)."""
    return marks.get("speech_end", marks.get("endpoint"))


def _fmt(ms: float | None) -> str:
    return "\u2014" if ms is None else f"{ms:.0f}"


class WaterfallChart(QWidget):
    """Horizontal bars on a shared time axis (ms since the endpoint).

    Runs on: GUI thread.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.turn_id = 0
        self.marks: dict[str, float] = {}
        self._colors: Colors = NORMAL
        self.setMinimumHeight(130)
        self.setAccessibleName("Latency of the last turn")

    def sizeHint(self) -> QSize:  # noqa: D102 - Qt override
        return QSize(420, 150)

    def set_colors(self, colors: Colors) -> None:
        """Repaint with ``colors``."""
        self._colors = colors
        self.update()

    def set_marks(self, turn_id: int, marks: dict[str, float]) -> None:
        """Show the marks of ``turn_id``."""
        self.turn_id, self.marks = turn_id, dict(marks)
        parts = [f"{label}: {_fmt(_ms(self.marks, a, b))} ms" for label, a, b in STEPS]
        self.setAccessibleDescription(f"Turn {turn_id}. " + "; ".join(parts))
        self.update()

    def paintEvent(self, event: object) -> None:  # noqa: D102 - Qt override
        c = self._colors
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor(c.window))
        fm = p.fontMetrics()
        row_h = max(fm.height() + 6, (self.height() - fm.height() - 8) / len(STEPS))
        label_w = max(fm.horizontalAdvance(label) for label, _, _ in STEPS) + 10
        value_w = fm.horizontalAdvance("00000 ms") + 8
        left, right = label_w, self.width() - value_w
        zero = _zero(self.marks)
        spans = []
        for label, a, b in STEPS:
            if zero is not None and a in self.marks and b in self.marks:
                spans.append((label, (self.marks[a] - zero) * 1e3, (self.marks[b] - zero) * 1e3))
            else:
                spans.append((label, None, None))
        full = max([end for _, _, end in spans if end is not None] + [100.0])
        scale = (right - left) / full
        for i, (label, start, end) in enumerate(spans):
            y = 4 + i * row_h
            p.setPen(QColor(c.text))
            p.drawText(QRectF(0, y, label_w - 6, row_h), Qt.AlignmentFlag.AlignRight
                       | Qt.AlignmentFlag.AlignVCenter, label)
            if start is None or end is None:
                p.setPen(QColor(c.muted))
                p.drawText(QRectF(left + 4, y, 120, row_h), Qt.AlignmentFlag.AlignVCenter,
                           "\u2014")
                continue
            color = QColor(c.bad if i == len(STEPS) - 1 else c.accent)
            bar = QRectF(left + start * scale, y + 4, max(2.0, (end - start) * scale), row_h - 8)
            p.fillRect(bar, color)
            p.setPen(QColor(c.text))
            p.drawText(QRectF(bar.right() + 4, y, value_w + 60, row_h),
                       Qt.AlignmentFlag.AlignVCenter, f"{end - start:.0f} ms")
        axis_y = 4 + len(STEPS) * row_h
        p.setPen(QColor(c.muted))
        p.drawLine(int(left), int(axis_y), int(right), int(axis_y))
        p.drawText(QRectF(left, axis_y, right - left, fm.height() + 4), Qt.AlignmentFlag.AlignLeft,
                   "0 ms (end of your speech)" if "speech_end" in self.marks
                   else "0 ms (key released)")
        p.drawText(QRectF(left, axis_y, right - left, fm.height() + 4),
                   Qt.AlignmentFlag.AlignRight, f"{full:.0f} ms")
        p.end()


class LatencyWaterfall(QWidget):
    """The last turn's waterfall over a table of the last few turns.

    A late span of an older turn updates only its history row; the chart always shows
    the newest turn.

    Runs on: GUI thread.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart = WaterfallChart(self)
        self.history = QTableWidget(0, 5, self)
        self.history.setHorizontalHeaderLabels(
            ["Turn", "ASR", "1st token", "1st audio", "Cut\u2192silent"]
        )
        self.history.verticalHeader().setVisible(False)
        self.history.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.history.setTabKeyNavigation(False)
        self.history.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.history.setAccessibleName("Latency history")
        self.history.setAccessibleDescription(
            "Milliseconds from the end of your speech to each milestone, for recent turns"
        )
        self.history.setMaximumHeight(150)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.chart, 3)
        layout.addWidget(self.history, 2)
        self._spans: dict[int, dict[str, float]] = {}

    def set_colors(self, colors: Colors) -> None:
        """Repaint with ``colors``."""
        self.chart.set_colors(colors)

    def update_span(self, span: TurnSpan) -> None:
        """Take the latest marks of ``span.turn_id``."""
        turn_id = int(span.turn_id)
        if self._spans and turn_id < min(self._spans) and len(self._spans) >= HISTORY:
            return  # older than everything kept
        self._spans[turn_id] = dict(span.marks)
        for old in sorted(self._spans)[:-HISTORY]:
            del self._spans[old]
        newest = max(self._spans)
        if turn_id == newest:
            self.chart.set_marks(turn_id, self._spans[turn_id])
        self._fill_history()

    def _fill_history(self) -> None:
        turns = sorted(self._spans, reverse=True)
        self.history.setRowCount(len(turns))
        for row, turn_id in enumerate(turns):
            m = self._spans[turn_id]
            cells = (
                str(turn_id),
                _fmt(_ms(m, "endpoint", "asr_final")),
                _fmt(_ms(m, "endpoint", "llm_first_token")),
                _fmt(_ms(m, "speech_end" if "speech_end" in m else "endpoint",
                         "first_audio")),
                _fmt(_ms(m, "barge_in", "playback_stopped")),
            )
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.history.setItem(row, col, item)
