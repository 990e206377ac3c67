"""Start at login: the XDG autostart entry, and the path of the command that is running.

``[desktop] start_at_login`` on writes
``$XDG_CONFIG_HOME/autostart/io.github.desktop_agent.DesktopAgent.desktop`` (``~/.config``
without it; the name is ``paths.APP_ID``), the app's menu entry with ``Exec=<absolute path of
this desktop-agent> --start-hidden``; off removes it. Stdlib only.

Error contract: the file is written whole or not at all (a temporary file beside it, then
``os.replace``), and never pointing at a command that is not there: that is
``AgentError('autostart_no_command')`` and nothing is written. A file of that name that we did
not write (no ``X-DesktopAgent-Autostart`` line: the user's own) is never replaced or removed
(``autostart_not_ours``). Other I/O failures are ``autostart_failed``.

Sessions that do not run XDG autostart (sway, Hyprland, most bare window managers) need
``exec <path> --start-hidden`` in their own config instead (docs/anywhere.md).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Final

from desktop_agent.adapters.paths import APP_ID, app_resource
from desktop_agent.core.errors import AgentError

ENTRY: Final = f"{APP_ID}.desktop"
MARK: Final = "X-DesktopAgent-Autostart=true"
"""The line that says the autostart file is ours."""
START_HIDDEN: Final = "--start-hidden"


def this_command() -> Path:
    """The absolute path of the ``desktop-agent`` command that is running now.

    The bundle's executable when frozen, else the venv's console script (argv[0], or the
    one beside the interpreter), else the one on PATH.
    """
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve()
    argv0 = Path(sys.argv[0])
    if argv0.name == "desktop-agent" and argv0.exists():
        return argv0.absolute()
    beside = Path(sys.executable).parent / "desktop-agent"  # the venv's console script
    if beside.exists():
        return beside.absolute()
    found = shutil.which("desktop-agent")
    return Path(found).absolute() if found else beside


def exec_quote(command: Path) -> str:
    """``command`` as a .desktop Exec argument (quoted as the spec asks, when needed)."""
    text = str(command)
    if any(c in text for c in ' \t"\'\\$`'):
        text = '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace(
            "`", "\\`").replace("$", "\\$") + '"'
    return text


def entry_text(template: str, command: Path, *, args: str = "") -> str:
    """The .desktop file with Exec/TryExec pointing at ``command`` (then ``args``)."""
    exec_line = f"Exec={exec_quote(command)}" + (f" {args}" if args else "")
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = exec_line
        elif line.startswith("TryExec="):
            line = f"TryExec={command}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def autostart_dir() -> Path:
    """$XDG_CONFIG_HOME/autostart, or ~/.config/autostart."""
    env = os.environ.get("XDG_CONFIG_HOME")
    return (Path(env) if env else Path.home() / ".config") / "autostart"


def autostart_text(command: Path) -> str:
    """Our autostart entry: the menu entry, started hidden, without a busy cursor."""
    template = app_resource(ENTRY).read_text(encoding="utf-8")
    text = entry_text(template, command, args=START_HIDDEN)
    text = text.replace("StartupNotify=true", "StartupNotify=false")
    return text + "X-GNOME-Autostart-enabled=true\n" + MARK + "\n"


def is_ours(path: Path) -> bool:
    """True when ``path`` is an autostart file this module wrote."""
    try:
        return MARK in path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False


def enable(command: Path, folder: Path | None = None) -> Path:
    """Write (or refresh) the autostart entry for ``command``; return its path."""
    path = (folder or autostart_dir()) / ENTRY
    if not (command.is_absolute() and command.is_file() and os.access(command, os.X_OK)):
        raise AgentError("autostart_no_command",
                         f"Start at login was not set up: {command} is not a program here.",
                         "Start the app from its installed 'desktop-agent' command, then "
                         "turn Start at login on again.")
    if path.exists() and not is_ours(path):
        raise AgentError("autostart_not_ours",
                         f"{path} exists and was not written by Desktop Agent; it is left "
                         "as it is.", "Remove that file yourself if you want ours.")
    text = autostart_text(command)
    try:
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    except OSError as exc:
        raise AgentError("autostart_failed", f"Could not write {path}: {exc}.",
                         f"Check that {path.parent} is writable.") from exc
    return path


def disable(folder: Path | None = None) -> bool:
    """Remove our autostart entry; True if one was removed (someone else's is kept)."""
    path = (folder or autostart_dir()) / ENTRY
    if not is_ours(path):
        return False
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise AgentError("autostart_failed", f"Could not remove {path}: {exc}.",
                         f"Remove {path} yourself.") from exc
    return True


def sync_autostart(on: bool, command: Path | None = None, folder: Path | None = None) -> None:
    """Make the autostart entry match the setting: written for ``command`` when ``on``
    (``this_command()`` by default), our file removed when off."""
    if on:
        enable(command or this_command(), folder)
    else:
        disable(folder)
