"""The confirmation card, the actions list with Undo, timers and reminders, alarm notices."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_agent.devtools.demo_view_model import RecordingViewModel
from desktop_agent.gui.confirm_card import ConfirmCard
from desktop_agent.gui.ledger_panel import NO_ACTIONS, NO_ALARMS, LedgerPanel, time_left_text
from desktop_agent.runtime.view_api import ActionRow, AlarmRow
from tests.fakes.clock import FakeClock

READ_BACK = "Add a note: \u201cbuy milk\u201d?"


def _pending(vm: RecordingViewModel, key: str = "4.1", expires_in_s: float = 30.0) -> None:
    vm.publish("pending", key, READ_BACK, expires_in_s=expires_in_s)


def test_card_appears_on_pending_with_read_back_and_is_announced(window, vm) -> None:
    card = window.actions_ui.card
    assert not card.isVisible()
    assert not window.actions_ui.action_confirm.isEnabled()
    _pending(vm)
    assert card.isVisible()
    assert card.text_label.text() == READ_BACK
    assert "30 s left" in card.countdown_label.text()
    assert READ_BACK in window.announcer.text()
    assert READ_BACK in card.accessibleDescription()
    assert window.actions_ui.action_confirm.isEnabled()
    # It is announced, but it does not take the focus: a stray Enter must not confirm.
    assert not card.isAncestorOf(QApplication.focusWidget())


def test_confirm_and_cancel_by_click(window, vm, qtbot) -> None:
    card = window.actions_ui.card
    _pending(vm)
    qtbot.mouseClick(card.confirm_button, Qt.MouseButton.LeftButton)
    assert vm.calls == [("answer_action", True)]
    qtbot.mouseClick(card.cancel_button, Qt.MouseButton.LeftButton)  # already answered
    assert vm.calls == [("answer_action", True)]
    _pending(vm, "5.1")
    qtbot.mouseClick(card.cancel_button, Qt.MouseButton.LeftButton)
    assert vm.calls[-1] == ("answer_action", False)


def test_keyboard_tab_enter_and_escape(window, vm, qtbot) -> None:
    card = window.actions_ui.card
    _pending(vm)
    window.ptt_button.setFocus()
    window.focusPreviousChild()  # Shift+Tab from talk reaches the card's Cancel, then Confirm
    assert window.focusWidget() is card.cancel_button
    window.focusPreviousChild()
    assert window.focusWidget() is card.confirm_button
    qtbot.keyClick(card.confirm_button, Qt.Key.Key_Return)
    assert vm.calls == [("answer_action", True)]

    _pending(vm, "5.1")
    card.cancel_button.setFocus()
    qtbot.keyClick(card.cancel_button, Qt.Key.Key_Return)  # Enter on Cancel cancels
    assert vm.calls[-1] == ("answer_action", False)

    _pending(vm, "6.1")
    card.confirm_button.setFocus()
    qtbot.keyClick(card.confirm_button, Qt.Key.Key_Escape)  # Escape anywhere in the card
    assert vm.calls[-1] == ("answer_action", False)
    assert len(vm.calls) == 3


def test_window_shortcuts_answer_only_while_the_card_waits(window, vm, qtbot) -> None:
    window.activateWindow()
    window.conversation.setFocus()
    qtbot.keyClick(window.conversation, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert vm.calls == []  # nothing pending: the shortcut does nothing
    _pending(vm)
    qtbot.keyClick(window.conversation, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert vm.calls == [("answer_action", True)]
    assert not window.actions_ui.action_confirm.isEnabled()
    _pending(vm, "5.1")
    qtbot.keyClick(window.conversation, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert vm.calls[-1] == ("answer_action", False)
    shortcuts = {a.shortcut().toString() for a in window.findChildren(type(
        window.actions_ui.action_confirm)) if a is not window.actions_ui.action_confirm
        and a is not window.actions_ui.action_cancel}
    assert not {"Ctrl+Y", "Ctrl+N"} & shortcuts  # no clash with another entry


def test_card_hides_on_executed_and_cleared_but_not_for_another_key(window, vm) -> None:
    card = window.actions_ui.card
    _pending(vm)
    vm.publish("cleared", "3.1", READ_BACK, outcome="replaced")  # an older action's news
    assert card.isVisible()
    vm.publish("executed", "4.1", READ_BACK, result="Noted: buy milk.")
    assert not card.isVisible()
    assert "Noted: buy milk." in window.announcer.text()
    _pending(vm, "5.1")
    vm.publish("cleared", "5.1", READ_BACK, outcome="cancelled")
    assert not card.isVisible()
    assert window.announcer.text() == "Cancelled. Nothing was done."
    assert not window.actions_ui.action_cancel.isEnabled()


def test_countdown_runs_out_shows_expired_then_hides(qtbot) -> None:
    clock = FakeClock(1000.0)
    card = ConfirmCard(clock.now)
    qtbot.addWidget(card)
    vm = RecordingViewModel()
    card.sig_answered.connect(vm.answer_action)
    card.expired_hide_ms = 50
    _show(card, vm)
    assert card.countdown_label.text().startswith("30 s left")
    clock.advance(12.2)
    card.tick()
    assert card.countdown_label.text().startswith("18 s left")
    clock.advance(18.0)
    card.tick()
    assert card.title_label.text() == "Expired"
    assert not card.confirm_button.isEnabled()
    assert not card.answer(True)  # too late: nothing is sent
    assert vm.calls == []
    assert card.isVisible()
    qtbot.waitUntil(lambda: not card.isVisible(), timeout=2000)


def _show(card: ConfirmCard, vm: RecordingViewModel) -> None:
    got = []
    vm.sig_action_changed.connect(got.append)
    vm.publish("pending", "4.1", READ_BACK, expires_in_s=30.0)
    card.show_action(got[0])
    card.show()


def test_ledger_lists_rows_and_undo_calls_undo_action(window, vm, qtbot) -> None:
    panel = window.actions_ui.ledger
    assert panel.actions_tree.topLevelItem(0).text(0) == NO_ACTIONS
    assert panel.alarms_tree.topLevelItem(0).text(0) == NO_ALARMS
    vm.action_rows = [
        ActionRow("2.1", "add_note", "text: buy milk", "Noted: buy milk.", 1.7e9,
                  can_undo=True),
        ActionRow("1.1", "set_timer", "5 minutes", "Timer set.", 1.7e9 - 60),
    ]
    vm.sig_ledger_changed.emit()
    tree = panel.actions_tree
    assert tree.topLevelItemCount() == 2
    assert [tree.topLevelItem(0).text(c) for c in (1, 2, 3)] == [
        "Add note", "text: buy milk", "Noted: buy milk."]
    assert list(panel.undo_buttons) == ["2.1"]  # the timer row has no Undo
    # Keyboard: Tab from the list reaches the row's Undo, then the timers list.
    tree.setFocus()
    window.focusNextChild()
    button = panel.undo_buttons["2.1"]
    assert window.focusWidget() is button
    assert button.accessibleName() and button.accessibleDescription()
    qtbot.keyClick(button, Qt.Key.Key_Return)
    assert vm.calls == [("undo_action", "2.1")]
    assert panel.undo_buttons == {}  # undone: no Undo any more
    assert tree.topLevelItem(0).text(4) == "Undone"
    assert panel.status_label.text() == "Undone: Noted: buy milk."
    assert window.announcer.text() == "Undone: Noted: buy milk."
    assert window.focusWidget() is tree  # focus is kept in the list, not lost


def test_executed_refreshes_the_actions_list(window, vm) -> None:
    vm.action_rows = [ActionRow("4.1", "add_note", "text: buy milk", "Noted.", 1.7e9, False,
                                True)]
    _pending(vm)
    vm.publish("executed", "4.1", READ_BACK, result="Noted.")
    assert window.actions_ui.ledger.actions_tree.topLevelItem(0).text(1) == "Add note"


def test_alarms_time_left_ticks(qtbot) -> None:
    clock = FakeClock(1_700_000_000.0)
    panel = LedgerPanel(clock.now)
    qtbot.addWidget(panel)
    panel.set_alarms([AlarmRow(1, "timer", "pasta", clock.now() + 245),
                      AlarmRow(2, "reminder", "call mum", clock.now() + 3 * 3600 + 61)])
    assert panel.time_left() == ["4:05", "3:01:01"]
    assert panel.alarms_tree.topLevelItem(0).text(1) == "pasta"
    clock.advance(5)
    panel.tick()
    assert panel.time_left() == ["4:00", "3:00:56"]
    clock.advance(240)
    panel.tick()
    assert panel.time_left()[0] == "now"
    panel.set_alarms([])
    assert panel.time_left() == []
    assert panel.alarms_tree.topLevelItem(0).text(0) == NO_ALARMS


def test_time_left_text() -> None:
    assert time_left_text(0.2) == "0:01"
    assert time_left_text(59.0) == "0:59"
    assert time_left_text(3600.0) == "1:00:00"
    assert time_left_text(2 * 86400 + 3 * 3600 + 10) == "2 d 3 h"
    assert time_left_text(-1.0) == "now"


def test_alarm_fired_shows_notice_announces_and_refreshes(window, vm, qtbot) -> None:
    vm.alarm_rows = [AlarmRow(2, "reminder", "call mum", 1.7e9 + 600)]
    fired = AlarmRow(1, "timer", "pasta", 1.7e9)
    vm.sig_alarm_fired.emit(fired)
    notice = window.actions_ui.notice
    assert notice.isVisible()
    assert "Timer \u201cpasta\u201d finished" in notice.text_label.text()
    assert window.announcer.text() == notice.text_label.text()
    assert window.actions_ui.ledger.alarms_tree.topLevelItem(0).text(1) == "call mum"
    notice.dismiss_button.setFocus()
    qtbot.keyClick(notice.dismiss_button, Qt.Key.Key_Return)
    assert not notice.isVisible()
