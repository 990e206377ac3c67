"""Typing under Wayland with the desktop portal's RemoteDesktop keyboard, against the real
xdg-desktop-portal (Debian 12: 1.16) and a fake desktop (portal_remote_backend.py).

What the tests read is what crossed the bus: the keys the fake desktop was sent
(``NotifyKeyboardKeysym``, its own log), and the calls the client made to the portal
(overheard on the private bus). Waits are on conditions with time limits, never sleeps.
"""

from __future__ import annotations

import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_agent.adapters.desktop.portal_keyboard import PortalKeyboard
from desktop_agent.adapters.desktop.x11_typing import (
    DesktopTypist,
    close_portal_keyboards,
    portal_keyboard,
)
from tests.adapters.desktop.portal_desktop import (
    REMOTE_BACKEND_NAME,
    PortalDesktop,
    private_desktop,
)

REMOTE: str = "org.freedesktop.portal.RemoteDesktop"
TOKEN = "9e4c1b7a-2f3d-4c8e-9a61-5b0d7e2f8c14"
OLD_TOKEN = "1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b"


@pytest.fixture
def desktop() -> Iterator[PortalDesktop]:
    with private_desktop() as desktop:
        yield desktop


def _remote(desktop: PortalDesktop, **parameters: object) -> None:
    desktop.start_backend()
    desktop.start_remote_backend(**parameters)
    desktop.start_portal(remote_desktop=True)


def _keys(desktop: PortalDesktop) -> list[tuple[int, int]]:
    """(keysym, state) of every key the fake desktop was sent, in order."""
    return [(int(args[2][1]), int(args[3][1]))
            for args in desktop.calls("NotifyKeyboardKeysym", REMOTE_BACKEND_NAME)]


def _typed(text: str) -> list[tuple[int, int]]:
    return [(ord(c), state) for c in text for state in (1, 0)]


def _options(msg: object) -> dict[str, object]:
    """The options dict of an overheard SelectDevices (session, options)."""
    return {k: v[1] for k, v in msg.body[1].items()}  # type: ignore[attr-defined]


