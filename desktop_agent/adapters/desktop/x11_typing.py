"""Typing text into the focused window: XTest on X11, ``wtype`` or the clipboard on Wayland.

``DesktopTypist`` is the ``core.tools.type_text.Typist`` the app, ``ask`` and ``replay``
use (and dictation). On X11 each character becomes key presses sent through the XTEST
extension (python-xlib's ``xtest.fake_input``), as a keyboard would send them, so every
X11 program takes them as typing:

- the character's keysym (Latin-1 keysyms are their code points, the rest are Unicode
  keysyms ``0x01000000 + code point``) is looked up in the keyboard map; found at level 1,
  2 (Shift), 3 or 4 (AltGr, ``ISO_Level3_Shift``, with or without Shift), the key is pressed
  with those modifiers held;
- a character the keyboard map does not have (an é on a US layout, an emoji) is typed
  through a spare keycode (one with no keysym at all) remapped to it for the time being,
  as xdotool does. A program reads the map when it handles the key, maybe after we have
  moved on, so a remap is kept until the next ``type`` call starts, and a
  spare keycode is reused within one call only when all of them are taken;
- the focus is looked at every ``FOCUS_EVERY`` characters: a window that takes it (a popup,
  a notification) stops the run at the next look (it may get up to that many characters),
  and the answer says after how many characters;
- a line break is Shift+Return (a new line in an editor or a mail, without sending a
  message); Enter alone is never pressed. A terminal (``TERMINAL_CLASSES`` by the focused
  window's ``WM_CLASS``) takes Shift+Return as Return and would run the line, so there a
  line break is typed as a space. A tab is Tab.

Under Wayland, X11 programs cannot type into other windows. In this order: the desktop
portal's RemoteDesktop keyboard (GNOME, KDE: ``portal_keyboard``; the desktop asks the user
once, and a restore token kept in the data folder spares the question at later starts where
the portal can keep it); ``wtype`` (virtual-keyboard protocol: wlroots compositors, KDE)
when installed; both type line breaks as spaces (the target cannot be known there);
otherwise the text goes to the clipboard and the answer says to paste it, quoting it.

Errors are spoken answers with a code: no display, no python-xlib, no XTEST, the X server
gone. Runs on: the tool thread (or the dictation worker): one ``type`` at a time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from desktop_agent.adapters.desktop.child_env import CHILD_TIMEOUT_S, child_env
from desktop_agent.adapters.desktop.clipboard_xclip import XclipClipboard
from desktop_agent.adapters.desktop.portal_keyboard import PortalKeyboard
from desktop_agent.adapters.paths import data_dir
from desktop_agent.core.desktop.keysyms import RETURN, keysym_of
from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.type_text import OWN_WINDOW

SHIFT_L: Final = 0xFFE1
LEVEL3: Final = 0xFE03
"""ISO_Level3_Shift (AltGr)."""
WTYPE_SETTLE_MS: Final = 100
"""wtype waits this long before its first key (see ``_type_wayland``)."""
NO_DISPLAY: Final = ("no_display", "There is no desktop display here to type into.",
                     "run me inside your desktop session")
NO_XLIB: Final = ("typing_no_xlib", "I can't type here: python-xlib is not installed.",
                  "reinstall desktop_agent (pip install python-xlib)")
NO_XTEST: Final = ("typing_no_xtest", "I can't type here: the X server has no XTEST "
                   "extension.", "enable XTEST in the X server's configuration")
X_GONE: Final = ("typing_x_failed", "I couldn't reach the display to type.",
                 "check that your desktop session is running")


TERMINAL_CLASSES = frozenset({
    "xterm", "uxterm", "urxvt", "rxvt", "gnome-terminal", "gnome-terminal-server", "konsole",
    "xfce4-terminal", "kitty", "alacritty", "terminator", "tilix", "lxterminal", "mate-terminal",
    "qterminal", "st", "st-256color", "wezterm", "foot", "sakura", "terminology", "guake",
    "tilda", "yakuake", "org.wezfurlong.wezterm", "org.gnome.terminal", "org.gnome.console",
    "kgx", "ptyxis", "cool-retro-term", "eterm", "aterm", "mlterm", "x-terminal-emulator"})
"""``WM_CLASS`` names (lower case) of terminals: a line break typed there would run a line."""


def _in_terminal(conn: Any, window: Any) -> bool:
    """Whether ``window`` (or its nearest ancestor with a ``WM_CLASS``) is a terminal's."""
    for each in _window_and_ancestors(conn, window):
        names = each.get_wm_class()
        if names:
            return any(n.lower() in TERMINAL_CLASSES for n in names)
    return False


FOCUS_EVERY: Final = 16
"""Characters typed between two looks at the focus: a popup that takes it stops the run."""


def _focus_of(conn: Any) -> int:
    """The focused window's id (or PointerRoot's / None's number)."""
    focus = conn.get_input_focus().focus
    return int(focus.id) if hasattr(focus, "id") else int(focus)


