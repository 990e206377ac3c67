"""The portal's global push-to-talk key against the real xdg-desktop-portal and a fake desktop.

Each test starts its own private bus, the fake desktop (python-dbusmock, portal_backend.py)
and Debian's xdg-desktop-portal (portal_desktop.py), then runs ``PortalGlobalKey`` as the app
would. What the tests read is what crossed the bus: the fake desktop's own log of the calls
it got, and the client's callbacks. Waits are on conditions with time limits, never sleeps.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from jeepney import HeaderFields

from desktop_agent.adapters.desktop.portal_protocol import PortalBinding
from desktop_agent.adapters.desktop.portal_shortcuts import PortalGlobalKey
from desktop_agent.adapters.paths import APP_ID
from tests.adapters.desktop.portal_desktop import PortalDesktop, private_desktop

SESSIONS = "/org/freedesktop/portal/desktop/session/"


class Recorder:
    """What a client's callbacks said, in order; waits for an entry with a time limit."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.cond = threading.Condition()

    def add(self, kind: str, value: Any = None) -> None:
        with self.cond:
            self.events.append((kind, value))
            self.cond.notify_all()

    def wait(self, kind: str, count: int = 1, timeout_s: float = 30.0) -> list[Any]:
        """The values of the first ``count`` entries of ``kind``; fail if they do not come."""
        deadline = time.monotonic() + timeout_s
        with self.cond:
            while len(found := [v for k, v in self.events if k == kind]) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"no {kind} #{count} in {timeout_s} s; got {self.events}"
                self.cond.wait(left)
            return found[:count]

    def kinds(self) -> list[str]:
        with self.cond:
            return [k for k, _ in self.events]


def _key(desktop: PortalDesktop, rec: Recorder, key_text: str = "Ctrl+Alt+Space"
         ) -> PortalGlobalKey:
    key: PortalGlobalKey

    def on_press() -> None:
        rec.add("press", key.session_handle)

    def on_release() -> None:
        rec.add("release", key.session_handle)

    key = PortalGlobalKey(on_press=on_press, on_release=on_release,
                          on_bound=lambda b: rec.add("bound", b),
                          on_error=lambda e: rec.add("error", e),
                          key_text=key_text, bus_address=desktop.address)
    return key


@pytest.fixture
def desktop() -> Iterator[PortalDesktop]:
    with private_desktop() as desktop:
        yield desktop


def test_it_binds_once_and_a_held_key_is_one_press_and_one_release_of_its_own_session(
        desktop: PortalDesktop) -> None:
    desktop.start_backend()
    desktop.start_portal()
    closes = desktop.overhear("org.freedesktop.portal.Session", "Close")
    rec, other_rec = Recorder(), Recorder()
    key, other = _key(desktop, rec), _key(desktop, other_rec)
    assert key.start() is None
    try:
        binding: PortalBinding = rec.wait("bound")[0]
        session = binding.session_handle
        assert session.startswith(SESSIONS) and session == key.session_handle
        _, bound_session, shortcuts, _, _ = desktop.wait_call("BindShortcuts")
        assert bound_session == session
        assert shortcuts == [("push-to-talk", {"description": ("s", "Push to talk"),
                                               "preferred_trigger": ("s", "CTRL+ALT+space")})]
        assert binding.newly_bound and binding.trigger_description == "Ctrl+Alt+Space"
        assert desktop.wait_call("CreateSession")[2] == ""  # 1.16 knows no host app ids

        # Another app's session of the same portal (signals of 1.16 reach every client).
        assert other.start() is None
        other_session = other_rec.wait("bound")[0].session_handle
        assert other_session not in ("", session)
        for decoy in ((session, "another-shortcut"), (other_session, "push-to-talk")):
            desktop.press(*decoy)  # our session's other shortcut, another app's key
            desktop.release(*decoy)
        desktop.press(session)
        assert rec.wait("press") == [session]
        desktop.press(session)  # a desktop that repeats Activated while the key is held
        desktop.release(session)
        assert rec.wait("release") == [session]
        # The portal's signals come in order: the decoys before have all been seen.
        assert rec.kinds() == ["bound", "press", "release"]
        assert other_rec.wait("release") == [other_session]
        desktop.press(session)  # held when the app stops
        rec.wait("press", 2)
    finally:
        assert key.stop() and other.stop()
    # Our own Session.Close, not only the portal's clean-up of a vanished connection:
    assert {desktop.wait_overheard(closes).header.fields[HeaderFields.path]
            for _ in range(2)} == {session, other_session}
    assert desktop.wait_call("Close", path=session) == []  # the portal closed it on the desktop
    assert not key.running and key.session_handle == ""
    assert rec.kinds() == ["bound", "press", "release", "press", "release"]  # stop released it
    assert other_rec.kinds() == ["bound", "press", "release"]


