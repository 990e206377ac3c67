"""Applications from the menu, the user's folders, and the default handler (xdg-open).

``Launcher`` reads what the desktop itself reads: the .desktop entries under
``$XDG_DATA_HOME/applications`` and each ``$XDG_DATA_DIRS/*/applications`` (the first
entry of an id wins, as in the menu), and the user's folders (``$HOME`` and the folders of
``user-dirs.dirs``: Documents, Downloads...). It starts an application from its Exec line
(``core.tools.launch.exec_argv``) and opens addresses, folders and files with ``xdg-open``,
which follows the user's ``mimeapps.list``. Every child gets the user's environment
(``child_env``) and lives on after the assistant.

Entries the menu would not show are skipped: ``TryExec`` not installed, ``OnlyShowIn`` /
``NotShowIn`` against ``XDG_CURRENT_DESKTOP``. A ``Terminal=true`` program is started in a
terminal. A child that fails at once (within ``EARLY_EXIT_S``: a missing library, xdg-open
with no handler) is an error, so "Opening ..." is said only for what did start.

Errors are ``AgentError`` with a code and a spoken message: no display to open on, no
xdg-open, the program of an entry is gone, it stopped at once, no terminal for it.

Runs on: the tool thread.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from desktop_agent.adapters.desktop.child_env import start_child
from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.launch import (
    DesktopEntry,
    best_app,
    folder_words,
    parse_desktop_entry,
)

MAX_ENTRIES: Final = 20_000
"""Folder entries looked at, at most, for one "open my ... folder" (a huge home stays quick)."""
MAX_DEPTH: Final = 3
"""How deep under each of the user's folders a folder or file is looked for."""
EARLY_EXIT_S: Final = 0.5
"""How long a started program is watched for an immediate failure (its exit code)."""
TERMINALS: Final = (("xdg-terminal-exec",), ("x-terminal-emulator", "-e"),
                    ("gnome-terminal", "--"), ("konsole", "-e"), ("xfce4-terminal", "-x"),
                    ("xterm", "-e"))
"""Terminals a ``Terminal=true`` program is started in, the first installed one."""
_USER_DIR: Final = re.compile(r'^XDG_[A-Z]+_DIR="?(?P<path>[^"]*)"?\s*$')


