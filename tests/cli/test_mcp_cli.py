"""``desktop-agent mcp list|call`` as a user runs it: real servers, a real store, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.adapters.mcp.conftest import FIXTURE, lines, need_mcp, server_program

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A config folder with our fixture server (trusted) and the time server (untrusted)."""
    need_mcp()
    config = tmp_path / "config"
    config.mkdir()
    (config / "mcp.json").write_text(json.dumps({"mcpServers": {
        "fx": {"command": sys.executable, "args": [str(FIXTURE), str(tmp_path / "count.txt")]},
        "time": {"command": server_program("mcp-server-time"),
                 "args": ["--local-timezone", "UTC"]}}}))
    (config / "settings.toml").write_text(
        '[mcp.servers.fx]\ntrusted = true\nallow = { wipe = "always" }\n')
    return tmp_path


def _run(home: Path, *args: str, answer: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DESKTOP_AGENT_CONFIG_DIR": str(home / "config"),
           "DESKTOP_AGENT_DATA_DIR": str(home / "data"), "DESKTOP_AGENT_LOG_DIR": str(home / "log")}
    return subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", *args], input=answer,
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=180)


def test_list_json_shows_each_server_and_its_tools_with_their_class(home: Path) -> None:
    done = _run(home, "list", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    servers = {s["name"]: s for s in report["servers"]}
    assert servers["fx"]["status"] == "ready" and servers["fx"]["trusted"]
    fx = {t["name"]: t["class"] for t in servers["fx"]["tools"]}
    assert (fx["fx__echo"], fx["fx__record"], fx["fx__wipe"]) == ("read", "write", "write")
    time = {t["name"]: t["class"] for t in servers["time"]["tools"]}
    assert time == {"time__get_current_time": "write", "time__convert_time": "write"}
    assert any("fx__wipe" in w and "destructive" in w for w in report["warnings"])
    assert (home / "log" / "mcp" / "fx.log").exists()


def test_a_write_runs_only_after_yes_on_the_terminal_once(home: Path) -> None:
    count = home / "count.txt"
    no = _run(home, "call", "fx", "record", "--args", '{"line": "milk"}', answer="no\n")
    assert no.returncode == 0, no.stderr
    assert 'On fx: Record a line, with line "milk". Shall I?' in no.stdout
    assert "nothing was run" in no.stdout and lines(count) == []
    yes = _run(home, "call", "fx", "record", "--args", '{"line": "milk"}', answer="yes\n")
    assert yes.returncode == 0, yes.stderr
    assert "recorded milk" in yes.stdout and lines(count) == ["milk|"]


def test_a_trusted_read_runs_at_once(home: Path) -> None:
    done = _run(home, "call", "fx", "echo", "--args", '{"text": "hi"}')
    assert (done.returncode, done.stdout.strip()) == (0, "HI")


def test_bad_input_is_exit_2_with_the_reason(home: Path) -> None:
    bad_json = _run(home, "call", "fx", "echo", "--args", "{text}")
    assert bad_json.returncode == 2 and "not JSON" in bad_json.stderr
    bad_args = _run(home, "call", "fx", "echo", "--args", '{"words": "hi"}')
    assert bad_args.returncode == 2 and "[bad_arguments]" in bad_args.stderr
    unknown = _run(home, "call", "fx", "nothing")
    assert unknown.returncode == 2 and "[unknown_tool]" in unknown.stderr
    missing = _run(home, "call", "fx")
    assert missing.returncode == 2


def test_a_broken_mcp_json_is_reported_with_its_line(home: Path) -> None:
    (home / "config" / "mcp.json").write_text('{"mcpServers": {\n"fx": {,}}}')
    done = _run(home, "list")
    assert done.returncode == 0
    assert "mcp_config_invalid" in done.stdout and "line 2" in done.stdout
    assert "Traceback" not in done.stderr


def test_import_adds_a_claude_desktop_files_servers_untrusted(tmp_path: Path) -> None:
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps({"mcpServers": {"time": {"command": "mcp-server-time"}}}))
    (tmp_path / "config").mkdir()
    done = _run(tmp_path, "import", str(claude))
    assert done.returncode == 0, done.stderr
    assert "time" in done.stdout and "untrusted" in done.stdout
    data = json.loads((tmp_path / "config" / "mcp.json").read_text())
    assert data["mcpServers"]["time"] == {"command": "mcp-server-time"}
    again = _run(tmp_path, "import", str(claude))
    assert "Nothing added" in again.stdout and "kept" in again.stdout
    broken = tmp_path / "cursor.json"
    broken.write_text("{")
    failed = _run(tmp_path, "import", str(broken))
    assert failed.returncode == 1 and "[mcp_config_invalid]" in failed.stderr
