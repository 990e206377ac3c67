"""The tray icon: its menu calls the window's own entry points, its tooltip follows the turn.

``AgentTray`` is built on a fake remote (the control socket's ``WindowRemote`` interface)
and a real Agent > Quit action; the offscreen platform has no tray, so ``make_tray`` there
must make nothing, and with a tray (``isSystemTrayAvailable`` patched) makes a shown one.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QSystemTrayIcon

from desktop_agent.core.turns.states import State, Transition
from desktop_agent.devtools.demo_view_model import RecordingViewModel
from desktop_agent.gui import tray as tray_module
from desktop_agent.gui.main_window import MainWindow
from desktop_agent.gui.tray import AgentTray, make_tray
from desktop_agent.gui.window_remote import WindowRemote


class FakeRemote:
    """Records what the tray asks the window to do."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def ptt_toggle(self) -> str:
        self.calls.append("ptt_toggle")
        return "Listening."

    def show(self, activation_token: str) -> str:
        self.calls.append(f"show({activation_token!r})")
        return "Shown."


@pytest.fixture
def remote() -> FakeRemote:
    return FakeRemote()


@pytest.fixture
def quits(qtbot: Any) -> tuple[QAction, list[bool]]:
    action = QAction("&Quit")
    fired: list[bool] = []
    action.triggered.connect(lambda: fired.append(True))
    return action, fired


def _tray(remote: FakeRemote, quit_action: QAction, vm: RecordingViewModel) -> AgentTray:
    return AgentTray(remote, quit_action, vm, QIcon())


def _go(vm: RecordingViewModel, target: State, source: State = State.LISTENING) -> None:
    vm.sig_transition.emit(Transition(1, source, target, "test", 0.0))


def test_menu_entries_call_the_window_entry_points(remote: FakeRemote, quits: Any,
                                                   vm: RecordingViewModel) -> None:
    quit_action, fired = quits
    tray = _tray(remote, quit_action, vm)
    tray.action_talk.trigger()
    tray.action_show.trigger()
    assert remote.calls == ["ptt_toggle", "show('')"] and not fired
    tray.action_quit.trigger()
    assert fired == [True] and remote.calls == ["ptt_toggle", "show('')"]


def test_a_left_click_shows_the_window_and_other_clicks_do_not(
        remote: FakeRemote, quits: Any, vm: RecordingViewModel) -> None:
    tray = _tray(remote, quits[0], vm)
    tray.activated.emit(QSystemTrayIcon.ActivationReason.Context)  # the menu opens instead
    assert remote.calls == []
    tray.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    assert remote.calls == ["show('')"]


def test_menu_entries_have_names_a_screen_reader_reads(remote: FakeRemote, quits: Any,
                                                      vm: RecordingViewModel) -> None:
    tray = _tray(remote, quits[0], vm)
    assert tray.contextMenu() is tray.menu
    texts = [a.text().replace("&", "") for a in tray.menu.actions() if not a.isSeparator()]
    assert texts == ["Talk", "Show window", "Quit"]
    assert all(a.toolTip() for a in tray.menu.actions() if not a.isSeparator())
    assert tray.menu.accessibleName() == "Desktop Agent tray menu"


@pytest.mark.parametrize(("target", "word"), [
    (State.USER_SPEAKING, "listening"), (State.PROCESSING, "thinking"),
    (State.WAITING_FOR_TOOL, "thinking"), (State.ASSISTANT_SPEAKING, "speaking"),
    (State.ERROR, "error"), (State.LISTENING, "idle")])
def test_the_tooltip_follows_the_state(remote: FakeRemote, quits: Any, vm: RecordingViewModel,
                                       target: State, word: str) -> None:
    tray = _tray(remote, quits[0], vm)
    assert tray.toolTip() == "Desktop Agent: idle"
    _go(vm, State.PROCESSING if target is not State.PROCESSING else State.USER_SPEAKING)
    _go(vm, target)
    assert tray.toolTip() == f"Desktop Agent: {word}"


def test_a_turn_goes_round_in_the_tooltip(remote: FakeRemote, quits: Any,
                                          vm: RecordingViewModel) -> None:
    tray = _tray(remote, quits[0], vm)
    seen = []
    for source, target in [(State.LISTENING, State.USER_SPEAKING),
                           (State.USER_SPEAKING, State.PROCESSING),
                           (State.PROCESSING, State.ASSISTANT_SPEAKING),
                           (State.ASSISTANT_SPEAKING, State.LISTENING)]:
        _go(vm, target, source)
        seen.append(tray.toolTip().removeprefix("Desktop Agent: "))
    assert seen == ["listening", "thinking", "speaking", "idle"]


def test_no_tray_no_icon(remote: FakeRemote, quits: Any, vm: RecordingViewModel) -> None:
    assert not QSystemTrayIcon.isSystemTrayAvailable()  # the offscreen platform has none
    assert make_tray(remote, quits[0], vm, QIcon()) is None


@pytest.mark.qt_log_ignore("No Icon set", "systemTrayWindowChanged")  # offscreen: no real tray
def test_with_a_tray_the_icon_is_made_and_shown(monkeypatch: pytest.MonkeyPatch,
                                                remote: FakeRemote, quits: Any,
                                                vm: RecordingViewModel) -> None:
    monkeypatch.setattr(tray_module, "tray_available", lambda: True)
    tray = make_tray(remote, quits[0], vm, QIcon())
    assert isinstance(tray, AgentTray) and tray.isVisible()
    tray.hide()


def test_talk_on_the_real_window_is_the_talk_key(window: MainWindow,
                                                vm: RecordingViewModel) -> None:
    tray = AgentTray(WindowRemote(window), window.action_quit, vm, QIcon(), window)
    tray.action_talk.trigger()
    assert window.ptt_held and vm.calls == [("ptt_press", None), ("play_cue", "start")]
    tray.action_talk.trigger()
    assert not window.ptt_held
    assert vm.calls[2:] == [("ptt_release", None), ("play_cue", "stop")]


@pytest.mark.qt_log_ignore("does not support raise")  # the offscreen platform has no stacking
def test_show_on_the_real_window_unminimises_it(qtbot: Any, window: MainWindow,
                                                vm: RecordingViewModel) -> None:
    tray = AgentTray(WindowRemote(window), window.action_quit, vm, QIcon(), window)
    window.hide()
    tray.activated.emit(QSystemTrayIcon.ActivationReason.Trigger)
    qtbot.waitUntil(window.isVisible)


def test_quit_is_the_window_quit(window: MainWindow, vm: RecordingViewModel) -> None:
    tray = AgentTray(WindowRemote(window), window.action_quit, vm, QIcon(), window)
    closed: list[bool] = []
    window.action_quit.triggered.connect(lambda: closed.append(True))
    tray.action_quit.trigger()
    assert closed == [True] and not window.isVisible()