def test_a_key_the_desktop_already_holds_is_reused_without_asking_again(
        desktop: PortalDesktop) -> None:
    desktop.start_backend(listed=["push-to-talk"], trigger_description="Super+F9")
    desktop.start_portal()
    rec = Recorder()
    key = _key(desktop, rec)
    assert key.start() is None
    try:
        binding = rec.wait("bound")[0]
        assert not binding.newly_bound and binding.trigger_description == "Super+F9"
        desktop.wait_call("ListShortcuts")
        desktop.press(binding.session_handle)
        desktop.release(binding.session_handle)
        rec.wait("release")
    finally:
        assert key.stop()
    assert desktop.calls("BindShortcuts") == []  # on KDE each bind is a dialog: none here
    assert rec.kinds() == ["bound", "press", "release"]


def test_a_user_who_declines_in_the_dialog_gets_a_refusal_with_the_way_around_it(
        desktop: PortalDesktop) -> None:
    desktop.start_backend(bind_response=1)
    desktop.start_portal()
    rec = Recorder()
    key = _key(desktop, rec)
    assert key.start() is None
    error = rec.wait("error")[0]
    assert error.code == "portal_bind_refused"
    assert "declined" in error.message and "desktop-agent ptt" in error.fix
    assert key.stop() and not key.running
    assert rec.kinds() == ["error"]


def test_stopping_while_the_bind_dialog_is_open_dismisses_it_and_is_no_error(
        desktop: PortalDesktop) -> None:
    desktop.start_backend(bind_response=-1)  # the user has not answered the dialog
    desktop.start_portal()
    dismissed = desktop.overhear("org.freedesktop.portal.Request", "Close")
    closes = desktop.overhear("org.freedesktop.portal.Session", "Close")
    rec = Recorder()
    key = _key(desktop, rec)
    assert key.start() is None
    request = desktop.wait_call("BindShortcuts")[0]
    assert key.stop()
    assert desktop.wait_overheard(dismissed).header.fields[HeaderFields.path] == request
    desktop.wait_overheard(closes)
    assert rec.kinds() == []  # stopping is not a problem to report


def test_a_portal_without_global_shortcuts_says_to_bind_the_ptt_command(
        desktop: PortalDesktop) -> None:
    desktop.start_backend()
    desktop.start_portal(global_shortcuts=False)  # as on sway, niri, COSMIC
    rec = Recorder()
    key = _key(desktop, rec)
    assert key.start() is None
    error = rec.wait("error")[0]
    assert error.code == "portal_no_global_shortcuts"
    assert "desktop-agent ptt start" in error.fix and "docs/anywhere.md" in error.fix
    assert key.stop()
    assert desktop.calls("CreateSession") == []


def test_no_portal_on_the_bus_is_portal_missing(desktop: PortalDesktop) -> None:
    rec = Recorder()
    key = _key(desktop, rec)
    assert key.start() is None
    error = rec.wait("error")[0]
    assert error.code == "portal_missing" and "xdg-desktop-portal" in error.fix
    assert key.stop()


def test_a_portal_that_goes_away_mid_hold_releases_the_key_then_says_so(
        desktop: PortalDesktop) -> None:
    desktop.start_backend()
    desktop.start_portal()
    rec = Recorder()
    key = _key(desktop, rec)
    assert key.start() is None
    try:
        session = rec.wait("bound")[0].session_handle
        desktop.press(session)
        rec.wait("press")
        portal = desktop.procs[-1]
        portal.terminate()
        portal.wait(30)
        assert rec.wait("error")[0].code == "portal_lost"
    finally:
        assert key.stop()
    assert rec.kinds() == ["bound", "press", "release", "error"]


def test_a_portal_with_the_host_registry_is_told_the_app_id_first(
        desktop: PortalDesktop) -> None:
    desktop.start_registry_portal()  # 1.19.4+ has it; Debian 12's 1.16 does not
    rec = Recorder()
    key = _key(desktop, rec)
    assert key.start() is None
    assert desktop.wait_call("Register") == [APP_ID, {}]
    # This stand-in has nothing else: the client stops there, saying why.
    assert rec.wait("error")[0].code == "portal_no_global_shortcuts"
    assert key.stop()


def test_without_a_session_bus_it_says_so_before_starting_anything(tmp_path: Any) -> None:
    rec = Recorder()
    quiet = PortalGlobalKey(on_press=lambda: None, on_release=lambda: None, bus_address="")
    problem = quiet.start()
    assert problem is not None and problem.code == "portal_no_session_bus"
    assert not quiet.running and quiet.stop()
    gone = PortalGlobalKey(on_press=lambda: None, on_release=lambda: None,
                           on_error=lambda e: rec.add("error", e),
                           bus_address=f"unix:path={tmp_path}/no-bus-here")
    assert gone.start() is None
    assert rec.wait("error")[0].code == "portal_no_session_bus"
    assert gone.stop()


def test_the_app_id_told_to_the_portal_is_the_menu_entrys_name() -> None:
    key = PortalGlobalKey(on_press=lambda: None, on_release=lambda: None)
    assert key.app_id == APP_ID == "io.github.desktop_agent.DesktopAgent"
    assert key.trigger is None
    assert PortalGlobalKey(on_press=lambda: None, on_release=lambda: None,
                           key_text="Super+F9").trigger == "LOGO+F9"
