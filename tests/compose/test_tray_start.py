"""The desktop app's tray wiring: ``--start-hidden`` and Start at login on the real window.

``_show_window`` is what ``main_window_app`` does with the window once the tray is (or is
not) made; ``watch_autostart`` keeps the autostart entry in step with the setting as Settings
saves it. Real files in a temporary XDG_CONFIG_HOME; the command is a temporary executable.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

from desktop_agent.adapters.desktop import autostart  # noqa: E402
from desktop_agent.adapters.paths import APP_ID  # noqa: E402
from desktop_agent.adapters.store import settings_store  # noqa: E402
from desktop_agent.cli import main as cli_main  # noqa: E402
from desktop_agent.cli.parser import _parser  # noqa: E402
from desktop_agent.compose import desktop  # noqa: E402
from desktop_agent.core.settings import Settings  # noqa: E402
from desktop_agent.devtools.demo_view_model import RecordingViewModel  # noqa: E402
from desktop_agent.gui.main_window import MainWindow  # noqa: E402

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot: Any, tmp_path: Path) -> MainWindow:
    win = MainWindow(RecordingViewModel(), Settings(), tmp_path / "config" / "settings.toml",
                     save_settings=settings_store.save_settings)
    qtbot.addWidget(win)
    return win


def test_plain_start_shows_the_window(qtbot: Any, window: MainWindow) -> None:
    quits: list[bool] = []
    desktop._show_window(window, hidden=False, tray=None, quit_app=lambda: quits.append(True))
    qtbot.waitExposed(window)
    window.action_quit.trigger()
    assert quits == []  # Qt quits by itself when the last visible window closes


def test_start_hidden_with_a_tray_leaves_the_window_hidden(window: MainWindow) -> None:
    quits: list[bool] = []
    desktop._show_window(window, hidden=True, tray=object(),
                         quit_app=lambda: quits.append(True))
    assert not window.isVisible() and not window.isMinimized()
    window.action_quit.trigger()  # the tray's Quit, or desktop-agent quit
    assert quits == [True]


def test_start_hidden_without_a_tray_minimises(qtbot: Any, window: MainWindow) -> None:
    desktop._show_window(window, hidden=True, tray=None, quit_app=lambda: None)
    qtbot.waitUntil(window.isVisible)
    assert window.isMinimized()


def test_the_cli_passes_start_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(desktop, "run_gui", lambda **kw: seen.append(kw) or 0)
    assert cli_main(["--start-hidden"]) == 0
    assert cli_main([]) == 0
    assert cli_main(["gui", "--start-hidden"]) == 0
    assert cli_main(["--start-hidden", "gui"]) == 0
    assert [kw["start_hidden"] for kw in seen] == [True, False, True, True]
    assert _parser().parse_args([]).start_hidden is False


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    command = tmp_path / "bin" / "desktop-agent"
    command.parent.mkdir()
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    monkeypatch.setattr(autostart, "this_command", lambda: command)
    return home


def test_settings_turn_start_at_login_on_and_off(window: MainWindow, config_home: Path,
                                                tmp_path: Path) -> None:
    entry = config_home / "autostart" / f"{APP_ID}.desktop"
    desktop.watch_autostart(window)
    assert not entry.exists()  # off by default: nothing written
    window.commit_settings(window.settings.replace_field("desktop.start_at_login", True))
    exec_line = next(x for x in entry.read_text().splitlines() if x.startswith("Exec="))
    assert exec_line == f"Exec={tmp_path / 'bin' / 'desktop-agent'} --start-hidden"
    assert "start_at_login = true" in window.settings_path.read_text()
    window.commit_settings(window.settings.replace_field("desktop.start_at_login", False))
    assert not entry.exists()


def test_on_at_start_refreshes_the_entry(qtbot: Any, config_home: Path, tmp_path: Path) -> None:
    on = Settings().replace_field("desktop.start_at_login", True)
    win = MainWindow(RecordingViewModel(), on, tmp_path / "settings.toml")
    qtbot.addWidget(win)
    desktop.watch_autostart(win)
    assert (config_home / "autostart" / f"{APP_ID}.desktop").is_file()


def test_a_failure_is_a_notice_not_a_crash(window: MainWindow, config_home: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.setattr(autostart, "this_command", lambda: tmp_path / "gone")
    notices: list[Any] = []
    window.view_model.sig_error.connect(notices.append)
    desktop.watch_autostart(window)
    window.commit_settings(window.settings.replace_field("desktop.start_at_login", True))
    assert [n.code for n in notices] == ["autostart_no_command"]
    assert not (config_home / "autostart").exists()
