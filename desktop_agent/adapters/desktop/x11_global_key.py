"""The global push-to-talk key on X11: a passive grab of one key on the root window.

``X11GlobalKey(shortcut, on_press=..., on_release=...)`` grabs the key (``XGrabKey``,
asynchronous, once per NumLock/CapsLock state so the key works whatever the locks are) on its
own connection to the X server, and a thread reads the key's events until ``stop()``. Auto-
repeat is filtered (core/desktop/key_repeat.py): the callbacks see exactly one press and one
release per hold, and a press is always followed by a release (``stop()`` during a hold, or
a lost connection, reports the release).

Error contract: nothing here raises to the caller. ``start()`` returns ``None`` when the key
is grabbed, or a ``DesktopError`` value with a code, a message and a fix:

- ``global_key_wayland``: a Wayland session: X11 programs see keys only while one of their
  windows has focus, so the grab would be a trap; use the ``ptt`` command instead.
- ``global_key_no_display``: no ``DISPLAY`` (no desktop session, a service, ssh).
- ``global_key_no_xlib``: python-xlib is not installed.
- ``global_key_x11_unreachable``: ``DISPLAY`` is set but the X server refused or is gone.
- ``global_key_not_on_keyboard``: the keyboard map has no key for the keysym.
- ``global_key_taken``: another program holds the key (X's BadAccess on the grab).
- ``global_key_failed``: any other X error on the grab.

After a successful start, a problem that ends the loop (the X server went away) is reported
once through ``on_error`` with ``global_key_lost``, after the release of a key still down.

Threads: ``start()`` and ``stop()`` run on the caller's thread (the GUI thread in the app;
each takes milliseconds). ``on_press``, ``on_release`` and ``on_error`` run on the listener's
thread: marshal them to the GUI thread (a Qt signal emitted there is queued to its receiver).
The X connection is used by ``start()`` until the thread starts, then by the thread alone.
"""

from __future__ import annotations

import logging
import os
import select
from collections.abc import Callable, Mapping
from typing import Any, Final

from desktop_agent.adapters.desktop.key_thread import KeyThread, call_safely
from desktop_agent.core.desktop.key_repeat import (
    RELEASE_GRACE_S,
    KeyEdge,
    KeyKind,
    RepeatFilter,
)
from desktop_agent.core.desktop.shortcut import GlobalShortcut
from desktop_agent.core.errors import DesktopError

_LOGGER = logging.getLogger(__name__)

PTT_COMMAND_FIX: Final = (
    "in your desktop's keyboard settings, bind a shortcut to the command "
    "`desktop-agent ptt toggle` (or `desktop-agent ptt start` on press and "
    "`desktop-agent ptt stop` on release, where your desktop can bind a key's release).")
SETTINGS_FIX: Final = "choose another key in Settings -> Shortcuts."
_FALLBACK_MASKS: Final = {"Alt": "Mod1Mask", "Super": "Mod4Mask", "NumLock": "Mod2Mask"}
"""The usual ModN of each, for a keyboard map that carries none of its keys."""
_MODIFIER_KEYSYMS: Final = {"Alt": ("Alt_L", "Alt_R", "Meta_L", "Meta_R"),
                            "Super": ("Super_L", "Super_R"), "NumLock": ("Num_Lock",)}


def session_problem(environ: Mapping[str, str]) -> DesktopError | None:
    """Why an X11 grab cannot serve as a global key in this session (None: it can).

    Runs on: any thread (pure).
    """
    if environ.get("XDG_SESSION_TYPE") == "wayland" or environ.get("WAYLAND_DISPLAY"):
        return DesktopError(
            "global_key_wayland",
            "This is a Wayland session: the global push-to-talk key is an X11 grab, which "
            "works only in X11 sessions (under Wayland it would fire only while an X11 "
            "program has focus).", PTT_COMMAND_FIX)
    if not environ.get("DISPLAY"):
        return DesktopError(
            "global_key_no_display",
            "There is no X11 display (DISPLAY is not set), so the global push-to-talk key is "
            "off.", "start desktop_agent from your desktop session, or " + PTT_COMMAND_FIX)
    return None


