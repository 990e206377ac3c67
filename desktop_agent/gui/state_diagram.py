"""The turn-taking state machine, drawn live, and the log of its transitions."""

from __future__ import annotations

import math
from typing import Final

from PySide6.QtCore import QEasingCurve, QPointF, QRectF, QSize, Qt, QVariantAnimation
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from desktop_agent.core.turns.states import State, Transition
from desktop_agent.gui.theme import NORMAL, Colors

S = State
# Grid position (column, row) of each node on a 4 x 3 grid: the main cycle
# LISTENING -> USER_SPEAKING -> PROCESSING -> ASSISTANT_SPEAKING -> LISTENING runs clockwise.
NODE_POS: Final[dict[State, tuple[float, float]]] = {
    S.LISTENING: (0, 1),
    S.USER_SPEAKING: (1, 0),
    S.PROCESSING: (2, 0),
    S.WAITING_FOR_TOOL: (3, 0),
    S.INTERRUPTED: (1, 2),
    S.ASSISTANT_SPEAKING: (2, 2),
    S.ERROR: (3, 1.5),
}
# (source, target, bend): bend bows the edge sideways (fraction of its length) so that
# the two directions of a pair do not overlap.
MAIN_EDGES: Final[tuple[tuple[State, State, float], ...]] = (
    (S.LISTENING, S.USER_SPEAKING, 0.12),
    (S.USER_SPEAKING, S.LISTENING, 0.12),
    (S.USER_SPEAKING, S.PROCESSING, 0.0),
    (S.PROCESSING, S.WAITING_FOR_TOOL, 0.15),
    (S.WAITING_FOR_TOOL, S.PROCESSING, 0.15),
    (S.PROCESSING, S.ASSISTANT_SPEAKING, 0.0),
    (S.ASSISTANT_SPEAKING, S.LISTENING, 0.22),
    (S.ASSISTANT_SPEAKING, S.INTERRUPTED, 0.15),
    (S.INTERRUPTED, S.ASSISTANT_SPEAKING, 0.15),
    (S.INTERRUPTED, S.USER_SPEAKING, 0.0),
    (S.ERROR, S.LISTENING, -0.1),
)
_EDGE_BEND: Final = {(a, b): bend for a, b, bend in MAIN_EDGES}
HIGHLIGHT_MS: Final = 1200


