"""The non-modal error banner and the model-loading status line."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_agent.runtime.view_api import LOAD_STAGES, ErrorNotice, LoadProgress

STAGE_NAMES: Final = {
    "asr": "Whisper",
    "llm": "Language model",
    "tts": "Piper voice",
    "vad": "Voice detector",
    "aec": "Echo canceller",
}


class ErrorBanner(QFrame):
    """Shows one error: its code, what happened and what to do, with a Dismiss button.

    Non-modal: the window stays usable. Hidden until ``show_notice``.

    Runs on: GUI thread.
    """

    sig_dismissed = Signal()
    """The user dismissed the banner."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setProperty("role", "banner")
        self.setAccessibleName("Error")
        self.notice: ErrorNotice | None = None
        self.code_label = QLabel()
        self.code_label.setTextFormat(Qt.TextFormat.PlainText)
        self.message_label = QLabel()
        self.message_label.setWordWrap(True)
        self.message_label.setTextFormat(Qt.TextFormat.PlainText)
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fix_label = QLabel()
        self.fix_label.setWordWrap(True)
        self.fix_label.setTextFormat(Qt.TextFormat.PlainText)
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.setAutoDefault(True)  # Enter activates it, like Space
        self.dismiss_button.setAccessibleName("Dismiss error")
        self.dismiss_button.setAccessibleDescription("Hide this error message")
        self.dismiss_button.clicked.connect(self._on_dismiss_button_clicked)
        text = QVBoxLayout()
        text.setSpacing(2)
        text.addWidget(self.code_label)
        text.addWidget(self.message_label)
        text.addWidget(self.fix_label)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 10, 6)
        row.addLayout(text, 1)
        row.addWidget(self.dismiss_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_notice(self, notice: ErrorNotice) -> None:
        """Show ``notice`` (replacing any shown one)."""
        self.notice = notice
        font = self.code_label.font()
        font.setBold(True)
        self.code_label.setFont(font)
        self.code_label.setText(f"\u26a0 Error [{notice.code}]")
        self.message_label.setText(notice.message)
        self.fix_label.setText(f"What to do: {notice.fix}" if notice.fix else "")
        self.fix_label.setVisible(bool(notice.fix))
        fix = f" What to do: {notice.fix}" if notice.fix else ""
        self.setAccessibleDescription(f"Error {notice.code}: {notice.message}{fix}")
        # The button is what Tab reaches first, and an error announced while the window was
        # still connecting to the accessibility bus (at start-up) was never heard: reading
        # the button must read the error.
        self.dismiss_button.setAccessibleDescription(
            f"Hide this error: {notice.message}{fix}")
        self.show()

    def clear(self) -> None:
        """Hide the banner."""
        self.notice = None
        self.hide()

    def _on_dismiss_button_clicked(self) -> None:
        self.clear()
        self.sig_dismissed.emit()


class LoadingStatus(QLabel):
    """One line saying which engines are loading, ready or failed.

    Runs on: GUI thread.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setProperty("role", "muted")
        self.setAccessibleName("Model loading status")
        self.stages: dict[str, LoadProgress] = {}
        self.setText("Starting\u2026 (you can use the window while models load)")

    def update_progress(self, progress: LoadProgress) -> str:
        """Record ``progress`` and return the new status line."""
        self.stages[progress.stage] = progress
        parts = []
        for stage in LOAD_STAGES:
            p = self.stages.get(stage)
            if p is None:
                continue
            name = STAGE_NAMES[stage]
            if p.status == "loading":
                parts.append(f"Loading {name}\u2026")
            elif p.status == "ready":
                parts.append(f"{name} ready")
            else:
                parts.append(f"{name} failed" + (f": {p.detail}" if p.detail else ""))
        statuses = {p.status for p in self.stages.values()}
        line = " \u00b7 ".join(parts)
        if statuses == {"ready"} and {"asr", "llm", "tts"} <= set(self.stages):
            line = "All models ready \u00b7 " + line
        self.setText(line)
        self.setAccessibleDescription(line)
        return line
