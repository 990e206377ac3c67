"""ask's and replay's wiring of your own tools: the registry, the routing desk, 'always'."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_agent.adapters.mcp.mcp_files import load_mcp_config
from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.compose.mcp import RoutingDesk, wire_mcp
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.registry import ToolRegistry
from tests.adapters.mcp.conftest import FIXTURE, lines, need_mcp


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """The real store, for the action log."""
    s = Store(tmp_path / "assistant.sqlite3")
    yield s
    s.close()


def test_the_configured_tools_join_the_registry_and_writes_go_to_their_desk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    need_mcp()
    count = tmp_path / "count.txt"
    config = tmp_path / "config"
    config.mkdir()
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {
        "fx": {"command": sys.executable, "args": [str(FIXTURE), str(count)]}}}))
    (config / "settings.toml").write_text(
        '[mcp.servers.fx]\ntrusted = true\nallow = { record = "always", wipe = "never" }\n')
    monkeypatch.setenv("DESKTOP_AGENT_LOG_DIR", str(tmp_path / "log"))
    registry = ToolRegistry()
    desk, tools = wire_mcp(registry, None, store, load_mcp_config(config))
    assert tools is not None and isinstance(desk, RoutingDesk)
    try:
        writes = {s.name: s.writes for s in registry.specs}
        assert writes["fx__echo"] is False and writes["fx__slow_record"] is True
        assert writes["fx__record"] is False and "fx__wipe" not in writes  # always; never
        assert registry.answer(ToolCall("fx__echo", {"text": "hi"})) == ("HI", False)
        assert registry.answer(ToolCall("fx__record", {"line": "unasked"})) == (
            "recorded unasked", False)
        assert lines(count) == ["unasked|"]
        assert [a.tool for a in store.executed_actions()] == ["fx__record"]  # logged once
        action = desk.prepare(ToolCall("fx__slow_record", {"line": "x", "seconds": 0}))
        assert desk.execute(action, "k") == "recorded late" and desk.execute(action, "k")
        assert lines(count) == ["unasked|", "x|slow"]
        with pytest.raises(AgentError, match="store_unavailable"):
            desk.prepare(ToolCall("add_note", {"text": "milk"}))
    finally:
        tools.hub.close()


def test_no_config_no_servers_and_nothing_changes(tmp_path: Path, store: Store) -> None:
    registry = ToolRegistry()
    for config in (None, load_mcp_config(tmp_path)):  # none given; a folder without mcp.json
        desk, tools = wire_mcp(registry, None, store, config)
        assert (desk, tools, registry.specs) == (None, None, ())


def test_with_no_server_configured_the_sdk_is_never_imported(tmp_path: Path) -> None:
    import os
    import subprocess

    probe = ("import sys\nfrom desktop_agent.compose.mcp import start_mcp\n"
             "assert start_mcp() is None\nprint('mcp' in sys.modules, 'jsonschema' in sys.modules)")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "DESKTOP_AGENT_CONFIG_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True, timeout=120, cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"]


def test_the_window_starts_first_and_the_tools_join_when_listed(
        tmp_path: Path, store: Store) -> None:
    from desktop_agent.compose.mcp import AppTools
    from desktop_agent.core.tools.specs import WRITE_TOOLS

    need_mcp()
    config = tmp_path / "config"
    config.mkdir()
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {
        "fx": {"command": sys.executable, "args": [str(FIXTURE), str(tmp_path / "c.txt")]}}}))
    (config / "settings.toml").write_text("[mcp.servers.fx]\ntrusted = true\n")
    registry, desk, names = ToolRegistry(), RoutingDesk(None, None), set(WRITE_TOOLS)
    own = AppTools(load_mcp_config(config), registry, desk, names, store,
                   log_dir=tmp_path / "log")
    own.start()
    try:
        assert not own.added.is_set() and registry.specs == ()  # start() did not wait
        with pytest.raises(AgentError, match="mcp_not_ready"):
            desk.prepare(ToolCall("fx__record", {"line": "early"}))
        assert own.added.wait(60)
        assert "fx__record" in names and "fx__echo" not in names and "add_note" in names
        assert registry.answer(ToolCall("fx__echo", {"text": "late"})) == ("LATE", False)
        action = desk.prepare(ToolCall("fx__record", {"line": "now"}))
        assert desk.execute(action, "k") == "recorded now"
    finally:
        own.close()
