"""The portal's talk key wired as the X11 key is: the desktop's press and release reach the
window's entry points on the GUI thread, through the real xdg-desktop-portal."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from desktop_agent.compose.global_key import DictateKey
from desktop_agent.compose.portal_key import start_portal_key
from desktop_agent.core.errors import AgentError
from tests.adapters.desktop.portal_desktop import PortalDesktop, private_desktop

WAIT_MS = 30_000


class Target:
    """Stands in for ``WindowRemote``: what the key asked for, and on which thread."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.threads: set[str] = set()
        self.held = False

    def ptt_start(self) -> str:
        self.calls.append("start")
        self.threads.add(threading.current_thread().name)
        self.held = True
        return "Listening."

    def ptt_stop(self) -> str:
        self.calls.append("stop")
        self.threads.add(threading.current_thread().name)
        self.held = False
        return "Stopped listening."


@pytest.fixture
def desktop() -> Iterator[PortalDesktop]:
    with private_desktop() as desktop:
        yield desktop


def test_taps_of_the_desktops_key_toggle_listening_on_the_gui_thread(
        qtbot: Any, desktop: PortalDesktop) -> None:
    desktop.start_backend()
    desktop.start_portal()
    target, shown = Target(), []
    # One instant for every edge: each press and release is a tap, however busy the machine.
    key = start_portal_key("Ctrl+Alt+Space", target, lambda: target.held, shown.append,
                           bus_address=desktop.address, clock=lambda: 100.0)
    assert key is not None
    try:
        _, session, shortcuts, _, _ = desktop.wait_call("BindShortcuts")
        assert shortcuts[0][1]["preferred_trigger"] == ("s", "CTRL+ALT+space")
        desktop.press(session)
        desktop.release(session)
        qtbot.waitUntil(lambda: target.calls == ["start"], timeout=WAIT_MS)
        desktop.press(session)
        desktop.release(session)
        qtbot.waitUntil(lambda: target.calls == ["start", "stop"], timeout=WAIT_MS)
    finally:
        key.stop()
    assert target.threads == {threading.main_thread().name}
    assert shown == []


def test_a_refused_bind_is_shown_to_the_user(qtbot: Any, desktop: PortalDesktop) -> None:
    desktop.start_backend(bind_response=1)
    desktop.start_portal()
    target, shown = Target(), []
    key = start_portal_key("Ctrl+Alt+Space", target, lambda: target.held, shown.append,
                           bus_address=desktop.address)
    assert key is not None
    try:
        qtbot.waitUntil(lambda: len(shown) == 1, timeout=WAIT_MS)
    finally:
        key.stop()
    problem: AgentError = shown[0]
    assert problem.code == "portal_bind_refused" and target.calls == []


def test_no_session_bus_is_logged_and_nothing_starts() -> None:
    shown: list[AgentError] = []
    assert start_portal_key("Ctrl+Alt+Space", Target(), lambda: False, shown.append,
                            bus_address="") is None
    assert shown == []  # the X11 key or the ptt command: nothing the user must see


def test_the_dictation_key_is_its_own_portal_shortcut_held_beside_the_talk_key(
        qtbot: Any, desktop: PortalDesktop) -> None:
    """As the app starts both under Wayland (compose/desktop.py: ``_dictate_key``)."""
    desktop.start_backend()
    desktop.start_portal()
    talk, verbs = Target(), []
    dictate = DictateKey(lambda verb: verbs.append(verb) or "")
    now = [100.0]  # the listener's clock: the edges' times, set by the test
    talk_key = start_portal_key("Ctrl+Alt+Space", talk, lambda: talk.held, verbs.append,
                                bus_address=desktop.address, clock=lambda: now[0])
    dictate_key = start_portal_key("Ctrl+Alt+D", dictate, lambda: dictate.on, verbs.append,
                                   bus_address=desktop.address, clock=lambda: now[0],
                                   shortcut=("dictate", "Dictate into the focused window"))
    assert talk_key is not None and dictate_key is not None
    try:
        desktop.wait_call("BindShortcuts")
        qtbot.waitUntil(lambda: len(desktop.calls("BindShortcuts")) == 2, timeout=WAIT_MS)
        # Each argument is (signature, value): the session, then [(id, properties)].
        sessions = {str(call[2][1][0][0]): str(call[1][1])
                    for call in desktop.calls("BindShortcuts")}
        assert set(sessions) == {"push-to-talk", "dictate"}
        assert sessions["push-to-talk"] != sessions["dictate"]  # a session each
        desktop.press(sessions["dictate"], "dictate")
        qtbot.waitUntil(lambda: verbs == ["start"], timeout=WAIT_MS)
        now[0] = 102.0  # held two seconds: a hold, so the release stops dictation
        desktop.release(sessions["dictate"], "dictate")
        qtbot.waitUntil(lambda: verbs == ["start", "stop"], timeout=WAIT_MS)
        assert talk.calls == []  # the talk key's shortcut was not pressed
        desktop.press(sessions["push-to-talk"])
        qtbot.waitUntil(lambda: talk.calls == ["start"], timeout=WAIT_MS)
        assert verbs == ["start", "stop"] and not dictate.on
    finally:
        talk_key.stop()
        dictate_key.stop()
