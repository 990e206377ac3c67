"""mcp.json and [mcp.servers.NAME]: the shapes users already have, the safe defaults."""

from __future__ import annotations

import json

import pytest

from desktop_agent.core.errors import McpError
from desktop_agent.core.mcp.config import (
    Allow,
    ServerChoice,
    combine,
    download_hint,
    parse_choices,
    parse_mcp_json,
    updated_choices,
)


def test_claude_desktop_and_cursor_shapes_are_read_unknown_keys_ignored() -> None:
    text = json.dumps({"mcpServers": {
        "git": {"command": "mcp-server-git", "args": ["--repository", "/r"],
                "env": {"A": "1"}, "cwd": "/tmp", "disabled": False, "autoApprove": []},
        "home": {"url": "http://127.0.0.1:8123/api/mcp", "headers": {"Authorization": "x"},
                 "type": "http"}}, "globalShortcut": "x"})
    entries, warnings = parse_mcp_json(text)
    assert warnings == ()
    git, home = entries
    assert (git.name, git.command, git.args, dict(git.env), git.cwd, git.transport) == (
        "git", "mcp-server-git", ("--repository", "/r"), {"A": "1"}, "/tmp", "stdio")
    assert (home.url, dict(home.headers), home.transport) == (
        "http://127.0.0.1:8123/api/mcp", {"Authorization": "x"}, "http")


def test_vs_code_servers_key_is_read() -> None:
    entries, _ = parse_mcp_json('{"servers": {"time": {"type": "stdio", "command": "t"}}}')
    assert [e.name for e in entries] == ["time"]


def test_bad_json_names_the_file_and_the_line() -> None:
    with pytest.raises(McpError) as err:
        parse_mcp_json('{"mcpServers": {\n  "git": {"command": "x",}\n}}', "/c/mcp.json")
    assert err.value.code == "mcp_config_invalid"
    assert "/c/mcp.json" in err.value.message and "line 2" in err.value.message
    assert "line 2" in err.value.fix


@pytest.mark.parametrize("text", ['[1, 2]', '{"mcpServers": [1]}'])
def test_not_an_object_of_servers_is_a_clear_error(text: str) -> None:
    with pytest.raises(McpError, match="mcp_config_invalid"):
        parse_mcp_json(text)


def test_a_bad_entry_is_skipped_with_a_warning_the_others_load() -> None:
    entries, warnings = parse_mcp_json(json.dumps({"mcpServers": {
        "ok": {"command": "a"}, "both": {"command": "a", "url": "http://x"},
        "neither": {}, "a__b": {"command": "a"}, "ftp": {"url": "ftp://x"},
        "args": {"command": "a", "args": "not a list"}}}))
    assert [e.name for e in entries] == ["ok"]
    assert len(warnings) == 5 and all("skipped" in w for w in warnings)


def test_an_empty_file_is_no_servers() -> None:
    assert parse_mcp_json("  \n") == ((), ())


def test_choices_default_to_untrusted_and_asking() -> None:
    choices, warnings = parse_choices({"servers": {"git": {}}})
    assert warnings == ()
    assert choices["git"] == ServerChoice()
    assert not choices["git"].trusted and choices["git"].timeout_s == 30.0


def test_choices_are_read_and_bad_values_keep_the_safe_default() -> None:
    choices, warnings = parse_choices({"servers": {"git": {
        "enabled": False, "trusted": "yes", "timeout_s": 0, "pinned": {"repo_path": "/r"},
        "allow": {"git_status": "always", "git_reset": "sometimes", "git_log": "never"},
        "colour": "red"}}})
    git = choices["git"]
    assert (git.enabled, git.trusted, git.timeout_s) == (False, False, 30.0)
    assert dict(git.pinned) == {"repo_path": "/r"}
    assert dict(git.allow) == {"git_status": Allow.ALWAYS, "git_log": Allow.NEVER}
    assert len(warnings) == 4
    assert any("trusted" in w for w in warnings) and any("colour" in w for w in warnings)