def _target(conn: Any) -> Any:
    """The window keys go to: the focus, or under PointerRoot the top window under the
    pointer (None when there is neither)."""
    focus = conn.get_input_focus().focus
    if hasattr(focus, "id"):
        return focus
    child = conn.screen().root.query_pointer().child
    return child if hasattr(child, "id") and child.id else None


def _window_and_ancestors(conn: Any, window: Any) -> Iterator[Any]:
    """``window``, then its parents up to (not including) the root; none for None."""
    root = conn.screen().root
    for _depth in range(32):
        if not hasattr(window, "id") or window.id in (0, root.id):
            return
        yield window
        window = window.query_tree().parent


def _pid_of(conn: Any, window: Any) -> int | None:
    """The ``_NET_WM_PID`` of ``window`` or of the nearest ancestor that has one."""
    atom = conn.intern_atom("_NET_WM_PID")
    for each in _window_and_ancestors(conn, window):
        prop = each.get_full_property(atom, 0)
        if prop is not None and len(prop.value):
            return int(prop.value[0])
    return None


class X11Keys:
    """One typing run's connection: keysyms to keycodes, modifiers, spare keycodes."""

    def __init__(self, conn: Any, remapped: list[int]) -> None:
        """Use ``conn`` (open, XTEST checked).

        ``remapped``: the spare keycodes an earlier run bound (kept in place for its window
        to read): given their empty map back first, then listed again by this run's binds.
        """
        from Xlib import X
        from Xlib.ext import xtest

        self._conn, self._x, self._xtest = conn, X, xtest
        for keycode in remapped:
            conn.change_keyboard_mapping(keycode, [(0, 0)])
        remapped.clear()
        self.remapped = remapped
        info = conn.display.info
        low, high = info.min_keycode, info.max_keycode
        self._table: dict[int, list[tuple[int, int]]] = {}
        self._spare: list[int] = []
        for offset, syms in enumerate(conn.get_keyboard_mapping(low, high - low + 1)):
            if not any(syms):
                self._spare.insert(0, low + offset)  # the highest first, as xdotool
            for index, sym in enumerate(syms):
                if sym:
                    self._table.setdefault(sym, []).append((low + offset, index))
        self._bound: dict[int, int] = {}
        """Keysym -> the spare keycode bound to it in this run."""

    def _code(self, keysym: int) -> int:
        return next((c for c, i in self._table.get(keysym, ()) if i == 0), 0)

    def _press(self, keycode: int, modifiers: list[int]) -> None:
        fake, conn, x = self._xtest.fake_input, self._conn, self._x
        for mod in modifiers:
            fake(conn, x.KeyPress, mod)
        fake(conn, x.KeyPress, keycode)
        fake(conn, x.KeyRelease, keycode)
        for mod in reversed(modifiers):
            fake(conn, x.KeyRelease, mod)
        conn.sync()

    def _spare_for(self, keysym: int) -> int:
        if keysym in self._bound:
            return self._bound[keysym]
        if not self._spare:
            raise AgentError("typing_no_keycode", "Your keyboard map has no free key to type "
                             "that character with.", "type it yourself")
        keycode = self._spare.pop(0)  # the least recently bound when all are taken
        self._spare.append(keycode)
        self._bound = {k: c for k, c in self._bound.items() if c != keycode}
        self._conn.change_keyboard_mapping(keycode, [(keysym, keysym)])
        self._conn.sync()
        self._bound[keysym] = keycode
        if keycode not in self.remapped:
            self.remapped.append(keycode)
        return keycode

    def type_char(self, char: str) -> None:
        """Press and release what types ``char``."""
        keysym = keysym_of(char)
        shift, level3 = self._code(SHIFT_L), self._code(LEVEL3)
        if char == "\n":
            self._press(self._code(RETURN), [shift] if shift else [])
            return
        mods_of: dict[int, list[int]] = {0: [], 1: [shift], 4: [level3], 5: [level3, shift]}
        for keycode, index in self._table.get(keysym, ()):
            mods = mods_of.get(index)
            if mods is not None and all(mods):
                self._press(keycode, mods)
                return
        self._press(self._spare_for(keysym), [])


_TYPING = threading.Lock()
"""One typing run at a time in this process, whichever typist (the tool's, dictation's)."""
_REMAPPED: list[int] = []
"""Spare keycodes remapped by the last run, undone when the next run starts (any typist)."""
_KEYBOARDS: dict[tuple[str, str], PortalKeyboard] = {}
"""The portal keyboard of each (session bus, token file): one session serves every typist."""
TOKEN_FILE_NAME: Final = "remote-desktop-token"
"""The portal keyboard's restore token, in the app's data folder."""


def close_portal_keyboards() -> None:
    """Close every portal keyboard's session (the app quits): a typing run waiting on the
    desktop's dialog ends at once instead of holding the quit up to a minute."""
    for keyboard in list(_KEYBOARDS.values()):
        keyboard.close()
    _KEYBOARDS.clear()


