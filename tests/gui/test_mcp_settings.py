"""Settings' "Your own tools" section on real servers and the real config files.

The hub runs our fixture server and mcp-server-git for real; the section reads their
states through ``compose.mcp_settings.McpSettings`` (what the app wires) and writes
settings.toml and mcp.json in a temporary config folder.
"""

from __future__ import annotations

import json
import stat
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QWidget

from desktop_agent.adapters.mcp.mcp_client import McpHub
from desktop_agent.adapters.mcp.mcp_files import load_mcp_config
from desktop_agent.compose.mcp_settings import McpSettings
from desktop_agent.core.settings import Settings
from desktop_agent.gui.settings_dialog import SettingsDialog
from desktop_agent.runtime.view_api import SettingsChoices
from tests.adapters.mcp.conftest import fixture_server, need_mcp, server_program, write_config

pytestmark = pytest.mark.gui


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, McpHub]]:
    """(config folder, running hub): the fixture server (trusted), mcp-server-git, and a
    server whose ``uvx`` fails the way it does offline."""
    need_mcp()
    uvx = tmp_path / "bin" / "uvx"
    uvx.parent.mkdir()
    uvx.write_text("#!/bin/sh\necho 'error: failed to fetch mcp-server-fetch' >&2\nexit 2\n")
    uvx.chmod(uvx.stat().st_mode | stat.S_IEXEC)
    folder = tmp_path / "config"
    write_config(folder, {
        "fx": fixture_server(tmp_path / "c.txt"),
        "git": {"command": server_program("mcp-server-git")},
        "fetch": {"command": str(uvx), "args": ["mcp-server-fetch"]},
    }, "[mcp.servers.fx]\ntrusted = true\ntimeout_s = 12\n")
    monkeypatch.setenv("DESKTOP_AGENT_LOG_DIR", str(tmp_path / "log"))
    hub = McpHub(load_mcp_config(folder), backoff_s=(30,))
    hub.start()
    assert hub.wait_settled(60)
    yield folder, hub
    hub.close()


def _dialog(qtbot: Any, folder: Path, hub: McpHub | None) -> SettingsDialog:
    source = McpSettings(hub.states if hub is not None else None, folder)
    choices = SettingsChoices(mcp_servers=source.servers, save_mcp=source.save,
                              import_mcp=source.import_file)
    dialog = SettingsDialog(Settings(), choices)
    qtbot.addWidget(dialog)
    return dialog


def test_each_server_shows_its_state_and_its_tools_with_what_they_may_be(
        qtbot: Any, config: tuple[Path, McpHub]) -> None:
    folder, hub = config
    dialog = _dialog(qtbot, folder, hub)
    section = dialog.mcp
    assert section is not None and set(section.boxes) == {"fx", "git", "fetch"}
    fx, git, fetch = (section.boxes[n] for n in ("fx", "git", "fetch"))
    assert fx.status.text() == "Running, 8 tools."
    assert git.status.text() == "Running, 12 tools."
    said = fetch.status.text()
    assert said.startswith("Failed: ") and "uv tool install mcp-server-fetch" in said
    assert "Trying again in 30 s." in said and not fetch.allow
    assert fx.trusted.isChecked() and not git.trusted.isChecked()  # type: ignore[attr-defined]

    def always_offered(box: Any, tool: str) -> bool:
        model = box.allow[tool].model()
        assert isinstance(model, QStandardItemModel)
        return bool(model.item(1).isEnabled())
    assert always_offered(fx, "record")  # destructiveHint: false
    assert not always_offered(fx, "wipe") and not always_offered(git, "git_reset")
    assert "tools of your own are enabled" in section.warning.text()  # 8 + 12 > 10
    git.enabled.setChecked(False)  # type: ignore[attr-defined]
    assert section.warning.text() == ""


