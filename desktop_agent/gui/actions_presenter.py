"""Wires the write path's view-model signals to the card, the ledger and the alarm notice."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QWidget

from desktop_agent.core.turns.reports import PublishAction
from desktop_agent.gui.a11y import Announcer
from desktop_agent.gui.alarm_notice import AlarmNotice
from desktop_agent.gui.confirm_card import CANCEL_KEYS, CONFIRM_KEYS, KEYS_HINT, ConfirmCard
from desktop_agent.gui.ledger_panel import LedgerPanel
from desktop_agent.runtime.view_api import AgentViewModel, AlarmRow

CLEARED_LINES: Final = {
    "cancelled": "Cancelled. Nothing was done.",
    "expired": "The confirmation expired. Nothing was done.",
    "replaced": "Replaced by a new request.",
    "dropped": "Dropped. Nothing was done.",
}


class ActionsPresenter(QObject):
    """Owns the confirmation card, the ledger panel and the alarm notice for one window.

    The window places the three widgets and puts ``action_confirm`` / ``action_cancel``
    in a menu (their shortcuts work anywhere in the window while the card waits).

    Args:
        view_model: the runtime's view model.
        announcer: the window's screen-reader live region.
        window: the top-level window (for the alarm's taskbar alert).

    Runs on: GUI thread.
    """

    def __init__(self, view_model: AgentViewModel, announcer: Announcer,
                 window: QWidget) -> None:
        super().__init__(window)
        self.view_model = view_model
        self.announcer = announcer
        self._window = window
        self.card = ConfirmCard()
        self.ledger = LedgerPanel()
        self.notice = AlarmNotice()
        self.action_confirm = self._action("&Confirm pending action", CONFIRM_KEYS, True)
        self.action_cancel = self._action("Ca&ncel pending action", CANCEL_KEYS, False)
        view_model.sig_action_changed.connect(self._on_view_model_action_changed)
        view_model.sig_ledger_changed.connect(self._on_view_model_ledger_changed)
        view_model.sig_alarm_fired.connect(self._on_view_model_alarm_fired)
        self.card.sig_answered.connect(self._on_card_answered)
        self.card.sig_open_changed.connect(self._on_card_open_changed)
        self.ledger.sig_undo_requested.connect(self._on_ledger_undo_requested)
        self.refresh()

    def _action(self, text: str, keys: str, confirm: bool) -> QAction:
        action = QAction(text, self._window)
        action.setShortcut(QKeySequence(keys))
        action.setEnabled(False)  # only while a card waits: the keys do nothing otherwise
        action.triggered.connect(lambda *_: self.card.answer(confirm))
        self._window.addAction(action)  # works even when the menu is never opened
        return action

    def widgets(self) -> tuple[QWidget, ...]:
        """The focusable controls, in tab order: the alarm's Dismiss, Confirm, Cancel."""
        return (self.notice.dismiss_button, self.card.confirm_button, self.card.cancel_button)

    def refresh(self) -> None:
        """Re-read the actions list and the timers and reminders."""
        self.ledger.set_actions(self.view_model.actions_log())
        self.ledger.set_alarms(self.view_model.alarms())

    # -- view model signals ---------------------------------------------------------------
    def _on_view_model_action_changed(self, action: PublishAction) -> None:
        if action.kind == "pending":
            self.card.show_action(action)
            self.announcer.announce(f"Please confirm: {action.action.read_back} {KEYS_HINT}.",
                                    assertive=True)
            return
        shown = self.card.finish(action.key, action.outcome)
        if action.kind == "executed":
            self.announcer.announce(f"Done: {action.result}" if action.result else "Done.")
            self.refresh()
        elif action.kind == "failed":
            self.announcer.announce(f"That did not work: {action.result or 'nothing changed'}")
            self.refresh()
        elif action.kind == "cleared" and shown:
            self.announcer.announce(CLEARED_LINES.get(action.outcome, "Nothing was done."))

    def _on_view_model_ledger_changed(self) -> None:
        self.refresh()

    def _on_view_model_alarm_fired(self, row: AlarmRow) -> None:
        line = self.notice.show_alarm(row)
        self.announcer.announce(line, assertive=True)
        QApplication.alert(self._window)  # flashes the taskbar entry when not in front
        self.refresh()

    # -- user requests --------------------------------------------------------------------
    def _on_card_answered(self, confirm: bool) -> None:
        self.view_model.answer_action(confirm)

    def _on_card_open_changed(self, is_open: bool) -> None:
        self.action_confirm.setEnabled(is_open)
        self.action_cancel.setEnabled(is_open)

    def _on_ledger_undo_requested(self, key: str) -> None:
        sentence = self.view_model.undo_action(key) or "Undone."
        self.ledger.show_status(sentence)
        self.announcer.announce(sentence)
        self.refresh()
