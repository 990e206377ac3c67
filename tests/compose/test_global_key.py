"""The global talk key wired: a tap toggles listening, a hold talks, through the window's
own entry points; and for real under Xvfb with another program's window focused."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from desktop_agent.compose.global_key import GlobalTalkKey, start_global_key
from desktop_agent.core.errors import AgentError
from tests.adapters.desktop.test_x11_global_key import FocusedWindow, Xvfb, wait_until

WAIT_MS = 20_000


class Target:
    """Stands in for ``WindowRemote``: records what the key asked for."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.held = False

    def ptt_start(self) -> str:
        self.calls.append("start")
        self.held = True
        return "Listening."

    def ptt_stop(self) -> str:
        self.calls.append("stop")
        self.held = False
        return "Stopped listening."


def _from_thread(fn: Any) -> None:
    thread = threading.Thread(target=fn)  # the listener's callbacks come from its thread
    thread.start()
    thread.join()


def test_a_tap_toggles_and_a_hold_talks(qtbot: Any) -> None:
    target, now = Target(), [100.0]
    key = GlobalTalkKey(target, lambda: target.held, notify=lambda e: None, clock=lambda: now[0])
    _from_thread(key.on_press)
    now[0] += 0.2
    _from_thread(key.on_release)  # a tap: listening stays on
    qtbot.waitUntil(lambda: target.calls == ["start"], timeout=WAIT_MS)
    now[0] += 5.0
    _from_thread(key.on_press)  # the second tap ends the turn
    now[0] += 0.1
    _from_thread(key.on_release)
    qtbot.waitUntil(lambda: target.calls == ["start", "stop"], timeout=WAIT_MS)
    _from_thread(key.on_press)
    now[0] += 2.0
    _from_thread(key.on_release)  # a hold: talk while down
    qtbot.waitUntil(lambda: target.calls == ["start", "stop", "start", "stop"],
                    timeout=WAIT_MS)


def test_a_turn_ended_elsewhere_does_not_cost_an_extra_press(qtbot: Any) -> None:
    target, now = Target(), [0.0]
    key = GlobalTalkKey(target, lambda: target.held, notify=lambda e: None, clock=lambda: now[0])
    key.on_press()
    now[0] += 0.1
    key.on_release()  # tapped on
    qtbot.waitUntil(lambda: target.calls == ["start"], timeout=WAIT_MS)
    target.held = False  # `desktop-agent ptt stop`, or the window's own key, ended it
    now[0] += 3.0
    key.on_press()  # starts a new turn at once
    qtbot.waitUntil(lambda: target.calls == ["start", "start"], timeout=WAIT_MS)


def test_a_bad_key_text_is_shown_and_nothing_is_grabbed() -> None:
    shown: list[AgentError] = []
    target = Target()
    assert start_global_key("Space", target, lambda: False, shown.append) is None
    assert shown and "Space" in shown[0].message and shown[0].fix
    assert start_global_key("", target, lambda: False, shown.append) is None
    assert len(shown) == 1  # no key set: nothing to say


@pytest.fixture(scope="module")
def xvfb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Xvfb]:
    server = Xvfb(tmp_path_factory.mktemp("xvfb"))
    yield server
    server.close()