def test_choices_for_a_server_mcp_json_lacks_are_reported() -> None:
    entries, _ = parse_mcp_json('{"mcpServers": {"git": {"command": "g"}}}')
    config = combine(entries, {"gti": ServerChoice(trusted=True)})
    assert config.servers[0].choice == ServerChoice()
    assert any("gti" in w for w in config.warnings)
    off = combine(entries, {"git": ServerChoice(enabled=False)})
    assert off.enabled == ()


@pytest.mark.parametrize(("command", "args", "install"), [
    ("npx", ("-y", "@modelcontextprotocol/server-memory"),
     "npm install -g @modelcontextprotocol/server-memory"),
    ("/usr/bin/uvx", ("mcp-server-git", "--repository", "/r"), "uv tool install mcp-server-git"),
    ("uv", ("tool", "run", "mcp-server-time"), "uv tool install mcp-server-time"),
    ("pnpm", ("dlx", "some-server"), "pnpm add -g some-server"),
    ("pipx", ("run", "mcp-server-time"), "pipx install mcp-server-time"),
])
def test_commands_that_download_at_start_say_what_to_install(
        command: str, args: tuple[str, ...], install: str) -> None:
    hint = download_hint(command, args)
    assert install in hint and "network" in hint


@pytest.mark.parametrize(("command", "args"), [
    ("mcp-server-git", ()), ("python", ("-m", "server")), ("uv", ("run", "x.py")),
    ("pipx", ("install", "x")), ("node", ("server.js",))])
def test_installed_commands_get_no_hint(command: str, args: tuple[str, ...]) -> None:
    assert download_hint(command, args) == ""


def test_import_adds_another_apps_servers_keeps_ours_and_their_keys() -> None:
    from desktop_agent.core.mcp.config import merged_servers

    ours = json.dumps({"mcpServers": {"git": {"command": "mine"}}})
    theirs = json.dumps({"mcpServers": {
        "git": {"command": "theirs"}, "memory": {"command": "npx", "args": ["-y", "m"],
                                                 "disabled": False},
        "bad name": {"command": "x"}}, "globalShortcut": ""})
    text, added, notes = merged_servers(ours, theirs, "claude.json")
    data = json.loads(text)
    assert added == ("memory",)
    assert data["mcpServers"]["git"] == {"command": "mine"}
    assert data["mcpServers"]["memory"]["disabled"] is False  # copied as written
    assert len(notes) == 2 and any("git" in n for n in notes)
    assert [e.name for e in parse_mcp_json(text)[0]] == ["git", "memory"]
    first, added, _ = merged_servers("", theirs, "claude.json")
    assert added == ("git", "memory") and "mcpServers" in json.loads(first)
    with pytest.raises(McpError, match="mcp_config_invalid"):
        merged_servers(ours, "{nope", "cursor.json")


def test_more_than_ten_tools_of_your_own_get_a_warning() -> None:
    from desktop_agent.core.mcp.tools import too_many

    assert too_many(10) == "" and "11 tools" in too_many(11)


def test_settings_choices_are_written_into_the_table_keeping_the_rest() -> None:
    table = {"servers": {"git": {"timeout_s": 60, "pinned": {"repo_path": "/r"},
                                 "allow": {"git_add": "always", "git_reset": "never"}},
                         "time": {"trusted": True}}}
    out = updated_choices(table, "git", enabled=True, trusted=True,
                          allow={"git_add": "ask", "git_commit": "always"})
    assert out["servers"]["git"] == {
        "timeout_s": 60, "pinned": {"repo_path": "/r"}, "enabled": True, "trusted": True,
        "allow": {"git_reset": "never", "git_commit": "always"}}  # git_reset: not listed now
    assert out["servers"]["time"] == {"trusted": True}
    assert table["servers"]["git"]["allow"] == {"git_add": "always", "git_reset": "never"}
    fresh = updated_choices({}, "fx", enabled=False, trusted=False, allow={"echo": "ask"})
    assert fresh == {"servers": {"fx": {"enabled": False, "trusted": False}}}
    choices, warnings = parse_choices(out)
    assert warnings == () and choices["git"].allow["git_commit"] is Allow.ALWAYS
    with pytest.raises(McpError, match="mcp_choice_invalid"):
        updated_choices({}, "fx", enabled=True, trusted=True, allow={"echo": "sometimes"})
