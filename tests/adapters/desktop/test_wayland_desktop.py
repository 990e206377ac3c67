"""Typing, the selection and the clipboard under Wayland: a real headless sway, real wtype
and wl-clipboard.

sway (a wlroots compositor, as on sway and Hyprland desktops) runs headless with the pixman
renderer on a private runtime folder; a ``foot`` terminal running ``cat > FILE`` is its only
window and has the focus, and the file says what arrived. sway refuses to run as root, so
under root (CI) the compositor and the terminal run as ``nobody`` and the code under test
reaches their socket as root does. Without sway, foot, wtype or wl-clipboard these tests
skip here and fail in CI (``scripts/setup.sh test`` installs them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_agent.adapters.desktop.clipboard_xclip import XclipClipboard
from desktop_agent.adapters.desktop.desktop_tools import add_desktop_tools
from desktop_agent.adapters.desktop.x11_typing import DesktopTypist
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.clipboard import NOTHING_SELECTED
from desktop_agent.core.tools.registry import ToolRegistry
from tests.adapters.desktop.test_selection_typing import WAIT_S, wait_for
from tests.needs import unavailable

PROGRAMS = ("sway", "swaymsg", "foot", "wtype", "wl-copy", "wl-paste", "setpriv")


class Sway:
    """A headless sway on a private runtime folder, and ``env`` to reach it."""

    def __init__(self) -> None:
        for program in PROGRAMS:
            if shutil.which(program) is None:
                unavailable(program, "not installed (apt-get install sway foot wtype "
                                     "wl-clipboard, or bash scripts/setup.sh test)")
        self.runtime = Path(tempfile.mkdtemp(prefix="da-wayland-"))
        self._as: list[str] = []
        if os.geteuid() == 0:  # sway will not run as root
            os.chown(self.runtime, 65534, 65534)
            self._as = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        self.runtime.chmod(0o700)
        config = self.runtime / "config"
        config.write_text("output HEADLESS-1 resolution 1024x768\n", encoding="utf-8")
        config.chmod(0o644)
        self._base = {"PATH": "/usr/bin:/bin", "HOME": str(self.runtime),
                      "XDG_RUNTIME_DIR": str(self.runtime), "LANG": "C.UTF-8"}
        self.sway = subprocess.Popen(
            [*self._as, "sway", "-c", str(config)],
            env={**self._base, "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1",
                 "WLR_RENDERER": "pixman"},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self._socket() is not None or self.sway.poll() is not None,
                 "sway's socket")
        assert self.sway.poll() is None, "sway exited at start"
        display = self._socket()
        assert display is not None
        # No session bus: no desktop portal's keyboard here (test_portal_keyboard.py has it).
        self.env = {**{k: v for k, v in os.environ.items()
                       if k not in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS")},
                    "XDG_RUNTIME_DIR": str(self.runtime), "WAYLAND_DISPLAY": display}
        self.terminal: subprocess.Popen[bytes] | None = None

    def _socket(self) -> str | None:
        found = sorted(p.name for p in self.runtime.glob("wayland-*")
                       if not p.name.endswith(".lock"))
        ipc = list(self.runtime.glob("sway-ipc.*.sock"))
        return found[0] if found and ipc else None

    def focused_app(self) -> str | None:
        """The app id of the focused window (sway's tree), or None."""
        ipc = next(self.runtime.glob("sway-ipc.*.sock"))
        out = subprocess.run(["swaymsg", "-s", str(ipc), "-t", "get_tree", "-r"],
                             capture_output=True, timeout=WAIT_S, check=False)
        if out.returncode != 0:
            return None

        def walk(node: dict[str, object]) -> str | None:
            if node.get("focused") and node.get("app_id"):
                return str(node["app_id"])
            for child in [*node.get("nodes", []), *node.get("floating_nodes", [])]:  # type: ignore[misc]
                found = walk(child)
                if found:
                    return found
            return None

        return walk(json.loads(out.stdout))

    def open_terminal(self, name: str) -> Path:
        """A foot terminal running ``cat > FILE`` (echo off), focused; FILE's path."""
        self.close_terminal()
        typed = self.runtime / name
        self.terminal = subprocess.Popen(
            [*self._as, "foot", "--app-id", typed.stem, "sh", "-c",
             f"stty -echo -icanon min 1; exec cat > {typed}"],
            env={**self._base, "WAYLAND_DISPLAY": self.env["WAYLAND_DISPLAY"]},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self.focused_app() == typed.stem and typed.exists(),
                 "the terminal to take the focus")
        return typed

    def close_terminal(self) -> None:
        if self.terminal is not None:
            self.terminal.kill()
            self.terminal.wait(WAIT_S)
            self.terminal = None

    def copy(self, text: str, primary: bool = False) -> None:
        """Own a selection with wl-copy, as another program would."""
        subprocess.run(["wl-copy", *(["--primary"] if primary else []), text], env=self.env,
                       timeout=WAIT_S, check=True)

    def clear(self) -> None:
        for flag in ("--primary", None):
            subprocess.run(["wl-copy", "--clear", *([flag] if flag else [])], env=self.env,
                           timeout=WAIT_S, check=False)

    def close(self) -> None:
        self.close_terminal()
        self.sway.terminate()
        try:
            self.sway.wait(WAIT_S)
        except subprocess.TimeoutExpired:
            self.sway.kill()
            self.sway.wait(WAIT_S)
        shutil.rmtree(self.runtime, ignore_errors=True)


@pytest.fixture(scope="module")
def sway() -> Iterator[Sway]:
    session = Sway()
    try:
        yield session
    finally:
        session.close()


def test_text_is_typed_into_the_focused_wayland_window(sway: Sway) -> None:
    typed = sway.open_terminal("typed.txt")
    typist = DesktopTypist(sway.env)
    assert typist.focused() == ""  # Wayland does not say which window has the focus
    assert typist.type("See you at nine, Anna.\nBring the café map") == ""
    # A line break is a space there: the focused window cannot be known, and Return would
    # run a terminal's line or send a message.
    want = "See you at nine, Anna. Bring the café map"
    wait_for(lambda: typed.read_text(encoding="utf-8") == want,
             f"the typed text (so far {typed.read_text(encoding='utf-8')!r})")


def test_without_wtype_the_text_waits_on_the_clipboard(sway: Sway, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"  # every program but wtype
    bin_dir.mkdir()
    for folder in ("/usr/bin", "/bin"):
        for program in Path(folder).iterdir():
            if program.name != "wtype" and not (bin_dir / program.name).exists():
                (bin_dir / program.name).symlink_to(program)
    typed = sway.open_terminal("not-typed.txt")
    said = DesktopTypist({**sway.env, "PATH": str(bin_dir)}).type("call the plumber")
    assert said == ('I can\'t type into other windows here, so "call the plumber" is on the '
                    "clipboard: paste it with Control V.")
    out = subprocess.run(["wl-paste", "--no-newline"], env=sway.env, capture_output=True,
                         timeout=WAIT_S, check=True)
    assert out.stdout.decode() == "call the plumber"
    assert typed.read_text(encoding="utf-8") == ""  # nothing was typed


def test_the_primary_selection_is_read_before_the_clipboard(sway: Sway) -> None:
    registry = add_desktop_tools(ToolRegistry(), clipboard=XclipClipboard(sway.env),
                                 last_answer=lambda: "The capital of Italy is Rome.")
    sway.clear()
    sway.copy("From the clipboard.")
    sway.copy("Highlighted words, café.", primary=True)
    assert registry.run(ToolCall("read_selection", {})) == "Highlighted words, café."
    sway.clear()
    assert registry.run(ToolCall("read_selection", {})) == NOTHING_SELECTED
    said = registry.run(ToolCall("copy_last_answer", {}))
    assert said == "I copied my last answer to the clipboard (6 words)."
    out = subprocess.run(["wl-paste", "--no-newline"], env=sway.env, capture_output=True,
                         timeout=WAIT_S, check=True)
    assert out.stdout.decode() == "The capital of Italy is Rome."
