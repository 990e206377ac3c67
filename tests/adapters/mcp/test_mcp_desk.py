"""MCP tools on the write path, on real servers and the real store: read at once, write once."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop_agent.adapters.mcp.mcp_client import McpHub
from desktop_agent.adapters.mcp.mcp_desk import UNKNOWN_OUTCOME, McpDesk, McpTools
from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.core.errors import AgentError
from desktop_agent.core.mcp.config import Allow, ServerChoice, ServerEntry
from desktop_agent.core.mcp.tools import ToolClass
from desktop_agent.core.ports import ToolCall
from tests.adapters.mcp.conftest import fixture_entry, lines, server_program, wait_until

Hub = Callable[..., McpHub]
TRUSTED = ServerChoice(trusted=True, timeout_s=10)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """The assistant's real SQLite store (its action log)."""
    s = Store(tmp_path / "assistant.sqlite3")
    yield s
    s.close()


def test_a_trusted_read_runs_at_once(make_hub: Hub, count: Path) -> None:
    tools = McpTools(make_hub((fixture_entry(count), TRUSTED)))
    assert tools.find("fx__echo").klass is ToolClass.READ
    assert tools.read(ToolCall("fx__echo", {"text": "hi"})) == ("HI", False)


def test_nothing_from_an_untrusted_server_runs_without_a_yes(
        make_hub: Hub, count: Path, store: Store) -> None:
    tools = McpTools(make_hub((fixture_entry(count), ServerChoice())))
    assert {o.klass for o in tools.offered()} == {ToolClass.WRITE}
    text, is_error = tools.read(ToolCall("fx__echo", {"text": "hi"}))
    assert is_error and "confirmed" in text
    action = McpDesk(tools, store).prepare(ToolCall("fx__record", {"line": "a"}))
    assert action.read_back == 'On fx: Record a line, with line "a". Shall I?'
    assert lines(count) == []  # read back, not run


def test_a_confirmed_write_runs_once_per_key_in_the_action_log(
        make_hub: Hub, count: Path, store: Store) -> None:
    desk = McpDesk(McpTools(make_hub((fixture_entry(count), TRUSTED))), store)
    action = desk.prepare(ToolCall("fx__record", {"line": "milk"}))
    assert desk.execute(action, "key-1") == "recorded milk"
    assert desk.execute(action, "key-1") == "recorded milk"  # replayed from the log
    assert lines(count) == ["milk|"]
    logged = store.executed_actions()
    assert [(a.tool, a.result) for a in logged] == [("fx__record", "recorded milk")]


def test_pinned_arguments_are_sent_whatever_was_said(
        make_hub: Hub, count: Path, store: Store) -> None:
    choice = ServerChoice(trusted=True, pinned={"folder": "/safe"})
    tools = McpTools(make_hub((fixture_entry(count), choice)))
    offered = tools.find("fx__record").spec
    assert "folder" not in offered.parameters["properties"]
    desk = McpDesk(tools, store)
    action = desk.prepare(ToolCall("fx__record", {"line": "x", "folder": "/etc"}))
    assert dict(action.args) == {"line": "x"} and "/etc" not in action.read_back
    desk.execute(action, "k")
    assert lines(count) == ["x|/safe"]


def test_bad_arguments_are_refused_before_the_read_back(
        make_hub: Hub, count: Path, store: Store) -> None:
    desk = McpDesk(McpTools(make_hub((fixture_entry(count), TRUSTED))), store)
    with pytest.raises(AgentError) as err:
        desk.prepare(ToolCall("fx__record", {"line": 5}))
    assert err.value.code == "bad_arguments" and "line" in err.value.message
    with pytest.raises(AgentError, match="unknown_tool"):
        desk.prepare(ToolCall("fx__nothing", {}))


def test_a_timed_out_write_is_logged_outcome_unknown_and_never_sent_again(
        make_hub: Hub, count: Path, store: Store) -> None:
    slow = ServerChoice(trusted=True, timeout_s=0.5)
    desk = McpDesk(McpTools(make_hub((fixture_entry(count), slow))), store)
    action = desk.prepare(ToolCall("fx__slow_record", {"line": "late", "seconds": 2}))
    said = desk.execute(action, "key-slow")
    assert UNKNOWN_OUTCOME in said
    assert desk.execute(action, "key-slow") == said  # the key replays, nothing is sent
    wait_until(lambda: lines(count) == ["late|slow"])  # the server finished it anyway
    assert [a.result for a in store.executed_actions()] == [said]
    assert lines(count) == ["late|slow"]


def test_never_hides_a_tool(make_hub: Hub, count: Path) -> None:
    choice = ServerChoice(trusted=True, allow={"wipe": Allow.NEVER})
    tools = McpTools(make_hub((fixture_entry(count), choice)))
    assert "fx__wipe" not in {o.spec.name for o in tools.offered()}
    with pytest.raises(AgentError, match="unknown_tool"):
        tools.find("fx__wipe")


def test_git_server_status_is_a_read_and_a_commit_is_made_once(
        make_hub: Hub, git_repo: Path, store: Store) -> None:
    entry = ServerEntry(name="git", command=server_program("mcp-server-git"))
    choice = ServerChoice(trusted=True, timeout_s=30, pinned={"repo_path": str(git_repo)})
    tools = McpTools(make_hub((entry, choice)))
    classes = {o.tool.name: o.klass for o in tools.offered()}
    assert classes["git_status"] is ToolClass.READ
    assert classes["git_commit"] is ToolClass.WRITE and classes["git_reset"] is ToolClass.WRITE
    text, is_error = tools.read(ToolCall("git__git_status", {}))
    assert not is_error and "notes.txt" in text
    desk = McpDesk(tools, store)
    action = desk.prepare(ToolCall("git__git_commit", {"message": "first note"}))
    assert action.read_back == 'On git: git commit, with message "first note". Shall I?'
    desk.execute(action, "commit-1")
    desk.execute(action, "commit-1")
    log = subprocess.run(["git", "log", "--format=%s"], cwd=git_repo, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert log == ["first note"]


def test_time_server_answers_a_read(make_hub: Hub) -> None:
    entry = ServerEntry(name="time", command=server_program("mcp-server-time"),
                        args=("--local-timezone", "UTC"))
    tools = McpTools(make_hub((entry, ServerChoice(trusted=True))))
    text, is_error = tools.read(ToolCall("time__get_current_time", {"timezone": "Asia/Tokyo"}))
    assert not is_error and "timezone: Asia/Tokyo" in text
    text, is_error = tools.read(ToolCall("time__get_current_time", {"timezone": "Mars/Base"}))
    assert is_error