class StateDiagramWidget(QWidget):
    """Draws all seven states and the main edges; lights the current state.

    The last transition's edge glows and fades over ``HIGHLIGHT_MS`` (labelled with its
    cause), then stays drawn in the accent colour until the next one.

    Runs on: GUI thread.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.current = State.LISTENING
        self.last: Transition | None = None
        self._colors: Colors = NORMAL
        self._glow = 0.0
        self._anim = QVariantAnimation(self)
        self._anim.setStartValue(1.0)
        self._anim.setEndValue(0.0)
        self._anim.setDuration(HIGHLIGHT_MS)
        self._anim.setEasingCurve(QEasingCurve.Type.InQuad)
        self._anim.valueChanged.connect(self._on_anim_value_changed)
        self.setMinimumSize(360, 200)
        self.setAccessibleName("Turn state diagram")
        self._describe()

    def sizeHint(self) -> QSize:  # noqa: D102 - Qt override
        return QSize(520, 250)

    def set_colors(self, colors: Colors) -> None:
        """Repaint with ``colors``."""
        self._colors = colors
        self.update()

    def show_transition(self, transition: Transition) -> None:
        """Light ``transition.target`` and animate the edge that led there."""
        self.current = transition.target
        self.last = transition
        self._anim.stop()
        self._glow = 1.0
        self._anim.start()
        self._describe()
        self.update()

    def _on_anim_value_changed(self, value: object) -> None:
        self._glow = float(value)  # type: ignore[arg-type]
        self.update()

    def _describe(self) -> None:
        text = f"Current state: {self.current.label}."
        if self.last is not None:
            text += f" Last change: {self.last.source.label} to {self.last.target.label}"
            text += f" because {self.last.cause.replace('_', ' ')}."
        self.setAccessibleDescription(text)

    # -- geometry -------------------------------------------------------------------------
    def _node_rect(self, state: State) -> QRectF:
        col, row = NODE_POS[state]
        w, h = self.width(), self.height()
        node_w = min(150.0, w / 4 - 14)
        node_h = max(28.0, min(44.0, h / 3 - 22))
        cx = (col + 0.5) * w / 4
        cy = 14 + node_h / 2 + row * (h - 28 - node_h) / 2
        return QRectF(cx - node_w / 2, cy - node_h / 2, node_w, node_h)

    @staticmethod
    def _clip(rect: QRectF, toward: QPointF) -> QPointF:
        """Where the line from ``rect``'s centre toward ``toward`` leaves the rect."""
        c = rect.center()
        dx, dy = toward.x() - c.x(), toward.y() - c.y()
        if dx == 0 and dy == 0:
            return c
        sx = (rect.width() / 2 + 3) / abs(dx) if dx else math.inf
        sy = (rect.height() / 2 + 3) / abs(dy) if dy else math.inf
        s = min(sx, sy, 1.0)
        return QPointF(c.x() + dx * s, c.y() + dy * s)

    def _edge_path(self, source: State, target: State) -> tuple[QPainterPath, QPointF, QPointF]:
        """The edge's curve, its end point and the direction it arrives from."""
        bend = _EDGE_BEND.get((source, target), 0.25)
        a, b = self._node_rect(source), self._node_rect(target)
        ca, cb = a.center(), b.center()
        mid = (ca + cb) / 2
        nx, ny = -(cb.y() - ca.y()), cb.x() - ca.x()  # normal, length = edge length
        ctrl = QPointF(mid.x() + nx * bend, mid.y() + ny * bend)
        start, end = self._clip(a, ctrl), self._clip(b, ctrl)
        path = QPainterPath(start)
        path.quadTo(ctrl, end)
        return path, end, ctrl

    # -- painting -------------------------------------------------------------------------
    def paintEvent(self, event: object) -> None:  # noqa: D102 - Qt override
        c = self._colors
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor(c.window))
        last_edge = (self.last.source, self.last.target) if self.last else None
        for source, target, _ in MAIN_EDGES:
            if (source, target) != last_edge:
                self._draw_edge(p, source, target, QColor(c.edge), 1.4)
        if self.last is not None and last_edge is not None and last_edge[0] != last_edge[1]:
            glow = QColor(c.highlight_edge)
            glow.setAlphaF(0.35 * self._glow)
            if self._glow > 0:
                self._draw_edge(p, *last_edge, glow, 9.0 * self._glow + 1)
            self._draw_edge(p, *last_edge, QColor(c.highlight_edge), 2.6)
        for state in State:
            self._draw_node(p, state)
        self._draw_error_hint(p)
        if self.last is not None and self._glow > 0 and last_edge is not None:
            path, _, _ = self._edge_path(*last_edge)
            at = path.pointAtPercent(0.5)
            color = QColor(c.text)
            color.setAlphaF(min(1.0, 0.4 + self._glow))
            p.setPen(color)
            p.drawText(QRectF(at.x() - 90, at.y() - 22, 180, 18),
                       Qt.AlignmentFlag.AlignCenter, self.last.cause)
        p.end()

    def _draw_edge(self, p: QPainter, source: State, target: State, color: QColor,
                   width: float) -> None:
        path, end, ctrl = self._edge_path(source, target)
        p.setPen(QPen(color, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPath(path)
        angle = math.atan2(end.y() - ctrl.y(), end.x() - ctrl.x())
        size = 7.0 + width
        head = QPolygonF([
            end,
            QPointF(end.x() - size * math.cos(angle - 0.4), end.y() - size * math.sin(angle - 0.4)),
            QPointF(end.x() - size * math.cos(angle + 0.4), end.y() - size * math.sin(angle + 0.4)),
        ])
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(color)
        p.drawPolygon(head)

    def _draw_node(self, p: QPainter, state: State) -> None:
        c = self._colors
        rect = self._node_rect(state)
        lit = state is self.current
        fill = QColor(c.bad if lit and state is State.ERROR else c.accent if lit else c.node)
        p.setPen(QPen(QColor(c.accent if lit else c.node_border), 3.0 if lit else 1.5))
        p.setBrush(fill)
        p.drawRoundedRect(rect, 8, 8)
        font = QFont(self.font())
        font.setBold(lit)
        p.setFont(font)
        p.setPen(QColor(c.accent_text if lit else c.text))
        p.drawText(rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, state.label)

    def _draw_error_hint(self, p: QPainter) -> None:
        rect = self._node_rect(State.ERROR)
        p.setPen(QColor(self._colors.muted))
        font = QFont(self.font())
        font.setPointSizeF(max(6.0, font.pointSizeF() * 0.8))
        p.setFont(font)
        p.drawText(QRectF(rect.left() - 20, rect.top() - 20, rect.width() + 40, 18),
                   Qt.AlignmentFlag.AlignCenter, "← from any state")


class TransitionLog(QTableWidget):
    """One row per transition: turn, from, to, cause, seconds since the turn started.

    Runs on: GUI thread.
    """

    MAX_ROWS: Final = 200

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 5, parent)
        self.setHorizontalHeaderLabels(["Turn", "From", "To", "Cause", "+s"])
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setTabKeyNavigation(False)  # Tab leaves the table; arrows move inside it
        self.setAlternatingRowColors(True)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self._turn_start: dict[int, float] = {}

    def add(self, transition: Transition) -> None:
        """Append ``transition`` (dropping the oldest rows past MAX_ROWS)."""
        start = self._turn_start.setdefault(transition.turn_id, transition.at_s)
        cells = (
            str(transition.turn_id),
            transition.source.label,
            transition.target.label,
            transition.cause,
            f"{transition.at_s - start:+.2f}",
        )
        if self.rowCount() >= self.MAX_ROWS:
            self.removeRow(0)
        row = self.rowCount()
        self.insertRow(row)
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if col in (0, 4):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, col, item)
        self.scrollToBottom()

    def rows(self) -> list[tuple[str, ...]]:
        """The table's text, row by row (for tests and copy)."""
        return [
            tuple(self.item(r, c).text() for c in range(self.columnCount()))
            for r in range(self.rowCount())
        ]
