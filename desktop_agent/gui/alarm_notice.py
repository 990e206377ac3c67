"""The window notification of a timer that ended or a reminder that came due."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from desktop_agent.gui.ledger_panel import clock_text
from desktop_agent.runtime.view_api import AlarmRow


def alarm_line(row: AlarmRow) -> str:
    """The sentence shown and announced for a fired alarm."""
    if row.kind == "timer":
        label = f" \u201c{row.label}\u201d" if row.label else ""
        return f"Timer{label} finished ({clock_text(row.due_at)})."
    return f"Reminder ({clock_text(row.due_at)}): {row.label or 'now'}"


class AlarmNotice(QFrame):
    """A non-modal banner naming the alarm that fired, with a Dismiss button.

    It stays until dismissed, so a user who was away from the screen still sees it;
    the next alarm replaces it.

    Runs on: GUI thread.
    """

    sig_dismissed = Signal()
    """The user dismissed the notification."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setProperty("role", "notice")
        self.setAccessibleName("Alarm")
        self.row: AlarmRow | None = None
        self.text_label = QLabel()
        self.text_label.setWordWrap(True)
        self.text_label.setTextFormat(Qt.TextFormat.PlainText)
        font = self.text_label.font()
        font.setBold(True)
        self.text_label.setFont(font)
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.setAutoDefault(True)
        self.dismiss_button.setAccessibleName("Dismiss alarm")
        self.dismiss_button.setAccessibleDescription("Hide this timer or reminder notification")
        self.dismiss_button.clicked.connect(self._on_dismiss_button_clicked)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 10, 6)
        row.addWidget(self.text_label, 1)
        row.addWidget(self.dismiss_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.hide()

    def show_alarm(self, row: AlarmRow) -> str:
        """Show ``row`` (replacing any shown alarm) and return its sentence."""
        self.row = row
        line = alarm_line(row)
        self.text_label.setText(line)
        self.setAccessibleDescription(line)
        # Its announcement may have gone unheard (a screen reader presents announcements
        # of the window in front): the button Tab reaches first reads the alarm itself.
        self.dismiss_button.setAccessibleDescription(f"Hide this notification: {line}")
        self.show()
        return line

    def _on_dismiss_button_clicked(self) -> None:
        self.row = None
        self.hide()
        self.sig_dismissed.emit()
