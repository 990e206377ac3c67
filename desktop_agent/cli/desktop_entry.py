"""``desktop-agent install-desktop-entry``: put the app in the desktop's menu, per user.

Writes ``~/.local/share/applications/io.github.desktop_agent.DesktopAgent.desktop``
(XDG_DATA_HOME honoured; the file's name is the app id, ``adapters.paths.APP_ID``, which the
window and the desktop portal use too) with ``Exec`` set to the absolute path of the command
that is running (the bundle's executable, or the venv's ``desktop-agent``), and the icon into
the hicolor theme (scalable SVG and a 256 px PNG), then refreshes the menu caches when their
tools are installed. An entry of ours under the old name (``desktop-agent.desktop``) is
removed, so the menu does not show the app twice. ``--remove`` takes it all away again.
Nothing outside the user's home is touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from desktop_agent.adapters.desktop.autostart import entry_text, this_command
from desktop_agent.adapters.paths import APP_ID

__all__ = ["entry_text", "install", "remove", "this_command"]

ENTRY = f"{APP_ID}.desktop"
OLD_ENTRIES = ("desktop-agent.desktop",)
"""Names an earlier version wrote the entry under: removed when they are ours."""
ICON = "desktop-agent"


def add_parser(sub: Any) -> None:
    """Register the subcommand on the CLI's subparsers."""
    parser = sub.add_parser("install-desktop-entry",
                            help="add the app to the desktop's menu (this user only)")
    parser.add_argument("--remove", action="store_true", help="take it out of the menu again")
    parser.add_argument("--exec", dest="exec_path", type=Path, default=None,
                        help="the command the menu starts (default: this one)")


def data_home() -> Path:
    """$XDG_DATA_HOME, or ~/.local/share."""
    env = os.environ.get("XDG_DATA_HOME")
    return Path(env) if env else Path.home() / ".local" / "share"


def targets(home: Path) -> dict[str, Path]:
    """Where each file goes."""
    hicolor = home / "icons" / "hicolor"
    return {"entry": home / "applications" / ENTRY,
            "svg": hicolor / "scalable" / "apps" / f"{ICON}.svg",
            "png": hicolor / "256x256" / "apps" / f"{ICON}.png"}


def install(command: Path, home: Path | None = None) -> dict[str, Path]:
    """Write the entry and the icons; return where they went."""
    from desktop_agent.adapters.paths import app_resource

    home = home or data_home()
    where = targets(home)
    for path in where.values():
        path.parent.mkdir(parents=True, exist_ok=True)
    template = app_resource(ENTRY).read_text(encoding="utf-8")
    _atomic_write(where["entry"], entry_text(template, command).encode("utf-8"))
    _atomic_write(where["svg"], app_resource(f"{ICON}.svg").read_bytes())
    _atomic_write(where["png"], app_resource(f"{ICON}.png").read_bytes())
    for old in _old_entries(home):
        old.unlink()
    _refresh(home)
    return where


def remove(home: Path | None = None) -> list[Path]:
    """Delete what ``install`` wrote; return what was there."""
    home = home or data_home()
    gone = [p for p in targets(home).values() if p.exists()] + _old_entries(home)
    for path in gone:
        path.unlink()
    _refresh(home)
    return gone


def _old_entries(home: Path) -> list[Path]:
    """Entries an earlier version installed under another name (ours: our Name line)."""
    found = []
    for name in OLD_ENTRIES:
        path = home / "applications" / name
        try:
            ours = "Name=Desktop Agent" in path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        if ours:
            found.append(path)
    return found


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _refresh(home: Path) -> None:
    """Menus pick the entry up by themselves; the caches only make it quicker."""
    for cmd in (["update-desktop-database", "-q", str(home / "applications")],
                ["gtk-update-icon-cache", "-q", "-t", str(home / "icons" / "hicolor")]):
        if shutil.which(cmd[0]):
            subprocess.run(cmd, check=False, capture_output=True, timeout=60)


def main(args: Any) -> int:
    """Run the subcommand: install (or remove) the entry and print where it went."""
    if args.remove:
        gone = remove()
        print("removed: " + (", ".join(map(str, gone)) if gone else "nothing was installed"))
        return 0
    command = (args.exec_path or this_command()).absolute()
    where = install(command)
    print(f"menu entry: {where['entry']}\n  starts:   {command}\n"
          f"icon:       {where['svg']}\n            {where['png']}\n"
          "Look for 'Desktop Agent' in the desktop's menu (log out and in if it does not "
          "show yet).")
    return 0
