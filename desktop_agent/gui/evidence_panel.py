"""Where a grounded answer came from: each spoken unit with its sources, never read aloud.

One row per unit of the current answer, in speaking order: the unit's words, whether it was
heard (after a barge-in: heard, partly heard, not heard), and under it each source: the
file (and page), the passage with the supporting words in bold, and a button that opens
the file. A new answer (a new generation) replaces the rows; a dropped unit (stale,
expired) is never shown as said.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any, Final

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.turns.reports import PublishUnit
from desktop_agent.gui.a11y import name

NO_EVIDENCE: Final = "Answers from your documents show their sources here."
STATUS: Final = {
    "ready": "playing",
    "heard": "heard",
    "partly_heard": "partly heard (you cut in)",
    "unheard": "not heard (you cut in)",
    "canceled": "not said (you cut in)",
}
"""What each disposition is called on screen; stale and expired units are not shown."""
HIDDEN: Final = frozenset({"stale", "expired"})


def highlighted(passage: str, quote: str) -> str:
    """``passage`` as rich text with ``quote`` in bold (escaped; first match, any case)."""
    at = passage.lower().find(quote.lower()) if quote else -1
    if at < 0:
        return html.escape(passage)
    end = at + len(quote)
    return (html.escape(passage[:at]) + "<b>" + html.escape(passage[at:end]) + "</b>"
            + html.escape(passage[end:]))


def open_file(path: str) -> bool:
    """Open ``path`` with the desktop's viewer; False when it cannot (a note, no viewer)."""
    if not path or path.startswith(("notes:", "calc:")):
        return False
    return QDesktopServices.openUrl(QUrl.fromLocalFile(path))


class _UnitRow(QWidget):
    """One unit: its words and status, then its sources."""

    def __init__(self, unit: Any, passage_text: Callable[[str], str | None],
                 opener: Callable[[str], bool]) -> None:
        super().__init__()
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 4, 0, 4)
        self.said = QLabel()
        self.said.setWordWrap(True)
        self.said.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        v.addWidget(self.said)
        self.unit_text = unit.text
        self.sources: list[tuple[QLabel, QPushButton]] = []
        for quote in unit.quotes:
            where = quote.title + (f", page {quote.page}" if quote.page else "")
            passage = passage_text(quote.passage_id) or quote.quote
            label = QLabel(f"<i>{html.escape(where)}</i>: {highlighted(passage, quote.quote)}")
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByKeyboard
                                          | Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # reachable with Tab
            name(label, f"Source: {where}", f"Supporting words: {quote.quote}")
            button = QPushButton("Open")
            name(button, f"Open {quote.title}", "Opens the source file in its viewer")
            # A note has no file to open, nor has a calculation ("calc:").
            button.setEnabled(not quote.file.startswith(("notes:", "calc:")))
            button.clicked.connect(lambda _=False, f=quote.file: opener(f))
            row = QHBoxLayout()
            row.setContentsMargins(16, 0, 0, 0)
            row.addWidget(label, 1)
            row.addWidget(button)
            v.addLayout(row)
            self.sources.append((label, button))
        self.set_status("ready")

    def set_status(self, disposition: str) -> None:
        self.status = disposition
        status = STATUS.get(disposition, disposition)
        self.said.setText(f"\u201c{html.escape(self.unit_text)}\u201d \u2014 {status}")
        name(self.said, f"Said: {self.unit_text}", f"Status: {status}")


class EvidencePanel(QGroupBox):
    """The sources of the answer being spoken (or last spoken).

    Args:
        passage_text: The full passage of an evidence id, to show the quote in context
            (None: only the quote is shown).
        opener: Opens a source file (default: the desktop's viewer).

    Runs on: GUI thread.
    """

    def __init__(self, passage_text: Callable[[str], str | None] | None = None,
                 opener: Callable[[str], bool] = open_file,
                 parent: QWidget | None = None) -> None:
        super().__init__("Sources of the answer", parent)
        name(self, "Evidence panel", "Where each part of the spoken answer came from")
        self._passage_text = passage_text or (lambda _id: None)
        self._opener = opener
        self.generation: int | None = None
        self.rows: dict[str, _UnitRow] = {}
        self._inner = QWidget()
        self._list = QVBoxLayout(self._inner)
        self._list.addStretch(1)
        self.empty = QLabel(NO_EVIDENCE)
        self.empty.setWordWrap(True)
        self._list.insertWidget(0, self.empty)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._inner)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # its rows take focus; it follows them
        QVBoxLayout(self).addWidget(scroll)

    def on_unit_changed(self, change: PublishUnit) -> None:
        """Show a unit's new disposition (a unit of a new answer replaces the old rows)."""
        unit = change.unit
        if change.disposition in HIDDEN:
            row = self.rows.get(unit.key)
            if row is not None and self.generation == unit.generation:
                row.set_status(change.disposition)
            return
        if self.generation != unit.generation:
            self.clear()
            self.generation = unit.generation
        row = self.rows.get(unit.key)
        if row is None:
            row = self.rows[unit.key] = _UnitRow(unit, self._passage_text, self._opener)
            self._list.insertWidget(self._list.count() - 1, row)
            self.empty.hide()
        row.set_status(change.disposition)

    def clear(self) -> None:
        """Forget the rows (a new answer is coming)."""
        for row in self.rows.values():
            row.setParent(None)
            row.deleteLater()
        self.rows.clear()
        self.generation = None
        self.empty.show()
