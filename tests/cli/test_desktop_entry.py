"""install-desktop-entry: the app in the menu, with its icon, through the real command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.adapters.paths import app_resource
from desktop_agent.cli.desktop_entry import entry_text

VENV_COMMAND = Path(sys.executable).parent / "desktop-agent"


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "XDG_DATA_HOME": str(home / "share")}
    return subprocess.run([str(VENV_COMMAND), "install-desktop-entry", *args], env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.skipif(not VENV_COMMAND.exists(), reason="the desktop-agent command is not installed")
def test_install_writes_a_valid_entry_and_the_icons_then_remove_takes_them(
        tmp_path: Path) -> None:
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    entry = tmp_path / "share" / "applications" / "desktop-agent.desktop"
    svg = tmp_path / "share" / "icons" / "hicolor" / "scalable" / "apps" / "desktop-agent.svg"
    png = tmp_path / "share" / "icons" / "hicolor" / "256x256" / "apps" / "desktop-agent.png"
    text = entry.read_text()
    assert f"Exec={VENV_COMMAND.absolute()}\n" in text
    assert "Icon=desktop-agent\n" in text and "Name=Desktop Agent\n" in text
    assert svg.read_bytes() == app_resource("desktop-agent.svg").read_bytes()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(entry) in done.stdout
    if shutil.which("desktop-file-validate"):  # Debian: desktop-file-utils
        check = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True,
                               text=True, check=False)
        assert check.returncode == 0, check.stdout + check.stderr
    again = _run(tmp_path, "--remove")
    assert again.returncode == 0 and not entry.exists() and not svg.exists()
    assert not png.exists()


def test_exec_paths_with_spaces_are_quoted_as_the_spec_says() -> None:
    template = app_resource("desktop-agent.desktop").read_text()
    text = entry_text(template, Path("/home/a b/Desktop Agent/desktop-agent"))
    assert 'Exec="/home/a b/Desktop Agent/desktop-agent"\n' in text
    assert "TryExec=/home/a b/Desktop Agent/desktop-agent\n" in text
    assert text.count("Exec=") == 2  # Exec and TryExec, nothing else rewritten
