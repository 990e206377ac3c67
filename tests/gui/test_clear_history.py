"""Agent > Clear history: keyboard reachable, named for screen readers, confirmed first."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from desktop_agent.devtools.demo_view_model import RecordingViewModel
from desktop_agent.gui.privacy_menu import KEPT_NOTHING


class ClearingViewModel(RecordingViewModel):
    """Records ``clear_history`` requests."""

    def clear_history(self) -> str:  # noqa: D102 - records
        self.calls.append(("clear_history", None))
        return "Conversation history cleared."


@pytest.fixture
def vm() -> ClearingViewModel:
    return ClearingViewModel()


def _box(qtbot) -> QMessageBox:  # type: ignore[no-untyped-def]
    found: list[QMessageBox] = []

    def is_open() -> bool:
        found[:] = [w for w in QApplication.topLevelWidgets()
                    if isinstance(w, QMessageBox) and w.objectName() == "clear_history_box"
                    and w.isVisible()]
        return bool(found)

    qtbot.waitUntil(is_open)
    return found[0]


def _button(box: QMessageBox, accessible: str) -> QPushButton:
    return next(b for b in box.findChildren(QPushButton) if b.accessibleName() == accessible)


def test_the_menu_item_has_a_shortcut_and_asks_before_clearing(window, vm, qtbot) -> None:
    action = window.action_clear_history
    assert action.text() == "&Clear history\u2026"
    assert action.shortcut().toString() == "Ctrl+Shift+Del"
    assert action in window.menuBar().actions()[0].menu().actions()

    qtbot.keyClick(window, Qt.Key.Key_Delete,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    box = _box(qtbot)
    assert box.accessibleName() == "Clear history"
    assert box.defaultButton() is _button(box, "Cancel")  # a stray Enter erases nothing
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.announcer.last_announcement == KEPT_NOTHING)
    assert "clear_history" not in vm.names()

    action.trigger()
    box = _box(qtbot)
    clear = _button(box, "Clear history")
    assert clear.accessibleDescription()
    clear.setFocus()
    qtbot.keyClick(clear, Qt.Key.Key_Space)  # the keyboard reaches the destructive button too
    qtbot.waitUntil(lambda: "clear_history" in vm.names())
    assert vm.names().count("clear_history") == 1
    assert window.announcer.last_announcement == "Conversation history cleared."