def test_each_character_is_a_key_down_and_up_and_one_session_serves_every_run(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    _remote(desktop)
    asked = desktop.overhear(REMOTE, "SelectDevices")
    keyboard = PortalKeyboard(desktop.env, tmp_path / "token")
    assert keyboard.offered() == ""  # what the doctor asks: no session, no dialog
    assert desktop.calls("CreateSession", REMOTE_BACKEND_NAME) == []
    assert keyboard.type("Hi, Anna\ncafé") == "", keyboard.problem
    # A line break is a space: the focused window cannot be known, and Return could send.
    assert _keys(desktop) == _typed("Hi, Anna café")
    options = _options(desktop.wait_overheard(asked))
    assert options["types"] == 1  # the keyboard alone, never the pointer
    assert options["persist_mode"] == 2  # a lasting grant, where the portal keeps one
    assert "restore_token" not in options  # none kept yet
    assert keyboard.type("ok") == ""
    assert _keys(desktop)[-4:] == _typed("ok")
    assert len(desktop.calls("CreateSession", REMOTE_BACKEND_NAME)) == 1
    assert len(desktop.calls("Start", REMOTE_BACKEND_NAME)) == 1  # one dialog, at most
    assert not (tmp_path / "token").exists()  # 1.16 gives no token: nothing to keep
    keyboard.close()


def test_the_restore_token_is_kept_private_and_given_back_at_the_next_start(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    _remote(desktop, restore_token=TOKEN)
    asked = desktop.overhear(REMOTE, "SelectDevices")
    token_file = tmp_path / "data" / "remote-desktop-token"
    token_file.parent.mkdir()
    token_file.write_text(OLD_TOKEN + "\n", encoding="utf-8")  # an earlier grant's,
    token_file.chmod(0o644)  # left readable by a version that did not care
    first = PortalKeyboard(desktop.env, token_file)
    assert first.type("a") == "", first.problem
    assert _options(desktop.wait_overheard(asked))["restore_token"] == OLD_TOKEN
    assert token_file.read_text(encoding="utf-8").strip() == TOKEN  # replaced
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert [p.name for p in token_file.parent.iterdir()] == [token_file.name]
    first.close()  # the app quits; the next start brings the token back
    second = PortalKeyboard(desktop.env, token_file)
    assert second.type("b") == "", second.problem
    options = _options(desktop.wait_overheard(asked))
    assert (options["restore_token"], options["persist_mode"]) == (TOKEN, 2)
    assert _keys(desktop) == _typed("ab")
    second.close()


def test_a_start_that_gives_no_token_forgets_the_old_one(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    _remote(desktop)  # a portal that keeps no grant (Debian 12's)
    token_file = tmp_path / "remote-desktop-token"
    token_file.write_text(OLD_TOKEN + "\n", encoding="utf-8")
    keyboard = PortalKeyboard(desktop.env, token_file)
    assert keyboard.type("a") == "", keyboard.problem
    assert not token_file.exists()  # it would only be offered, and refused, at every start
    keyboard.close()


def test_a_session_lost_part_way_hands_back_only_the_rest(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    # Revoked as the fourth character goes down, and the user says no to the new dialog.
    _remote(desktop, close_after=7, start_response=[0, 1])
    keyboard = PortalKeyboard(desktop.env, tmp_path / "token")
    text = "hello world, see you at nine"
    rest = keyboard.type(text)
    pressed = "".join(chr(sym) for sym, state in _keys(desktop) if state == 1)
    assert rest and pressed + rest == text  # the caller types the rest: nothing twice
    assert "response 1" in keyboard.problem


def test_a_user_who_says_no_is_not_asked_again_in_this_run(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    _remote(desktop, start_response=1)
    keyboard = PortalKeyboard(desktop.env, tmp_path / "token")
    assert keyboard.type("secret") == "secret"  # all of it left for wtype or the clipboard
    assert "response 1" in keyboard.problem
    assert keyboard.type("again") == "again"
    assert len(desktop.calls("Start", REMOTE_BACKEND_NAME)) == 1  # no second dialog
    assert _keys(desktop) == []


def test_a_desktop_that_offers_no_keyboard_is_not_asked(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    _remote(desktop, devices=2)  # a pointer only
    keyboard = PortalKeyboard(desktop.env, tmp_path / "token")
    assert "its remote desktop has none" in keyboard.offered()
    assert keyboard.type("x") == "x"
    assert "keyboard" in keyboard.problem
    assert desktop.calls("CreateSession", REMOTE_BACKEND_NAME) == []


def test_a_portal_without_remote_desktop_says_so_at_once(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    desktop.start_backend()
    desktop.start_portal()  # as on sway: xdg-desktop-portal-wlr has no RemoteDesktop
    keyboard = PortalKeyboard(desktop.env, tmp_path / "token")
    assert "could not offer a remote desktop" in keyboard.offered()
    assert keyboard.type("x") == "x"
    assert "remote desktop" in keyboard.problem
    assert PortalKeyboard({}, tmp_path / "token").type("x") == "x"  # no session bus


def test_a_session_the_desktop_closed_is_opened_again_and_the_text_typed(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    _remote(desktop)
    keyboard = PortalKeyboard(desktop.env, tmp_path / "token")
    assert keyboard.type("a") == "", keyboard.problem
    first = keyboard.session
    closed = desktop.overhear("org.freedesktop.portal.Session", "Closed", kind="signal")
    asked = desktop.overhear(REMOTE, "SelectDevices")
    desktop.mock("CloseSession", "o", (first,), bus_name=REMOTE_BACKEND_NAME)  # revoked
    desktop.wait_overheard(closed)  # the portal told the client
    assert keyboard.type("b") == "", keyboard.problem
    # Asked for again without the restore token: the desktop asks the user, who may have
    # just said stop.
    assert "restore_token" not in _options(desktop.wait_overheard(asked))
    assert keyboard.session not in ("", first)
    assert _keys(desktop) == _typed("ab")
    assert len(desktop.calls("CreateSession", REMOTE_BACKEND_NAME)) == 2
    keyboard.close()


def test_a_grant_revoked_mid_text_types_the_rest_in_a_new_session_and_nothing_twice(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    _remote(desktop, close_after=7)  # closed as the fourth character goes down
    keyboard = PortalKeyboard(desktop.env, tmp_path / "token")
    text = "hello world, see you at nine"
    assert keyboard.type(text) == "", keyboard.problem
    keys = _keys(desktop)
    # Each character pressed exactly once, whichever key the portal first refused once it
    # had the desktop's word (a key that went down is not pressed again: the desktop lets
    # a closed session's keys go), and the rest typed in a second session.
    assert [sym for sym, state in keys if state == 1] == [ord(c) for c in text]
    assert len(desktop.calls("CreateSession", REMOTE_BACKEND_NAME)) == 2
    keyboard.close()


def test_under_wayland_the_typist_types_with_the_portal_before_wtype_or_the_clipboard(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    _remote(desktop)
    env = {**desktop.env, "WAYLAND_DISPLAY": "wayland-test-none", "PATH": str(tmp_path)}
    said = DesktopTypist(env, token_file=tmp_path / "token").type("see you at nine")
    assert said == ""  # typed: not put on the clipboard
    assert _keys(desktop) == _typed("see you at nine")


def test_quitting_while_the_desktops_dialog_is_open_ends_the_wait_at_once(
        desktop: PortalDesktop, tmp_path: Path) -> None:
    _remote(desktop, start_response=-1)  # the user has not answered the dialog
    keyboard = portal_keyboard(desktop.env, tmp_path / "token")
    left: list[str] = []
    typing = threading.Thread(target=lambda: left.append(keyboard.type("abc")))
    typing.start()
    desktop.wait_call("Start")  # the dialog is up
    close_portal_keyboards()  # what the app's shutdown does first
    typing.join(10)
    assert not typing.is_alive() and left == ["abc"]  # nothing typed, all of it handed back
    assert "closing" in keyboard.problem