class X11GlobalKey:
    """One global key, grabbed on X11 and reported as press and release callbacks.

    Runs on: ``start``/``stop`` on the caller's thread; callbacks on the listener thread.
    """

    def __init__(self, shortcut: GlobalShortcut, *, on_press: Callable[[], None],
                 on_release: Callable[[], None],
                 on_error: Callable[[DesktopError], None] | None = None,
                 environ: Mapping[str, str] | None = None, allow_xwayland: bool = False) -> None:
        """Prepare the grab; nothing is opened until ``start()``.

        Args:
            shortcut: the key, from ``core.desktop.shortcut.parse_shortcut``.
            on_press: the key went down (once per hold). Runs on the listener thread.
            on_release: the key came up (once per hold). Runs on the listener thread.
            on_error: the loop ended on its own (``global_key_lost``); runs on the listener
                thread, at most once.
            environ: where ``DISPLAY`` and the session type are read (default: os.environ).
            allow_xwayland: grab under Wayland too (XWayland). Off by default: there the key
                fires only while an X11 program has focus; on KDE, "Legacy X11 App Support"
                set to all keys makes it global.
        """
        self.shortcut = shortcut
        self._on_press = on_press
        self._on_release = on_release
        self._on_error = on_error
        self._environ = os.environ if environ is None else environ
        self._allow_xwayland = allow_xwayland
        self._display: Any = None
        self._grabs: list[tuple[int, int]] = []
        self._keycode = 0
        self._worker = KeyThread()
        self.raw_events = 0
        """Events of the key read from the server, repeats included (tests, diagnostics)."""

    @property
    def running(self) -> bool:
        """True while the listener thread runs."""
        return self._worker.running

    def start(self) -> DesktopError | None:
        """Grab the key and start the listener thread; the problem as a value, or None.

        Runs on: the caller's thread (a few round trips to the X server).
        """
        if self._worker.started:
            if self._worker.running:
                return None  # already running
            self.stop()  # the loop ended on its own (connection lost): grab again
        problem = session_problem(self._environ)
        if problem is not None and not (
                self._allow_xwayland and problem.code == "global_key_wayland"
                and self._environ.get("DISPLAY")):
            return problem
        try:
            from Xlib import XK, X, display, error
        except ImportError:
            return DesktopError(
                "global_key_no_xlib",
                "python-xlib is not installed, so the global push-to-talk key is off.",
                "install it: pip install python-xlib==0.33 (scripts/setup.sh does).")
        name = self._environ.get("DISPLAY", "")
        try:
            conn = display.Display(name)
        except Exception as exc:  # noqa: BLE001 - DisplayError, OSError, even OverflowError
            return DesktopError(
                "global_key_x11_unreachable",
                f"Could not connect to the X server {name!r} ({exc}); the global push-to-talk "
                "key is off.", "start desktop_agent from your desktop session, or "
                + PTT_COMMAND_FIX)
        conn.set_error_handler(_log_x_error)
        try:
            problem = self._grab(conn, X, XK, error)
        except Exception as exc:  # noqa: BLE001 - the server went away mid-grab
            self._grabs.clear()
            problem = DesktopError(
                "global_key_x11_unreachable",
                f"The X server {name!r} closed the connection while grabbing "
                f"{self.shortcut.text} ({exc}).", "start desktop_agent again.")
        if problem is not None:
            _close_quietly(conn)
            return problem
        self._display = conn
        self._worker.start(self._run, "x11-global-key")
        _LOGGER.info("global key %s grabbed on X11 display %s (keycode %d)",
                     "+".join((*self.shortcut.modifiers, self.shortcut.keysym)), name,
                     self._keycode)
        return None

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Ungrab, close the connection, end the thread; True when it ended in ``timeout_s``.

        A hold in progress gets its release first. Safe to call twice, or before ``start``.
        Runs on: the caller's thread (not a callback's: it would wait for itself).
        """
        return self._worker.stop(timeout_s)

    # -- the grab (caller's thread) -------------------------------------------------------
    def _grab(self, conn: Any, X: Any, XK: Any, error: Any) -> DesktopError | None:  # noqa: N803
        keysym = XK.string_to_keysym(self.shortcut.keysym)
        keycode = conn.keysym_to_keycode(keysym) if keysym else 0
        if not keycode:
            return DesktopError("global_key_not_on_keyboard",
                                f"The keyboard map has no {self.shortcut.text} key.",
                                SETTINGS_FIX)
        masks = _modifier_masks(conn, X, XK)
        base = 0
        for name in self.shortcut.modifiers:
            base |= masks[name]
        root = conn.screen().root
        catch = error.CatchError()
        # Each lock state is its own grab: a grab matches the exact modifier state.
        for extra in {0, X.LockMask, masks["NumLock"], X.LockMask | masks["NumLock"]}:
            root.grab_key(keycode, base | extra, False, X.GrabModeAsync, X.GrabModeAsync,
                          onerror=catch)
            self._grabs.append((keycode, base | extra))
        conn.sync()
        failure = catch.get_error()
        if failure is None:
            self._keycode = keycode
            return None
        for code, mods in self._grabs:
            root.ungrab_key(code, mods)
        self._grabs.clear()
        conn.sync()
        if isinstance(failure, error.BadAccess):
            return DesktopError("global_key_taken",
                                f"{self.shortcut.text} is taken by another program.",
                                SETTINGS_FIX)
        return DesktopError("global_key_failed",
                            f"The X server refused to grab {self.shortcut.text} ({failure}).",
                            SETTINGS_FIX)

    # -- the loop (listener thread) -------------------------------------------------------
    def _run(self) -> None:
        from Xlib import X
        from Xlib.error import ConnectionClosedError

        conn, keys = self._display, RepeatFilter()
        lost: DesktopError | None = None
        last_ms = 0
        try:
            fd = conn.fileno()
            while True:
                # Drain first: start()'s sync may already have queued events, which the
                # socket would not announce again.
                while conn.pending_events():
                    event = conn.next_event()
                    if event.type not in (X.KeyPress, X.KeyRelease):
                        continue
                    if event.detail != self._keycode:
                        continue  # other keys during the grab's active phase (Ctrl, Alt...)
                    last_ms = event.time
                    self.raw_events += 1
                    kind: KeyKind = "press" if event.type == X.KeyPress else "release"
                    self._report(keys.feed(KeyEdge(kind, event.detail, event.time)))
                timeout = RELEASE_GRACE_S if keys.holding_release else None
                ready, _, _ = select.select([fd, self._worker.wake_fd], [], [], timeout)
                if self._worker.wake_fd in ready:
                    break
                if not ready:  # nothing followed the release: it is real
                    self._report(keys.flush())
        except Exception as exc:  # noqa: BLE001 - whatever ends the loop is reported once
            if not isinstance(exc, ConnectionClosedError | OSError):
                _LOGGER.exception("the global key's X11 loop failed")
            lost = DesktopError("global_key_lost",
                                f"The connection to the X server was lost ({exc}); the global "
                                "push-to-talk key is off.", "restart desktop_agent.")
        self._report(keys.release_all(last_ms))
        self._close(conn, lost is None)
        if lost is not None:
            _LOGGER.warning("%s", lost.describe())
            if self._on_error is not None:
                call_safely(self._on_error, lost)

    def _report(self, edges: list[KeyEdge]) -> None:
        for edge in edges:
            call_safely(self._on_press if edge.kind == "press" else self._on_release)

    def _close(self, conn: Any, connected: bool) -> None:
        if connected:
            try:
                root = conn.screen().root
                for code, mods in self._grabs:
                    root.ungrab_key(code, mods)
            except Exception:  # noqa: BLE001 - closing a connection that is going anyway
                _LOGGER.debug("ungrabbing the global key", exc_info=True)
            _close_quietly(conn)  # flushes the ungrabs; closing alone would free them too
        self._grabs.clear()


def _modifier_masks(conn: Any, X: Any, XK: Any) -> dict[str, int]:  # noqa: N803
    """The X mask of each modifier name, Alt, Super and NumLock read from the keyboard map."""
    masks = {"Control": X.ControlMask, "Shift": X.ShiftMask}
    rows = conn.get_modifier_mapping()  # Shift, Lock, Control, Mod1..Mod5: keycodes each
    for name, keysym_names in _MODIFIER_KEYSYMS.items():
        wanted = {XK.string_to_keysym(n) for n in keysym_names}
        found = next((1 << index for index, row in enumerate(rows) if index >= 3
                      and any(code and conn.keycode_to_keysym(code, 0) in wanted
                              for code in row)), None)
        masks[name] = found if found is not None else getattr(X, _FALLBACK_MASKS[name])
    return masks


def _close_quietly(conn: Any) -> None:
    try:
        conn.close()
    except Exception:  # noqa: BLE001 - a connection the server already dropped
        _LOGGER.debug("closing the X connection", exc_info=True)


def _log_x_error(err: Any, request: Any) -> None:
    """X errors of requests without their own handler: logged, never printed."""
    _LOGGER.warning("X error on the global key's connection: %s", err)
