"""The desktop's selections through ``xclip`` (X11), or ``wl-paste`` / ``wl-copy`` (Wayland).

``XclipClipboard`` is the ``core.tools.clipboard.Clipboard`` the app, ``ask`` and ``replay``
use. Reading takes the PRIMARY selection first (on X11, whatever is highlighted, with no
copy needed), then the clipboard. Copying puts text on the clipboard the way ``xclip -i``
does it: X11 has no clipboard store, a selection is served by the program that owns it, so
xclip forks a small process that owns the selection and serves it until another program
copies something (``wl-copy`` does the same under Wayland). That process lives on in its own
session after the assistant exits, as a copied text should.

Under Wayland, ``wl-paste`` and ``wl-copy`` (wl-clipboard) are used when installed; without
them xclip reaches XWayland's selections, which most compositors keep in step with
Wayland's clipboard (the PRIMARY selection only on some).

Errors are spoken answers with a code: no display, no xclip (nor wl-clipboard), a selection
owner that does not answer.
Runs on: the tool thread (each call ends within ``child_env.CHILD_TIMEOUT_S``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from typing import Final

from desktop_agent.adapters.desktop.child_env import CHILD_TIMEOUT_S, child_env
from desktop_agent.core.errors import AgentError

NO_DISPLAY: Final = ("no_display", "There is no desktop display here, so there is no "
                     "selection or clipboard to use.", "run me inside your desktop session")
NO_PROGRAM: Final = ("no_clipboard_program", "I can't reach the clipboard: the xclip program "
                     "is not installed.", "install xclip (or wl-clipboard under Wayland)")
NO_ANSWER: Final = ("clipboard_no_answer", "The program that holds the selection did not "
                    "answer, so I have nothing to read.", "select or copy the text again")
POLL_S: Final = 0.02
"""How often a copy looks whether the clipboard serves it yet."""
COPY_FAILED: Final = ("clipboard_copy_failed", "I couldn't put that on the clipboard.",
                      "check that your desktop session is running")


class XclipClipboard:
    """The PRIMARY selection and the clipboard, read and written by xclip or wl-clipboard.

    Runs on: the tool thread.
    """

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        """Use the display of ``env`` (default: this process's environment, each call)."""
        self._env = env

    def _environ(self) -> dict[str, str]:
        return child_env(os.environ if self._env is None else self._env)

    def _wayland(self, env: Mapping[str, str], program: str) -> bool:
        return bool(env.get("WAYLAND_DISPLAY")) and shutil.which(program, path=env.get(
            "PATH")) is not None

    def _paste_commands(self, env: Mapping[str, str]) -> list[list[str]]:
        if self._wayland(env, "wl-paste"):
            return [["wl-paste", "--primary", "--no-newline"], ["wl-paste", "--no-newline"]]
        if not env.get("DISPLAY"):
            raise AgentError(*NO_DISPLAY)
        return [["xclip", "-o", "-selection", "primary"],
                ["xclip", "-o", "-selection", "clipboard"]]

    def selected_text(self) -> str:
        """The PRIMARY selection's text, else the clipboard's; '' when both are empty."""
        env = self._environ()
        commands = self._paste_commands(env)
        for argv in commands:
            try:
                done = subprocess.run(argv, env=env, capture_output=True, timeout=CHILD_TIMEOUT_S,
                                      check=False, stdin=subprocess.DEVNULL)
            except FileNotFoundError:
                raise AgentError(*NO_PROGRAM) from None
            except subprocess.TimeoutExpired:
                raise AgentError(*NO_ANSWER) from None
            text = done.stdout.decode("utf-8", errors="replace")
            if done.returncode == 0 and text.strip():
                return text  # an empty or absent selection: exit 1 ("target not available")
        return ""

    def copy(self, text: str) -> None:
        """Put ``text`` on the clipboard; a forked xclip (or wl-copy) keeps serving it."""
        env = self._environ()
        if self._wayland(env, "wl-copy"):
            argv, paste = ["wl-copy"], ["wl-paste", "--no-newline"]
        elif env.get("DISPLAY"):
            argv = ["xclip", "-selection", "clipboard", "-i"]
            paste = ["xclip", "-o", "-selection", "clipboard"]
        else:
            raise AgentError(*NO_DISPLAY)
        try:
            # The child owns the selection until another copy: its own session, no pipes
            # left open to us (a pipe held by the forked owner would block this call).
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    start_new_session=True)
        except FileNotFoundError:
            raise AgentError(*NO_PROGRAM) from None
        try:
            proc.communicate(text.encode("utf-8"), timeout=CHILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AgentError(*COPY_FAILED) from None
        if proc.returncode != 0:
            raise AgentError(*COPY_FAILED)
        _wait_served(text, paste, env)


def _wait_served(text: str, paste: list[str], env: Mapping[str, str]) -> None:
    """Return once the clipboard serves ``text``: xclip forks before its child takes the
    selection, so a paste right after the copy returned could still get the old text."""
    want = text.encode("utf-8")
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            done = subprocess.run(paste, env=dict(env), capture_output=True, check=False,
                                  timeout=CHILD_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            break
        if done.returncode == 0 and done.stdout == want:
            return
        time.sleep(POLL_S)
    raise AgentError(*COPY_FAILED)
