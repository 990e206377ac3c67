"""The hub on real servers: background start, calls, timeouts, crashes and restarts, HTTP."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_agent.adapters.mcp.mcp_client import McpHub
from desktop_agent.core.errors import McpError
from desktop_agent.core.mcp.config import ServerChoice, ServerEntry
from tests.adapters.mcp.conftest import fixture_entry, lines, wait_until

Hub = Callable[..., McpHub]
TRUSTED = ServerChoice(trusted=True, timeout_s=10)


def test_start_returns_before_the_server_is_up_then_it_lists_its_tools(
        make_hub: Hub, count: Path, tmp_path: Path) -> None:
    hub = make_hub((fixture_entry(count), TRUSTED), settle=False)
    first = hub.states()[0]
    assert (first.status, first.tools) == ("starting", ())  # start() did not wait
    assert hub.wait_settled(60)
    state = hub.states()[0]
    assert state.status == "ready" and state.starts == 1
    names = {t.name for t in state.tools}
    assert {"echo", "record", "slow", "crash", "add"} <= names
    echo = hub.tool("fx", "echo")
    assert echo is not None and echo.read_only is True and echo.title == "Echo words"
    assert "fixture: started" in (tmp_path / "logs" / "mcp" / "fx.log").read_text()


def test_a_call_answers_with_text_and_structured_content(make_hub: Hub, count: Path) -> None:
    hub = make_hub((fixture_entry(count), TRUSTED))
    result = hub.call("fx", "echo", {"text": "hello"})
    assert (result.text, result.is_error, result.structured) == (
        "HELLO", False, {"result": "HELLO"})


def test_bad_arguments_are_the_tools_error_not_an_exception(make_hub: Hub, count: Path) -> None:
    hub = make_hub((fixture_entry(count), TRUSTED))
    result = hub.call("fx", "add", {"a": "two", "b": 2})
    assert result.is_error and "valid integer" in result.text


def test_a_timeout_is_reported_and_the_session_stays_usable(make_hub: Hub, count: Path) -> None:
    hub = make_hub((fixture_entry(count), TRUSTED))
    with pytest.raises(McpError) as err:
        hub.call("fx", "slow", {"seconds": 3}, timeout_s=0.3)
    assert err.value.code == "mcp_timeout" and "unknown" in err.value.message
    assert hub.call("fx", "echo", {"text": "still here"}).text == "STILL HERE"


def test_a_crashed_server_is_restarted_and_answers_again(
        make_hub: Hub, count: Path, tmp_path: Path) -> None:
    hub = make_hub((fixture_entry(count), TRUSTED), backoff_s=(0.1,), ping_s=0.5)
    with pytest.raises(McpError) as err:
        hub.call("fx", "crash", {})
    assert err.value.code == "mcp_connection_lost"
    wait_until(lambda: hub.states()[0].starts >= 2 and hub.states()[0].status == "ready")
    assert hub.call("fx", "echo", {"text": "back"}).text == "BACK"
    log = (tmp_path / "logs" / "mcp" / "fx.log").read_text()
    assert "crashing on purpose" in log and log.count("fixture: started") >= 2


def test_only_a_call_that_may_be_retried_is_sent_again_after_a_crash(
        make_hub: Hub, count: Path, tmp_path: Path) -> None:
    hub = make_hub((fixture_entry(count), TRUSTED), backoff_s=(0.1,), ping_s=0.5)
    once = tmp_path / "crashed-once"
    with pytest.raises(McpError, match="mcp_connection_lost"):
        hub.call("fx", "fail_once", {"marker": str(once)})
    assert once.exists()
    wait_until(lambda: hub.states()[0].starts >= 2 and hub.states()[0].status == "ready")
    again = tmp_path / "crashed-again"
    result = hub.call("fx", "fail_once", {"marker": str(again)}, may_retry=True)
    assert (result.text, result.retried) == ("survived", True)


def test_a_missing_command_is_a_failed_status_that_says_so(make_hub: Hub) -> None:
    entry = ServerEntry(name="gone", command="no-such-mcp-server-here")
    hub = make_hub((entry, ServerChoice()), backoff_s=(30,))
    state = hub.states()[0]
    assert state.status == "failed" and "mcp_command_missing" in state.message
    with pytest.raises(McpError, match="mcp_not_ready"):
        hub.call("gone", "anything", {})


def test_a_command_that_downloads_at_start_says_what_to_install(
        make_hub: Hub, tmp_path: Path) -> None:
    uvx = tmp_path / "bin" / "uvx"  # what uvx does offline: fails before any server runs
    uvx.parent.mkdir()
    uvx.write_text("#!/bin/sh\necho 'error: failed to fetch mcp-server-git' >&2\nexit 2\n")
    uvx.chmod(uvx.stat().st_mode | stat.S_IEXEC)
    entry = ServerEntry(name="git", command=str(uvx), args=("mcp-server-git",))
    hub = make_hub((entry, ServerChoice()), backoff_s=(30,))
    state = hub.states()[0]
    assert state.status == "failed" and "uv tool install mcp-server-git" in state.message
    assert "failed to fetch" in (tmp_path / "logs" / "mcp" / "git.log").read_text()


def test_streamable_http_on_loopback(make_hub: Hub, http_server: str, count: Path) -> None:
    entry = ServerEntry(name="web", url=http_server, headers={"X-Test": "1"})
    hub = make_hub((entry, TRUSTED))
    assert hub.states()[0].status == "ready"
    assert hub.call("web", "echo", {"text": "over http"}).text == "OVER HTTP"
    hub.call("web", "record", {"line": "web"})
    assert lines(count) == ["web|"]