def portal_keyboard(env: Mapping[str, str], token_file: Path) -> PortalKeyboard:
    """The portal keyboard for ``env``'s session bus (made on first use; typing lock held)."""
    key = (env.get("DBUS_SESSION_BUS_ADDRESS", ""), str(token_file))
    if key not in _KEYBOARDS:
        _KEYBOARDS[key] = PortalKeyboard(env, token_file)
    return _KEYBOARDS[key]


class DesktopTypist:
    """Types into the focused window of this desktop session (X11 or Wayland).

    Runs on: the tool thread (one ``type`` at a time).
    """

    def __init__(self, env: Mapping[str, str] | None = None,
                 token_file: Path | None = None) -> None:
        """Use the display of ``env`` (default: this process's environment, each call).

        ``token_file``: where the portal keyboard keeps its restore token (default: the
        app's data folder).
        """
        self._env = env
        self._token_file = token_file
        self._remapped = _REMAPPED
        self._lock = _TYPING  # the tool thread and dictation's may both type

    def _environ(self) -> dict[str, str]:
        return child_env(os.environ if self._env is None else self._env)

    def _open(self, env: Mapping[str, str]) -> Any:
        try:
            from Xlib import display, error
        except ImportError:
            raise AgentError(*NO_XLIB) from None
        try:
            conn = display.Display(env["DISPLAY"])
        except (error.DisplayError, OSError):
            raise AgentError(*X_GONE) from None
        if not conn.has_extension("XTEST"):
            conn.close()
            raise AgentError(*NO_XTEST)
        return conn

    def focused(self) -> str:
        """The X window that has the focus ('' under Wayland or without a display).

        ``OWN_WINDOW`` when it is one of this process's own windows (its top-level window's
        ``_NET_WM_PID``): typing there would press the assistant's own keys.
        """
        env = self._environ()
        if env.get("WAYLAND_DISPLAY") or not env.get("DISPLAY"):
            return ""
        conn = self._open(env)
        from Xlib import error

        try:
            focus = conn.get_input_focus().focus
            if not hasattr(focus, "id"):
                return str(focus)  # None or PointerRoot: the window under the pointer
            return OWN_WINDOW if _pid_of(conn, focus) == os.getpid() else str(focus.id)
        except (error.XError, error.ConnectionClosedError, ConnectionError, OSError):
            raise AgentError(*X_GONE) from None
        finally:
            conn.close()

    def type(self, text: str) -> str:
        """Type ``text`` into the focused window; '' when typed, else what happened instead."""
        env = self._environ()
        if env.get("WAYLAND_DISPLAY"):
            with self._lock:
                return self._type_wayland(text, env)
        if not env.get("DISPLAY"):
            raise AgentError(*NO_DISPLAY)
        with self._lock:
            self._type_x11(text, env)
        return ""

    def _type_x11(self, text: str, env: Mapping[str, str]) -> None:
        from Xlib import error

        conn = self._open(env)
        try:
            if "\n" in text and _in_terminal(conn, _target(conn)):
                text = text.replace("\n", " ")  # Shift+Return runs the line there
            keys = X11Keys(conn, self._remapped)  # the last run's remaps undone: long read
            start = _focus_of(conn)
            for n, char in enumerate(text):
                if n and n % FOCUS_EVERY == 0 and _focus_of(conn) != start:
                    raise AgentError("typing_focus_moved", f"The focus moved to another window "
                                     f"after {n} characters, so I stopped typing there.",
                                     "click back into your window and ask again for the rest")
                keys.type_char(char)
        except (error.XError, error.ConnectionClosedError, ConnectionError, OSError):
            raise AgentError(*X_GONE) from None
        finally:
            conn.close()

    def _type_wayland(self, text: str, env: Mapping[str, str]) -> str:
        token_file = self._token_file or data_dir() / TOKEN_FILE_NAME
        text = portal_keyboard(env, token_file).type(text)  # what it left untyped
        if not text:
            return ""
        if shutil.which("wtype", path=env.get("PATH")) is not None:
            # The focused window cannot be known here: a line break is a space, never a
            # key that might run a terminal's line or send a message.
            # wtype's first key is lost when sent at once: the compositor has not taken
            # its new keyboard's keymap yet (tests/adapters/desktop/test_wayland_desktop.py).
            argv = ["wtype", "-s", str(WTYPE_SETTLE_MS), "--", text.replace("\n", " ")]
            try:
                done = subprocess.run(argv, env=dict(env), capture_output=True, check=False,
                                      timeout=CHILD_TIMEOUT_S, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                done = None
            if done is not None and done.returncode == 0:
                return ""
        XclipClipboard(env).copy(text)
        return (f'I can\'t type into other windows here, so "{text}" is on the clipboard: '
                "paste it with Control V.")
