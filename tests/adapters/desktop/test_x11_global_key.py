"""The global key on a real X server: Xvfb, a focused window, keys typed through XTest.

Each test holds or taps keys with ``xdotool`` while another program's window (a plain
python-xlib window on its own connection, as any X11 app) has the focus, and asserts what
the listener's callbacks reported. Holds end on conditions, never on a fixed sleep: a hold
lasts until the server has auto-repeated the key (the listener's raw event count), so the
repeat filter is always exercised, however busy the machine. Without Xvfb or xdotool these
tests skip here and fail in CI (tests/needs.py).
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.adapters.desktop.x11_global_key import X11GlobalKey, session_problem
from desktop_agent.core.desktop.shortcut import parse_shortcut
from desktop_agent.core.errors import DesktopError
from tests.needs import unavailable

WAIT_S = 20.0
"""Longest wait for any condition (a busy 2-core machine, a cold Xvfb)."""


class Heard:
    """What the callbacks reported, in order, with a wait on a condition."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.errors: list[DesktopError] = []
        self.threads: set[str] = set()
        self._cond = threading.Condition()

    def press(self) -> None:
        self._add("press")

    def release(self) -> None:
        self._add("release")

    def error(self, err: DesktopError) -> None:
        with self._cond:
            self.errors.append(err)
            self._cond.notify_all()

    def _add(self, what: str) -> None:
        with self._cond:
            self.events.append(what)
            self.threads.add(threading.current_thread().name)
            self._cond.notify_all()

    def wait(self, done: Callable[[], bool], what: str) -> None:
        with self._cond:
            assert self._cond.wait_for(done, WAIT_S), f"{what}: got {self.events} {self.errors}"


def wait_until(done: Callable[[], bool], what: str) -> None:
    """For state no callback announces (the raw event count): look again every 10 ms."""
    deadline = time.monotonic() + WAIT_S
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


