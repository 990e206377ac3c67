"""The control socket's commands on the real window: the same entry points as its keys.

``WindowRemote`` drives a real ``MainWindow`` wired to a recording view model: ``ptt start``
must do exactly what the talk key does (the button text, ``ptt_press``) plus the listening cue
(whoever uses it may not be looking), ``cancel`` drops the
turn and answers a waiting card with Cancel, ``show`` unminimises, ``quit`` closes.
"""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.devtools.demo_view_model import RecordingViewModel
from desktop_agent.gui.main_window import MainWindow
from desktop_agent.gui.window_panes import PTT_LISTENING
from desktop_agent.gui.window_remote import WindowRemote
from desktop_agent.runtime.instance_server import InstanceTarget


def _key(qtbot: Any, window: MainWindow, down: bool) -> None:
    from PySide6.QtCore import Qt

    (qtbot.keyPress if down else qtbot.keyRelease)(window.ptt_button, Qt.Key.Key_Space)


def test_ptt_start_and_stop_are_the_talk_key(qtbot: Any, window: MainWindow,
                                             vm: RecordingViewModel) -> None:
    _key(qtbot, window, True)
    by_key = (window.ptt_held, window.ptt_button.text(), vm.names())
    _key(qtbot, window, False)
    vm.calls.clear()
    remote: InstanceTarget = WindowRemote(window)
    assert remote.ptt_start() == "Listening."
    assert by_key[2] == ["ptt_press"]  # the window's own key: no cue, they are looking
    assert (window.ptt_held, window.ptt_button.text()) == by_key[:2]
    assert vm.calls == [("ptt_press", None), ("play_cue", "start")]
    assert window.ptt_button.text() == PTT_LISTENING
    assert remote.ptt_start() == "Already listening."
    assert remote.ptt_stop() == "Stopped listening."
    assert remote.ptt_stop() == "Was not listening."  # no cue for what did not happen
    assert vm.calls[2:] == [("ptt_release", None), ("play_cue", "stop")]
    assert not window.ptt_held


def test_toggle_presses_then_releases(window: MainWindow, vm: RecordingViewModel) -> None:
    remote = WindowRemote(window)
    assert [remote.ptt_toggle() for _ in range(3)] == [
        "Listening.", "Stopped listening.", "Listening."]
    assert [n for n in vm.names() if n != "play_cue"] == ["ptt_press", "ptt_release", "ptt_press"]


def test_cancel_drops_the_turn_before_the_key_comes_up(window: MainWindow,
                                                       vm: RecordingViewModel) -> None:
    remote = WindowRemote(window)
    remote.ptt_start()
    assert remote.ptt_cancel() == "Cancelled."
    assert vm.names() == ["ptt_press", "play_cue", "cancel_turn", "ptt_release", "play_cue"]
    assert not window.ptt_held and window.ptt_button.text() != PTT_LISTENING


def test_cancel_answers_a_waiting_card_with_cancel(window: MainWindow,
                                                   vm: RecordingViewModel) -> None:
    vm.publish("pending", "3.1", "Add a note: milk?", expires_in_s=30.0)
    assert window.actions_ui.card.is_open()
    assert WindowRemote(window).ptt_cancel() == "Cancelled, and the pending action with it."
    assert vm.calls == [("cancel_turn", None), ("answer_action", False)]


@pytest.mark.qt_log_ignore("does not support raise")  # the offscreen platform has no stacking
def test_show_unminimises_and_quit_closes(qtbot: Any, window: MainWindow) -> None:
    from PySide6.QtCore import Qt

    remote = WindowRemote(window)
    window.showMinimized()
    qtbot.waitUntil(lambda: window.isMinimized())
    assert remote.show("") == "Shown."
    qtbot.waitUntil(lambda: not window.isMinimized())
    assert window.isVisible()
    assert not window.windowState() & Qt.WindowState.WindowMinimized
    assert remote.quit() == "Quitting."
    assert window.isVisible()  # not before the reply has gone out
    qtbot.waitUntil(lambda: not window.isVisible())
