"""A server's ``timeout_s`` governs its calls through the whole turn, not the turn's 10 s.

The turn machine guards each tool run with a timer (``TurnPolicy.tool_timeout_s``, 10 s);
your own tools' calls wait their server's ``timeout_s`` instead. Real fixture server over
stdio, the real store and the headless executor; the model is a script that calls the tool
(which tool is chosen is not what is tested here).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from desktop_agent.adapters.mcp.mcp_desk import UNKNOWN_OUTCOME
from desktop_agent.adapters.mcp.mcp_files import load_mcp_config
from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.compose.mcp import wire_mcp
from desktop_agent.core.ports import ChatMessage, LlmDelta, ToolCall
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.runtime.headless import HeadlessExecutor
from tests.adapters.mcp.conftest import (
    fixture_server,
    lines,
    need_mcp,
    wait_until,
    write_config,
)
from tests.fakes.llm import FakeLlm, say
from tests.fakes.tts import FakeTts

IMPATIENT = TurnPolicy(tool_timeout_s=1.0)
"""A built-in tool gets 1 s here: a 2 s call can only pass on its server's own limit."""
Run = Callable[[ToolCall, float], HeadlessExecutor]


@pytest.fixture
def count(tmp_path: Path) -> Path:
    """The file the fixture server's writes append to."""
    return tmp_path / "count.txt"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """The real store (the action log)."""
    s = Store(tmp_path / "assistant.sqlite3")
    yield s
    s.close()


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: Path, store: Store
        ) -> Iterator[Run]:
    """run(call, timeout_s): a headless executor whose model calls ``call`` on the trusted
    fixture server configured with ``timeout_s`` (closed, with the server, at the end)."""
    need_mcp()
    monkeypatch.setenv("DESKTOP_AGENT_LOG_DIR", str(tmp_path / "log"))
    opened: list[tuple[HeadlessExecutor, object]] = []

    def make(call: ToolCall, timeout_s: float) -> HeadlessExecutor:
        folder = write_config(tmp_path / "config", {"fx": fixture_server(count)},
                              f"[mcp.servers.fx]\ntrusted = true\ntimeout_s = {timeout_s}\n")
        registry = ToolRegistry()
        desk, tools = wire_mcp(registry, None, store, load_mcp_config(folder))
        assert tools is not None
        executor = HeadlessExecutor(_calls(call), FakeTts(), registry, desk=desk,
                                    policy=IMPATIENT)
        opened.append((executor, tools))
        return executor

    yield make
    for executor, tools in opened:
        executor.close()
        tools.hub.close()  # type: ignore[attr-defined]


def _calls(call: ToolCall) -> FakeLlm:
    """A model that calls ``call`` once, then (after a tool result) just says 'Done.'."""
    def script(messages: Sequence[ChatMessage]) -> list[LlmDelta]:
        if any(m.tool_call is not None for m in messages):
            return say("Done.")
        return [LlmDelta(tool_call=call)]
    return FakeLlm(script)


def test_a_read_may_take_its_servers_timeout_not_the_turns(run: Run) -> None:
    turn = run(ToolCall("fx__slow", {"seconds": 2}, "c1"), 4).ask_text("take your time")
    assert turn.error is None, turn.error
    assert turn.tool_calls == ("fx__slow",)
    assert "slept" in turn.reply.lower()


def test_a_read_past_its_servers_timeout_is_reported_not_waited_for(run: Run) -> None:
    executor = run(ToolCall("fx__slow", {"seconds": 8}, "c1"), 1)
    turn = executor.ask_text("this will be too slow")
    assert turn.error is None, turn.error  # the hub's timeout, a sentence: no apology
    assert turn.tool_calls == ("fx__slow",)
    results = [m.content for m in executor.machine.history.messages if m.role == "tool"]
    assert any("did not answer slow within 1 s" in r for r in results), results


def test_a_timed_out_confirmed_write_is_outcome_unknown_and_never_sent_again(
        run: Run, count: Path, store: Store) -> None:
    executor = run(ToolCall("fx__slow_record", {"line": "late", "seconds": 3}, "c1"), 1)
    asked = executor.ask_text("write late in the record book slowly")
    assert [a.kind for a in asked.actions] == ["pending"]
    done = executor.ask_text("yes")
    assert done.error is None, done.error
    executed = [a for a in done.actions if a.kind == "executed"]
    assert len(executed) == 1 and UNKNOWN_OUTCOME in executed[0].result
    assert UNKNOWN_OUTCOME in done.reply
    wait_until(lambda: lines(count) == ["late|slow"])  # the server finished it anyway
    again = executor.ask_text("yes")  # nothing pending: nothing is sent
    assert [a for a in again.actions if a.kind == "executed"] == []
    logged = store.executed_actions()
    assert [(a.tool, UNKNOWN_OUTCOME in a.result) for a in logged] == [
        ("fx__slow_record", True)]
    assert lines(count) == ["late|slow"]