class Xvfb:
    """A private X server on a free display (``-displayfd``)."""

    def __init__(self, tmp: Path) -> None:
        for tool in ("Xvfb", "xdotool"):
            if shutil.which(tool) is None:
                unavailable(tool, "not installed (apt-get install xvfb xdotool, or "
                                  "bash scripts/setup.sh test)")
        try:
            import Xlib  # noqa: F401
        except ImportError:
            unavailable("python-xlib", "not installed (pip install python-xlib==0.33)")
        read_fd, write_fd = os.pipe()
        self.proc = subprocess.Popen(
            # -noreset: without it the server resets whenever its last client leaves (between
            # two tests), and a client connecting meanwhile is refused.
            ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "640x480x24", "-nolisten",
             "tcp", "-noreset"], pass_fds=(write_fd,), stdout=subprocess.DEVNULL,
            stderr=(tmp / "xvfb.stderr").open("w"))
        os.close(write_fd)
        number = b""
        deadline = time.monotonic() + WAIT_S
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            if select.select([read_fd], [], [], deadline - time.monotonic())[0]:
                chunk = os.read(read_fd, 64)
                if not chunk:
                    break
                number += chunk
        os.close(read_fd)
        if not number.strip():
            self.close()
            raise AssertionError(f"Xvfb did not start: {(tmp / 'xvfb.stderr').read_text()}")
        self.display = f":{number.decode().strip()}"
        self.env = {"DISPLAY": self.display}

    def xdotool(self, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY",)}
        subprocess.run(["xdotool", *args], env=env | self.env, check=True, timeout=WAIT_S)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(WAIT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class FocusedWindow:
    """Another program's window, mapped and holding the input focus; records its keys."""

    def __init__(self, xvfb: Xvfb) -> None:
        from Xlib import X, display

        self.conn = display.Display(xvfb.display)
        screen = self.conn.screen()
        self.window = screen.root.create_window(
            0, 0, 200, 100, 0, screen.root_depth,
            event_mask=X.KeyPressMask | X.KeyReleaseMask | X.StructureNotifyMask)
        self.window.map()
        self.conn.sync()
        self.next_event(lambda e: e.type == X.MapNotify, "the window to map")
        self.window.set_input_focus(X.RevertToParent, X.CurrentTime)
        self.conn.sync()

    def next_event(self, match: Callable[[Any], bool], what: str) -> Any:
        deadline = time.monotonic() + WAIT_S
        while True:
            while self.conn.pending_events():
                event = self.conn.next_event()
                if match(event):
                    return event
            left = deadline - time.monotonic()
            assert left > 0, f"timed out waiting for {what}"
            select.select([self.conn.fileno()], [], [], left)

    def keys_until(self, last: str,
                   names: tuple[str, ...] = ("F9", "F10", "space")) -> list[str]:
        """The presses of ``names`` this window got, up to and including ``last``'s.

        The server delivers in order, so a key typed after the ones under test marks the end
        of what the window could have got.
        """
        from Xlib import XK, X

        by_keysym = {XK.string_to_keysym(name): name for name in names}
        got: list[str] = []

        def match(event: Any) -> bool:
            if event.type != X.KeyPress:
                return False
            name = by_keysym.get(self.conn.keycode_to_keysym(event.detail, 0))
            if name is not None:
                got.append(name)
            return name == last

        self.next_event(match, f"{last} to reach the focused window")
        return got

    def close(self) -> None:
        self.conn.close()


@pytest.fixture(scope="module")
def xvfb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Xvfb]:
    server = Xvfb(tmp_path_factory.mktemp("xvfb"))
    yield server
    server.close()


@pytest.fixture
def window(xvfb: Xvfb) -> Iterator[FocusedWindow]:
    win = FocusedWindow(xvfb)
    yield win
    win.close()


def listen(xvfb: Xvfb, text: str, heard: Heard) -> X11GlobalKey:
    key = X11GlobalKey(parse_shortcut(text), on_press=heard.press, on_release=heard.release,
                       on_error=heard.error, environ=xvfb.env)
    problem = key.start()
    assert problem is None, problem.describe()
    assert key.running
    return key


def hold(xvfb: Xvfb, key: X11GlobalKey, heard: Heard, xdo_keys: str) -> None:
    """Hold ``xdo_keys`` until the server has auto-repeated it twice, then let go."""
    before = key.raw_events
    xvfb.xdotool("keydown", xdo_keys)
    heard.wait(lambda: heard.events == ["press"], "the press")
    # A press, then release + press pairs: 5 raw events = two auto-repeats went through.
    wait_until(lambda: key.raw_events >= before + 5, "the server to auto-repeat the held key")
    xvfb.xdotool("keyup", xdo_keys)
    heard.wait(lambda: heard.events == ["press", "release"], "the release")


def test_a_held_key_is_one_press_and_one_release(xvfb: Xvfb, window: FocusedWindow) -> None:
    heard = Heard()
    key = listen(xvfb, "F9", heard)
    try:
        hold(xvfb, key, heard, "F9")
    finally:
        assert key.stop()
    assert not key.running
    assert heard.events == ["press", "release"]  # the stopped listener adds nothing
    assert heard.threads == {"x11-global-key"}  # callbacks run on the listener's thread
    assert heard.errors == []
    # The grab took F9 from the focused program: the next key it sees is F10.
    xvfb.xdotool("key", "F10")
    assert window.keys_until("F10") == ["F10"]


def test_a_chord_fires_with_its_modifiers_only(xvfb: Xvfb, window: FocusedWindow) -> None:
    heard = Heard()
    key = listen(xvfb, "ctrl+alt+space", heard)  # the default
    try:
        xvfb.xdotool("key", "space")  # without Ctrl+Alt: the focused program's key
        assert window.keys_until("space") == ["space"]
        hold(xvfb, key, heard, "ctrl+alt+space")
    finally:
        assert key.stop()
    assert heard.events == ["press", "release"]
    xvfb.xdotool("key", "F10")
    assert window.keys_until("F10") == ["F10"]  # the held chord's Space never reached it


def test_the_key_works_whatever_numlock_and_capslock_are(xvfb: Xvfb,
                                                         window: FocusedWindow) -> None:
    heard = Heard()
    key = listen(xvfb, "Super+F9", heard)
    try:
        for lock in ("Num_Lock", "Caps_Lock"):
            xvfb.xdotool("key", lock)  # on
            heard.events.clear()
            hold(xvfb, key, heard, "super+F9")
        xvfb.xdotool("key", "Num_Lock")  # Caps Lock alone still on
        heard.events.clear()
        hold(xvfb, key, heard, "super+F9")
    finally:
        xvfb.xdotool("key", "Caps_Lock")  # both off again for the next test
        assert key.stop()


def test_a_key_another_program_holds_is_reported_taken(xvfb: Xvfb,
                                                       window: FocusedWindow) -> None:
    first, second = Heard(), Heard()
    key = listen(xvfb, "Ctrl+Alt+Space", first)
    try:
        other = X11GlobalKey(parse_shortcut("ctrl+alt+space"), on_press=second.press,
                             on_release=second.release, environ=xvfb.env)
        problem = other.start()
        assert problem is not None and not other.running
        assert problem.code == "global_key_taken"
        assert problem.describe() == ("[global_key_taken] Ctrl+Alt+Space is taken by another "
                                      "program. Fix: choose another key in Settings -> "
                                      "Shortcuts.")
        assert other.stop()  # nothing to stop: harmless
        # The refused grab undid only its own requests: the first still has the key.
        hold(xvfb, key, first, "ctrl+alt+space")
    finally:
        assert key.stop()
    assert second.events == []


def test_stop_frees_the_key_and_ends_a_hold_with_its_release(xvfb: Xvfb,
                                                             window: FocusedWindow) -> None:
    heard = Heard()
    key = listen(xvfb, "F9", heard)
    try:
        xvfb.xdotool("keydown", "F9")
        heard.wait(lambda: heard.events == ["press"], "the press")
        assert key.stop()
        assert heard.events == ["press", "release"]  # callers never see a hold left open
    finally:
        xvfb.xdotool("keyup", "F9")
    assert key.stop()  # twice is harmless
    again = Heard()
    key = listen(xvfb, "F9", again)  # ungrabbed: a new grab of the same key succeeds
    assert key.stop()
    assert again.events == []


def test_a_key_not_on_the_keyboard_map_is_a_value(xvfb: Xvfb) -> None:
    key = X11GlobalKey(parse_shortcut("Ctrl+F35"), on_press=lambda: None,
                       on_release=lambda: None, environ=xvfb.env)
    problem = key.start()
    assert problem is not None and problem.code == "global_key_not_on_keyboard"
    assert "Ctrl+F35" in problem.message and "Settings -> Shortcuts" in problem.fix


def test_a_lost_x_server_is_reported_once_after_the_release(tmp_path: Path) -> None:
    server = Xvfb(tmp_path)
    heard = Heard()
    try:
        key = listen(server, "F9", heard)
        server.xdotool("keydown", "F9")
        heard.wait(lambda: heard.events == ["press"], "the press")
        server.close()
        heard.wait(lambda: bool(heard.errors), "the lost connection")
        assert key.stop()
    finally:
        server.close()
    assert heard.events == ["press", "release"]
    assert [e.code for e in heard.errors] == ["global_key_lost"]


# -- problems found before any X server is asked ------------------------------------------


@pytest.mark.parametrize(("env", "code", "says"), [
    ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, "global_key_wayland",
     "works only in X11 sessions"),
    ({"DISPLAY": ":0", "XDG_SESSION_TYPE": "wayland"}, "global_key_wayland",
     "works only in X11 sessions"),
    ({}, "global_key_no_display", "DISPLAY is not set"),
    ({"XDG_SESSION_TYPE": "tty"}, "global_key_no_display", "DISPLAY is not set"),
])
def test_a_session_without_x11_is_a_value_pointing_to_the_ptt_command(
        env: dict[str, str], code: str, says: str) -> None:
    key = X11GlobalKey(parse_shortcut("F9"), on_press=lambda: None, on_release=lambda: None,
                       environ=env)
    problem = key.start()
    assert problem is not None and problem.code == code and says in problem.message
    assert "desktop-agent ptt toggle" in problem.fix
    assert not key.running
    assert session_problem({"DISPLAY": ":0", "XDG_SESSION_TYPE": "x11"}) is None


def test_missing_python_xlib_is_a_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "Xlib", None)  # import Xlib fails
    key = X11GlobalKey(parse_shortcut("F9"), on_press=lambda: None, on_release=lambda: None,
                       environ={"DISPLAY": ":0"})
    problem = key.start()
    assert problem is not None and problem.code == "global_key_no_xlib"
    assert "python-xlib==0.33" in problem.fix


def test_an_unreachable_x_server_is_a_value() -> None:
    try:
        import Xlib  # noqa: F401
    except ImportError:
        unavailable("python-xlib", "not installed (pip install python-xlib==0.33)")
    key = X11GlobalKey(parse_shortcut("F9"), on_press=lambda: None, on_release=lambda: None,
                       environ={"DISPLAY": ":65000"})  # no server listens there
    problem = key.start()
    assert problem is not None and problem.code == "global_key_x11_unreachable"
    assert "':65000'" in problem.message and not key.running
