"""The push-to-talk key: held anywhere in one window, it acts like holding the talk button."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPushButton, QWidget

_PLAIN = (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier)


class PttKeyFilter(QObject):
    """Application event filter that turns the PTT key of ``window`` into press/release.

    Installed on the QApplication so it sees the key whichever child has focus (a focused
    button or combo box would otherwise take Space). Auto-repeat events of a held key are
    swallowed: one press, one release.

    Runs on: GUI thread.
    """

    sig_pressed = Signal()
    """The PTT key went down (not an auto-repeat)."""
    sig_released = Signal()
    """The PTT key came up (not an auto-repeat)."""

    def __init__(self, window: QWidget, key: int) -> None:
        super().__init__(window)
        self._window = window
        self.key = key

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: D102 - Qt override
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self._window:
            return False  # another window (e.g. the settings dialog) keeps its keys
        assert isinstance(event, QKeyEvent)
        if event.key() != self.key or event.modifiers() not in _PLAIN:
            return False
        if not event.isAutoRepeat():
            (self.sig_pressed if kind == QEvent.Type.KeyPress else self.sig_released).emit()
        return True


def set_listening_style(button: QPushButton, on: bool) -> None:
    """Restyle the talk ``button`` for listening (``on``) or idle, and say so to readers."""
    button.setProperty("listening", "true" if on else "false")
    button.style().unpolish(button)
    button.style().polish(button)
    button.setAccessibleDescription(
        "Listening: release to send" if on else "Hold to talk; release to send"
    )
