"""The portal's talk key wired as the X11 key is: the desktop's press and release reach the
window's entry points on the GUI thread, through the real xdg-desktop-portal."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

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
