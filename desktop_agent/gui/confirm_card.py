"""The confirmation card: a write's read-back, the time left, Confirm and Cancel.

The card never answers by itself: only a click, Enter / Escape while it has focus, or the
window's Confirm / Cancel shortcuts (wired by ``ActionsPresenter``) emit ``sig_answered``.
It does not take the keyboard focus when it appears: a stray Enter typed into another
control must not confirm a write the user has not read. It is announced instead.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAccessible, QAccessibleEvent, QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_agent.core.turns.reports import PublishAction
from desktop_agent.gui.a11y import name

TICK_MS: Final = 250
"""How often the countdown is redrawn (a quarter second keeps the seconds honest)."""
EXPIRED_HIDE_MS: Final = 2500
"""How long 'Expired' stays on screen before the card hides."""
CONFIRM_KEYS: Final = "Ctrl+Y"
CANCEL_KEYS: Final = "Ctrl+N"
KEYS_HINT: Final = f"Enter or {CONFIRM_KEYS} confirms \u00b7 Esc or {CANCEL_KEYS} cancels"


class ConfirmCard(QFrame):
    """Shows one pending write and collects the user's Confirm or Cancel.

    Args:
        clock: monotonic seconds (injected so tests can run the countdown out).
        parent: the Qt parent.

    Runs on: GUI thread.
    """

    sig_answered = Signal(bool)
    """The user confirmed (True) or cancelled (False) the action shown."""
    sig_open_changed = Signal(bool)
    """The card started (True) or stopped (False) waiting for an answer."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._clock = clock
        self.key: str | None = None
        """The idempotency key of the action shown (None while hidden)."""
        self.read_back = ""
        self.answered = False
        self.expired = False
        self.expired_hide_ms = EXPIRED_HIDE_MS
        self._deadline = 0.0
        self.setProperty("role", "card")
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the buttons take focus, not the frame
        self.setAccessibleName("Confirm action")
        self.title_label = QLabel("Confirm this action?")
        font = self.title_label.font()
        font.setBold(True)
        self.title_label.setFont(font)
        self.text_label = QLabel()
        self.text_label.setProperty("role", "read_back")
        self.text_label.setWordWrap(True)
        self.text_label.setTextFormat(Qt.TextFormat.PlainText)
        self.text_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.countdown_label = QLabel()
        self.countdown_label.setProperty("role", "muted")
        self.countdown_label.setTextFormat(Qt.TextFormat.PlainText)
        self.confirm_button = QPushButton("Confirm")
        self.confirm_button.setProperty("primary", "true")
        self.cancel_button = QPushButton("Cancel")
        for button in (self.confirm_button, self.cancel_button):
            # Enter on a focused button clicks that button; elsewhere in the card it confirms.
            button.setAutoDefault(True)
            button.setMinimumWidth(120)
        self.confirm_button.setDefault(True)
        name(self.confirm_button, "Confirm", f"Do it ({CONFIRM_KEYS})")
        name(self.cancel_button, "Cancel", f"Do not do it ({CANCEL_KEYS})")
        self.confirm_button.clicked.connect(self._on_confirm_button_clicked)
        self.cancel_button.clicked.connect(self._on_cancel_button_clicked)

        text = QVBoxLayout()
        text.setSpacing(2)
        text.addWidget(self.title_label)
        text.addWidget(self.text_label)
        text.addWidget(self.countdown_label)
        buttons = QVBoxLayout()
        buttons.addWidget(self.confirm_button)
        buttons.addWidget(self.cancel_button)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 8, 12, 8)
        row.addLayout(text, 1)
        row.addLayout(buttons)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._hide_timer = QTimer(self)
        self._hide_timer.setSingleShot(True)
        self._hide_timer.timeout.connect(self._on_hide_timer_timeout)
        self.hide()

    # -- what the runtime says ------------------------------------------------------------
    def show_action(self, action: PublishAction) -> None:
        """Show the pending ``action`` (replacing any shown one) and start its countdown."""
        self.key = action.key
        self.read_back = action.action.read_back
        self.answered = False
        self.expired = False
        self._deadline = self._clock() + max(0.0, action.expires_in_s)
        self._hide_timer.stop()
        self.title_label.setText("Confirm this action?")
        self.text_label.setText(self.read_back)
        self._set_buttons_enabled(True)
        description = f"{self.read_back} {KEYS_HINT}"
        self.setAccessibleDescription(description)
        self.confirm_button.setAccessibleDescription(f"Do it: {self.read_back} ({CONFIRM_KEYS})")
        self.show()
        self._timer.start()
        self.tick()
        QAccessible.updateAccessibility(QAccessibleEvent(self, QAccessible.Event.Alert))
        self.sig_open_changed.emit(True)

    def finish(self, key: str, outcome: str = "") -> bool:
        """The action ``key`` ran, failed or was cleared: hide the card.

        An expiry shows 'Expired' for a moment first. A key that is not the one shown
        (an older action's late news) changes nothing.

        Returns:
            True when the card was showing ``key``.
        """
        if key != self.key:
            return False
        if outcome == "expired":
            self._expire()
        else:
            self._close()
        return True

    # -- what the user does ---------------------------------------------------------------
    def is_open(self) -> bool:
        """True while the card waits for an answer (shown, not answered, not expired)."""
        return self.key is not None and not self.answered and not self.expired

    def answer(self, confirm: bool) -> bool:
        """Answer the action shown; returns False when nothing waits for an answer."""
        if not self.is_open():
            return False
        self.answered = True
        self._set_buttons_enabled(False)
        self.countdown_label.setText("Confirming\u2026" if confirm else "Cancelling\u2026")
        self.sig_open_changed.emit(False)
        self.sig_answered.emit(confirm)
        return True

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: D102 - Qt override
        key = event.key()
        if key == Qt.Key.Key_Escape and self.is_open():
            self.answer(False)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.is_open():
            self.answer(True)
        else:
            super().keyPressEvent(event)

    # -- countdown ------------------------------------------------------------------------
    def seconds_left(self) -> float:
        """Seconds until the action expires (0 once it has)."""
        return max(0.0, self._deadline - self._clock())

    def tick(self) -> None:
        """Redraw the countdown; expire the card when the time is up."""
        if self.key is None or self.expired:
            return
        left = self.seconds_left()
        if left <= 0.0:
            self._expire()
            return
        if not self.answered:
            self.countdown_label.setText(f"{math.ceil(left)} s left \u00b7 {KEYS_HINT}")

    def _expire(self) -> None:
        was_open = self.is_open()
        self.expired = True
        self._timer.stop()
        self._set_buttons_enabled(False)
        self.title_label.setText("Expired")
        self.countdown_label.setText("Nothing was done.")
        self.setAccessibleDescription(f"Expired: {self.read_back} Nothing was done.")
        if was_open:
            self.sig_open_changed.emit(False)
        self._hide_timer.start(self.expired_hide_ms)

    def _close(self) -> None:
        was_open = self.is_open()
        self._timer.stop()
        self._hide_timer.stop()
        self.key = None
        self.hide()
        if was_open:
            self.sig_open_changed.emit(False)

    def _set_buttons_enabled(self, on: bool) -> None:
        self.confirm_button.setEnabled(on)
        self.cancel_button.setEnabled(on)

    def _on_confirm_button_clicked(self) -> None:
        self.answer(True)

    def _on_cancel_button_clicked(self) -> None:
        self.answer(False)

    def _on_timer_timeout(self) -> None:
        self.tick()

    def _on_hide_timer_timeout(self) -> None:
        self._close()
