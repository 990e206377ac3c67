"""Start at login: the XDG autostart entry, on real files in a temporary config home."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_agent.adapters.desktop import autostart
from desktop_agent.adapters.paths import APP_ID
from desktop_agent.core.errors import AgentError


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return home


@pytest.fixture
def command(tmp_path: Path) -> Path:
    path = tmp_path / "my apps" / "desktop-agent"
    path.parent.mkdir()
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def _fields(path: Path) -> dict[str, str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def test_on_writes_the_entry_under_xdg_config_home(config_home: Path, command: Path) -> None:
    autostart.sync_autostart(True, command)
    path = config_home / "autostart" / f"{APP_ID}.desktop"
    fields = _fields(path)
    assert fields["Exec"] == f'"{command}" --start-hidden'
    assert fields["TryExec"] == str(command)
    assert fields["Type"] == "Application" and fields["Name"] == "Desktop Agent"
    assert fields["X-GNOME-Autostart-enabled"] == "true"
    assert path.read_text().startswith("[Desktop Entry]\n")
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_without_xdg_config_home_it_goes_to_dot_config(tmp_path: Path, command: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    autostart.sync_autostart(True, command)
    assert (tmp_path / "home" / ".config" / "autostart" / f"{APP_ID}.desktop").is_file()


def test_off_removes_our_file_only(config_home: Path, command: Path) -> None:
    folder = config_home / "autostart"
    folder.mkdir(parents=True)
    neighbour = folder / "other-app.desktop"
    neighbour.write_text("[Desktop Entry]\nExec=other\n")
    autostart.sync_autostart(True, command)
    autostart.sync_autostart(False)
    assert [p.name for p in folder.iterdir()] == ["other-app.desktop"]
    autostart.sync_autostart(False)  # nothing to remove: no error
    assert neighbour.read_text() == "[Desktop Entry]\nExec=other\n"


def test_a_users_own_file_of_that_name_is_never_touched(config_home: Path,
                                                        command: Path) -> None:
    path = config_home / "autostart" / f"{APP_ID}.desktop"
    path.parent.mkdir(parents=True)
    path.write_text("[Desktop Entry]\nExec=my own wrapper\n")
    autostart.sync_autostart(False)
    with pytest.raises(AgentError) as err:
        autostart.sync_autostart(True, command)
    assert err.value.code == "autostart_not_ours"
    assert path.read_text() == "[Desktop Entry]\nExec=my own wrapper\n"


def test_a_missing_command_writes_nothing(config_home: Path, tmp_path: Path) -> None:
    with pytest.raises(AgentError) as err:
        autostart.sync_autostart(True, tmp_path / "gone" / "desktop-agent")
    assert err.value.code == "autostart_no_command"
    assert not (config_home / "autostart").exists()


def test_turning_on_again_refreshes_exec(config_home: Path, command: Path,
                                         tmp_path: Path) -> None:
    autostart.sync_autostart(True, command)
    moved = tmp_path / "desktop-agent"
    moved.write_text("#!/bin/sh\n")
    moved.chmod(0o755)
    autostart.sync_autostart(True, moved)
    path = config_home / "autostart" / f"{APP_ID}.desktop"
    assert _fields(path)["Exec"] == f"{moved} --start-hidden"


@pytest.mark.skip_ok  # CI runs as root: no install makes a folder unwritable to root
@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores permissions")
def test_an_unwritable_folder_is_a_clear_error(config_home: Path, command: Path) -> None:
    folder = config_home / "autostart"
    folder.mkdir(parents=True)
    folder.chmod(0o500)
    try:
        with pytest.raises(AgentError) as err:
            autostart.sync_autostart(True, command)
        assert err.value.code == "autostart_failed"
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o700)


def test_the_default_command_is_this_installs_desktop_agent() -> None:
    command = autostart.this_command()
    assert command.is_absolute() and command.name == "desktop-agent"
