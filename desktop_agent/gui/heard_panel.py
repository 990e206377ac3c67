"""After a barge-in: exactly what the user heard, when it was cut, and what was dropped."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QWidget

from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.gui.a11y import last_words

HEARD_TAIL_WORDS: Final = 8
"""How many of the last heard words a barge-in's announcement repeats (where it was cut)."""


def heard_announcement(report: HeardReport) -> str:
    """What the screen reader says of a barge-in: when it was cut, the last words heard,
    and how many were not."""
    n = len(report.unheard_text.split())
    heard = last_words(report.heard_text, HEARD_TAIL_WORDS).rstrip(".,;:!?")
    return (f"Interrupted after {report.cut_at_s:.1f} seconds. "
            + (f"You heard up to \u201c{heard}\u201d. " if heard else "You heard none of it. ")
            + f"{n} word{'s' if n != 1 else ''} not heard.")


def _value_label(accessible_name: str, focusable: bool = False) -> QLabel:
    label = QLabel("\u2014")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    flags = Qt.TextInteractionFlag.TextSelectableByMouse
    if focusable:
        flags |= Qt.TextInteractionFlag.TextSelectableByKeyboard
    label.setTextInteractionFlags(flags)
    label.setFocusPolicy(Qt.FocusPolicy.StrongFocus if focusable else Qt.FocusPolicy.NoFocus)
    label.setAccessibleName(accessible_name)
    return label


class HeardPanel(QGroupBox):
    """Shows the last interrupted reply's HeardReport.

    The heard text is shown verbatim: it is exactly what the conversation history keeps.
    A report of a reply that played to the end does not replace the last barge-in.

    Runs on: GUI thread.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("What you heard (last interruption)", parent)
        self.setAccessibleName("Heard panel")
        self.report: HeardReport | None = None
        self.heard_label = _value_label("Heard text", focusable=True)
        self.heard_label.setAccessibleDescription(
            "The words of the last interrupted reply that you actually heard"
        )
        self.cut_label = _value_label("Cut time")
        self.dropped_label = _value_label("Dropped words")
        self.dropped_label.setProperty("role", "muted")
        form = QFormLayout(self)
        form.setContentsMargins(8, 6, 8, 6)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Heard:", self.heard_label)
        form.addRow("Cut at:", self.cut_label)
        form.addRow("Dropped:", self.dropped_label)
        self._placeholder()

    def _placeholder(self) -> None:
        self.heard_label.setText("\u2014")
        self.cut_label.setText("No interruption yet.")
        self.dropped_label.setText("\u2014")

    def show_report(self, report: HeardReport) -> bool:
        """Show ``report`` if it is a barge-in at least as new as the one shown.

        Returns:
            True when the panel now shows ``report``.
        """
        if not report.interrupted:
            return False
        if self.report is not None and report.turn_id < self.report.turn_id:
            return False  # a late report of an older turn must not hide a newer cut
        self.report = report
        dropped = report.unheard_text.strip()
        n_words = len(dropped.split())
        self.heard_label.setText(report.heard_text)
        about = " (word positions estimated)" if report.approximate else ""
        self.cut_label.setText(f"{report.cut_at_s:.2f} s into the reply (turn "
                               f"{report.turn_id}){about}")
        self.dropped_label.setText(
            f"{dropped}  ({n_words} word{'s' if n_words != 1 else ''})" if dropped else "nothing"
        )
        self.heard_label.setAccessibleDescription(
            f"Heard: {report.heard_text or 'nothing'}. Cut at {report.cut_at_s:.1f} seconds"
            f"{', about' if report.approximate else ''}. {n_words} words dropped."
        )
        return True
