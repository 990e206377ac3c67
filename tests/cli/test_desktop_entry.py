"""install-desktop-entry: the app in the menu, with its icon, through the real command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.adapters.paths import APP_ID, app_resource
from desktop_agent.cli.desktop_entry import entry_text

VENV_COMMAND = Path(sys.executable).parent / "desktop-agent"


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "XDG_DATA_HOME": str(home / "share")}
    if "PYTHONPATH" in os.environ:  # a checkout run with another checkout's venv: this code
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return subprocess.run([str(VENV_COMMAND), "install-desktop-entry", *args], env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.skipif(not VENV_COMMAND.exists(), reason="the desktop-agent command is not installed")
def test_install_writes_a_valid_entry_and_the_icons_then_remove_takes_them(
        tmp_path: Path) -> None:
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    entry = tmp_path / "share" / "applications" / "io.github.desktop_agent.DesktopAgent.desktop"
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
    template = app_resource(f"{APP_ID}.desktop").read_text()
    text = entry_text(template, Path("/home/a b/Desktop Agent/desktop-agent"))
    assert 'Exec="/home/a b/Desktop Agent/desktop-agent"\n' in text
    assert "TryExec=/home/a b/Desktop Agent/desktop-agent\n" in text
    assert text.count("Exec=") == 2  # Exec and TryExec, nothing else rewritten


@pytest.mark.skipif(not VENV_COMMAND.exists(), reason="the desktop-agent command is not installed")
def test_install_replaces_our_entry_of_the_old_name_and_leaves_anyone_elses(
        tmp_path: Path) -> None:
    apps = tmp_path / "share" / "applications"
    apps.mkdir(parents=True)
    old = apps / "desktop-agent.desktop"  # what an earlier version installed
    old.write_text(app_resource(f"{APP_ID}.desktop").read_text())
    done = _run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert not old.exists()
    assert (apps / f"{APP_ID}.desktop").exists()
    # Not ours (another Name): kept, even by --remove.
    old.write_text("[Desktop Entry]\nType=Application\nName=Someone Else\nExec=true\n")
    again = _run(tmp_path, "--remove")
    assert again.returncode == 0, again.stderr
    assert old.exists() and not (apps / f"{APP_ID}.desktop").exists()


def test_the_entry_is_named_by_the_reverse_dns_app_id_and_runs_the_command() -> None:
    assert APP_ID == "io.github.desktop_agent.DesktopAgent"
    assert not app_resource("desktop-agent.desktop").exists()
    text = app_resource(f"{APP_ID}.desktop").read_text()
    assert "Exec=desktop-agent\n" in text and "TryExec=desktop-agent\n" in text