def test_a_server_still_starting_is_shown_starting_then_running_with_its_tools(
        qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need_mcp()
    folder = tmp_path / "config"
    write_config(folder, {"fx": fixture_server(tmp_path / "c.txt")})
    monkeypatch.setenv("DESKTOP_AGENT_LOG_DIR", str(tmp_path / "log"))
    hub = McpHub(load_mcp_config(folder))
    hub.start()
    try:
        dialog = _dialog(qtbot, folder, hub)  # at once: the server has not listed yet
        assert dialog.mcp is not None
        box = dialog.mcp.boxes["fx"]
        assert box.status.text() == "Starting\u2026" and box.allow == {}
        assert box.none_yet.isVisibleTo(dialog)
        qtbot.waitUntil(lambda: box.status.text() == "Running, 8 tools.", timeout=60_000)
        assert len(box.allow) == 8 and not box.none_yet.isVisibleTo(dialog)
        assert box.allow["echo"].accessibleName() == "fx__echo: allow"
        assert dialog.mcp.changes() == {}  # tools that merely appeared are no change to save
        box.allow["echo"].setCurrentIndex(box.allow["echo"].findData("never"))
        assert dialog.mcp.changes()["fx"][2]["echo"] == "never"
    finally:
        hub.close()


def test_save_writes_the_choices_and_keeps_the_rest_of_the_table(
        qtbot: Any, config: tuple[Path, McpHub]) -> None:
    folder, hub = config
    dialog = _dialog(qtbot, folder, hub)
    section = dialog.mcp
    assert section is not None
    fx, git = section.boxes["fx"], section.boxes["git"]
    fx.allow["record"].setCurrentIndex(fx.allow["record"].findData("always"))
    fx.allow["wipe"].setCurrentIndex(fx.allow["wipe"].findData("never"))
    git.trusted.setChecked(True)  # type: ignore[attr-defined]
    assert set(section.changes()) == {"fx", "git"}
    dialog.buttons.accepted.emit()
    assert dialog.result() == SettingsDialog.DialogCode.Accepted
    table = tomllib.loads((folder / "settings.toml").read_text())["mcp"]["servers"]
    assert table["fx"] == {"trusted": True, "enabled": True, "timeout_s": 12,
                           "allow": {"record": "always", "wipe": "never"}}
    assert table["git"] == {"enabled": True, "trusted": True}
    choices = {s.name: s.choice for s in load_mcp_config(folder).servers}
    assert choices["git"].trusted and choices["fx"].timeout_s == 12
    assert "take effect when the app starts again" in section.result.text()


def test_import_adds_another_assistants_servers_untrusted(
        qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "config"
    write_config(folder, {}, "")
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps({"mcpServers": {
        "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
        "bad name!": {"command": "x"}}, "globalShortcut": "Ctrl+Space"}))
    dialog = _dialog(qtbot, folder, None)
    section = dialog.mcp
    assert section is not None and section.empty.isVisibleTo(dialog)
    section.pick_file = lambda: str(claude)
    qtbot.mouseClick(section.import_button, Qt.MouseButton.LeftButton)
    assert "Added time (not trusted" in section.result.text()
    assert "'bad name!' skipped" in section.result.text()
    box = section.boxes["time"]
    assert box.status.text() == "Not running: they take effect when the app starts again."
    assert not box.trusted.isChecked()  # type: ignore[attr-defined]
    assert "time" in json.loads((folder / "mcp.json").read_text())["mcpServers"]
    section.pick_file = lambda: str(tmp_path / "missing.json")
    section.import_button.click()
    assert "Could not read" in section.result.text()


def test_the_section_is_reached_by_tab_and_every_control_is_named(
        qtbot: Any, config: tuple[Path, McpHub]) -> None:
    folder, hub = config
    dialog = _dialog(qtbot, folder, hub)
    dialog.show()
    qtbot.waitExposed(dialog)
    section = dialog.mcp
    assert section is not None
    controls = [w for w in section.findChildren(QWidget)
                if w.focusPolicy() & Qt.FocusPolicy.TabFocus and w.isVisibleTo(dialog)]
    assert len(controls) > 20  # 3 servers' switches, 8 + 12 tools' allows, import
    for w in controls:
        assert w.accessibleName(), w
        assert w.accessibleDescription(), w.accessibleName()
    names = {w.accessibleName() for w in controls}
    assert {"Trust the git server", "git__git_reset: allow",
            "Import servers from another assistant"} <= names
    reached: set[str] = set()
    dialog.save_button.setFocus()
    for _ in range(400):  # Tab through the whole dialog once
        qtbot.keyClick(dialog.focusWidget(), Qt.Key.Key_Tab)
        focused = dialog.focusWidget()
        if focused is not None:
            reached.add(focused.accessibleName())
    assert names <= reached
