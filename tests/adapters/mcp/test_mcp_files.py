"""The MCP config read from the config folder, and settings.toml keeping [mcp] as written."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from desktop_agent.adapters.mcp.mcp_files import load_mcp_config, mcp_json_path
from desktop_agent.adapters.store.settings_store import load_settings, save_settings
from desktop_agent.core.mcp.config import Allow

SETTINGS = """
[voice]
speaking_rate = 1.2

[mcp.servers.git]
trusted = true
pinned = { repo_path = "/home/me/repo" }
allow = { git_commit = "always" }
"""


def test_the_config_folder_follows_desktop_agent_config_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKTOP_AGENT_CONFIG_DIR", str(tmp_path))
    (tmp_path / "mcp.json").write_text(json.dumps(
        {"mcpServers": {"git": {"command": "mcp-server-git"}, "time": {"command": "t"}}}))
    (tmp_path / "settings.toml").write_text(SETTINGS)
    config = load_mcp_config()
    assert mcp_json_path() == tmp_path / "mcp.json"
    git, time = config.servers
    assert git.choice.trusted and dict(git.choice.pinned) == {"repo_path": "/home/me/repo"}
    assert git.choice.allow["git_commit"] is Allow.ALWAYS
    assert not time.choice.trusted and config.warnings == ()


def test_a_broken_mcp_json_is_a_warning_with_its_line_and_no_servers(tmp_path: Path) -> None:
    (tmp_path / "mcp.json").write_text('{\n "mcpServers": {\n  "git": {"command": }\n}}\n')
    config = load_mcp_config(tmp_path)
    assert config.servers == ()
    assert len(config.warnings) == 1
    assert "mcp_config_invalid" in config.warnings[0] and "line 3" in config.warnings[0]
    assert str(tmp_path / "mcp.json") in config.warnings[0]


def test_no_files_no_servers_no_warnings(tmp_path: Path) -> None:
    config = load_mcp_config(tmp_path)
    assert (config.servers, config.warnings) == ((), ())


def test_settings_toml_keeps_the_mcp_table_unwarned_and_through_a_save(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(SETTINGS)
    loaded = load_settings(path)
    assert loaded.warnings == () and loaded.backup_path is None
    assert loaded.settings.voice.speaking_rate == 1.2
    save_settings(loaded.settings.replace_field("voice.speaking_rate", 1.5), path)
    data = tomllib.loads(path.read_text())
    assert data["voice"]["speaking_rate"] == 1.5
    assert data["mcp"]["servers"]["git"]["pinned"] == {"repo_path": "/home/me/repo"}