class Launcher:
    """The menu's applications and the user's folders, and how to open them.

    Runs on: the tool thread.
    """

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        """Read the XDG folders from ``env`` (default: this process's environment, each call)."""
        self._env = env

    def _getenv(self, key: str, default: str = "") -> str:
        env = os.environ if self._env is None else self._env
        return env.get(key) or default

    def _home(self) -> Path:
        return Path(self._getenv("HOME", str(Path.home())))

    def _cwd(self) -> Path | None:
        home = self._home()
        return home if home.is_dir() else None

    # --- applications --------------------------------------------------------------------

    def app_dirs(self) -> list[Path]:
        """Where .desktop entries are, in the order the menu reads them."""
        data_home = self._getenv("XDG_DATA_HOME", str(self._home() / ".local/share"))
        data_dirs = self._getenv("XDG_DATA_DIRS", "/usr/local/share:/usr/share")
        roots = [data_home, *[d for d in data_dirs.split(":") if d]]
        return [Path(r) / "applications" for r in roots]

    def entries(self) -> list[DesktopEntry]:
        """Every application entry, the first of each id (hidden ones included, marked)."""
        seen: dict[str, DesktopEntry | None] = {}
        for folder in self.app_dirs():
            if not folder.is_dir():
                continue
            for path in sorted(folder.rglob("*.desktop")):
                desktop_id = "-".join(path.relative_to(folder).parts)
                if desktop_id in seen:
                    continue
                try:
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                seen[desktop_id] = parse_desktop_entry(text, desktop_id)
        desktops = self._getenv("XDG_CURRENT_DESKTOP").split(":")
        return [e for e in seen.values()
                if e is not None and e.shown_in(desktops) and self._installed(e.try_exec)]

    def _installed(self, try_exec: str) -> bool:
        if not try_exec:
            return True
        if os.path.isabs(try_exec):
            return os.access(try_exec, os.X_OK)
        return shutil.which(try_exec, path=self._getenv("PATH", os.defpath)) is not None

    def in_terminal(self, argv: list[str], name: str) -> list[str]:
        """``argv`` started in the first terminal installed, or AgentError."""
        for terminal in TERMINALS:
            if shutil.which(terminal[0], path=self._getenv("PATH", os.defpath)):
                return [*terminal, *argv]
        raise AgentError("no_terminal", f"{name} runs in a terminal, and I found no terminal "
                         "program to start it in.", "install a terminal such as xterm")

    def find_app(self, said: str) -> DesktopEntry | None:
        """The menu application the words ``said`` name best, or None."""
        return best_app(self.entries(), said)

    def launch(self, argv: list[str]) -> None:
        """Start an application's command (from its entry's Exec line)."""
        if not argv:
            raise AgentError("app_missing", "That application has no command to start.")
        self._need_display()
        try:
            child = start_child(argv, self._env, cwd=self._cwd())
        except (FileNotFoundError, PermissionError):
            raise AgentError("app_missing", f"I could not start {Path(argv[0]).name}: its "
                             "program is not installed any more.",
                             "install the application again") from None
        if _failed_at_once(child):
            raise AgentError("app_failed", f"{Path(argv[0]).name} stopped as soon as it "
                             f"started (exit code {child.returncode}).",
                             "start it from the menu or a terminal to see why")

    # --- places --------------------------------------------------------------------------

    def user_folders(self) -> list[Path]:
        """The user's own folders: those of ``user-dirs.dirs`` that exist, then home."""
        home = self._home()
        config = Path(self._getenv("XDG_CONFIG_HOME", str(home / ".config")))
        found: list[Path] = []
        try:
            lines = (config / "user-dirs.dirs").read_text(encoding="utf-8").splitlines()
        except OSError:
            lines = []
        for line in lines:
            m = _USER_DIR.match(line.strip())
            if m:
                path = Path(m.group("path").replace("$HOME", str(home)))
                if path.is_dir() and path != home and path not in found:
                    found.append(path)
        return [*found, home] if home.is_dir() else found

    def find_place(self, said: str) -> Path | None:
        """The folder or file under the user's folders whose name holds every word said.

        Folders before files when "folder" is said (files before folders for "file"), then
        the shallowest, then the shortest name. Hidden entries are never looked at, nor a
        file that would run rather than open (a .desktop launcher, an executable): a spoken
        name never starts a program that a download left in a folder.
        """
        words = folder_words(said)
        if not words:
            return None
        want_file = bool(re.search(r"\b(?:file|document)\b", said, re.IGNORECASE))
        best: tuple[int, int, int, str] | None = None
        place: Path | None = None
        budget = MAX_ENTRIES
        for root in self.user_folders():
            stack = [(root, 0)]
            candidates = [(root, 0)]
            while stack and budget > 0:
                folder, depth = stack.pop()
                try:
                    children = sorted(os.scandir(folder), key=lambda d: d.name)
                except OSError:
                    continue
                for child in children:
                    budget -= 1
                    if child.name.startswith("."):
                        continue
                    path = Path(child.path)
                    candidates.append((path, depth + 1))
                    if depth + 1 < MAX_DEPTH and child.is_dir(follow_symlinks=False):
                        stack.append((path, depth + 1))
            for path, depth in candidates:
                name = path.name.lower()
                if not all(w in name for w in words):
                    continue
                is_dir = path.is_dir()
                if not is_dir and (name.endswith(".desktop") or os.access(path, os.X_OK)):
                    continue
                rank = (0 if is_dir != want_file else 1, depth, len(name), str(path))
                if best is None or rank < best:
                    best, place = rank, path
        return place

    def open_with_default(self, target: str) -> None:
        """Open an address, folder or file with the desktop's default handler (xdg-open)."""
        self._need_display()
        try:
            child = start_child(["xdg-open", target], self._env, cwd=self._cwd())
        except FileNotFoundError:
            raise AgentError("no_xdg_open", "I can't open it: the xdg-open program is not "
                             "installed.", "install xdg-utils") from None
        if _failed_at_once(child):
            raise AgentError("open_failed", f"I couldn't open {target}: there is no program "
                             f"set to open it (xdg-open said {child.returncode}).",
                             "choose a default application for it in your desktop's "
                             "settings")

    def _need_display(self) -> None:
        if not (self._getenv("DISPLAY") or self._getenv("WAYLAND_DISPLAY")):
            raise AgentError("no_display", "There is no desktop display here to open it on.",
                             "run the assistant inside your desktop session")


_STARTED: list[subprocess.Popen[bytes]] = []
"""Children still running: polled at each start, so that finished ones are reaped."""


def _failed_at_once(child: subprocess.Popen[bytes]) -> bool:
    """Whether ``child`` exited with an error within ``EARLY_EXIT_S`` (else it lives on)."""
    _STARTED[:] = [c for c in _STARTED if c.poll() is None]
    try:
        code = child.wait(EARLY_EXIT_S)
    except subprocess.TimeoutExpired:
        _STARTED.append(child)
        return False
    return code != 0