def test_on_x11_a_tap_and_a_hold_of_the_real_key(qtbot: Any, xvfb: Xvfb,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISPLAY", xvfb.display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("XDG_SESSION_TYPE", "x11")
    window = FocusedWindow(xvfb)  # another program has the focus
    target, shown = Target(), []
    key = start_global_key("Ctrl+Alt+Space", target, lambda: target.held, shown.append)
    assert key is not None, shown
    try:
        xvfb.xdotool("key", "ctrl+alt+space")  # a tap: listening on
        qtbot.waitUntil(lambda: target.calls == ["start"], timeout=WAIT_MS)
        xvfb.xdotool("key", "ctrl+alt+space")  # a second tap: off
        qtbot.waitUntil(lambda: target.calls == ["start", "stop"], timeout=WAIT_MS)
        listener = key.listener
        before = listener.raw_events
        xvfb.xdotool("keydown", "ctrl+alt+space")  # a hold, past the server's auto-repeat
        qtbot.waitUntil(lambda: target.calls == ["start", "stop", "start"], timeout=WAIT_MS)
        wait_until(lambda: listener.raw_events >= before + 5, "the key to auto-repeat")
        xvfb.xdotool("keyup", "ctrl+alt+space")
        qtbot.waitUntil(lambda: target.calls == ["start", "stop", "start", "stop"],
                        timeout=WAIT_MS)
    finally:
        key.stop()
        window.close()
    assert shown == []


class _App:
    def __init__(self, platform: str) -> None:
        self.platform = platform

    def platformName(self) -> str:  # noqa: N802 - Qt's name
        return self.platform


@pytest.mark.parametrize(("platform", "env", "expected"), [
    ("offscreen", {"DISPLAY": ":9"}, None),  # tests, headless: nothing is grabbed
    ("xcb", {"DISPLAY": ":9"}, "x11"),
    ("wayland", {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, "portal"),
    ("xcb", {"DISPLAY": ":9", "XDG_SESSION_TYPE": "wayland"}, "portal"),  # XWayland
])
def test_the_app_picks_the_x11_grab_or_the_portal_by_session(
        monkeypatch: pytest.MonkeyPatch, platform: str, env: dict[str, str],
        expected: str | None) -> None:
    from desktop_agent.compose import desktop, global_key, portal_key
    from desktop_agent.core.settings import Settings

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    picked: list[str] = []
    monkeypatch.setattr(global_key, "start_global_key", lambda *a, **k: picked.append("x11"))
    monkeypatch.setattr(portal_key, "start_portal_key", lambda *a, **k: picked.append("portal"))
    desktop._global_key(_App(platform), Settings(), Target(), window=None, view_model=None)
    assert picked == ([] if expected is None else [expected])


class _ViewModel:
    """What the dictation key needs of the view model: ``dictate``, and the notices."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.notices: list[Any] = []
        self.sig_error = self

    def emit(self, notice: Any) -> None:
        self.notices.append(notice)

    def dictate(self, action: str) -> str:
        self.calls.append(action)
        return action


def test_on_x11_the_dictation_key_starts_and_stops_dictation(
        qtbot: Any, xvfb: Xvfb, monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from desktop_agent.compose import desktop
    from desktop_agent.core.settings import Settings

    monkeypatch.setenv("DISPLAY", xvfb.display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("XDG_SESSION_TYPE", "x11")
    settings = Settings()
    settings = dataclasses.replace(settings, shortcuts=dataclasses.replace(
        settings.shortcuts, global_dictate="Super+F10"))
    window, vm = FocusedWindow(xvfb), _ViewModel()
    key = desktop._dictate_key(_App("xcb"), settings, vm)
    assert key is not None, vm.notices
    try:
        xvfb.xdotool("key", "super+F10")  # a tap: dictating
        qtbot.waitUntil(lambda: vm.calls == ["start"], timeout=WAIT_MS)
        xvfb.xdotool("key", "super+F10")  # a second tap: the words are typed
        qtbot.waitUntil(lambda: vm.calls == ["start", "stop"], timeout=WAIT_MS)
    finally:
        key.stop()
        window.close()
    assert vm.notices == []
    same = dataclasses.replace(settings, shortcuts=dataclasses.replace(
        settings.shortcuts, global_dictate="ctrl+alt+space"))  # the talk key itself
    assert desktop._dictate_key(_App("xcb"), same, vm) is None
    assert [n.code for n in vm.notices] == ["dictate_key_is_talk_key"]
    assert desktop._dictate_key(_App("xcb"), Settings(), vm) is None  # none set: nothing said
    assert len(vm.notices) == 1
