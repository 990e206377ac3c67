"""Your own tools in the app itself: the real models, a virtual sound card, mcp-server-git.

The window's runtime starts the server in the background; once its tools have joined, a
spoken question is answered from its read tool. (The confirmed write is the same machine
path as ``replay``'s, tested in tests/compose/test_mcp_replay.py: here, on a machine at
load 5, its decision run passed the 20 s first-token limit.)
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.mcp.conftest import make_git_repo, need_mcp, server_program
from tests.e2e.test_turn_real import _say

pytestmark = [pytest.mark.models, pytest.mark.slow]


@pytest.fixture()
def runtime(qtbot: Any, models: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from desktop_agent.adapters.mcp.mcp_files import load_mcp_config
    from desktop_agent.audio.virtual import VirtualAudio
    from desktop_agent.compose.runtime import build_runtime
    from desktop_agent.core.settings import Settings

    need_mcp()
    repo = make_git_repo(tmp_path)
    config = tmp_path / "config"
    config.mkdir()
    (config / "mcp.json").write_text(json.dumps(
        {"mcpServers": {"git": {"command": server_program("mcp-server-git")}}}))
    (config / "settings.toml").write_text(
        f'[mcp.servers.git]\ntrusted = true\npinned = {{ repo_path = "{repo}" }}\n')
    monkeypatch.setenv("DESKTOP_AGENT_LOG_DIR", str(tmp_path / "log"))
    rt = build_runtime(Settings(), VirtualAudio(), echo_cancellation=False,
                       store_path=tmp_path / "assistant.sqlite3", mcp=load_mcp_config(config))
    rt.controller.start()
    qtbot.waitUntil(rt.controller.loaded, timeout=120_000)
    assert rt.own_tools is not None and rt.own_tools.added.wait(60)
    rt.repo = repo
    yield rt
    rt.shutdown()


def test_a_spoken_question_is_answered_by_the_servers_read_tool(
        qtbot: Any, runtime: Any, speak: Any) -> None:
    c = runtime.controller
    spans: list[Any] = []
    used: list[tuple[int, str]] = []
    c.sig_span.connect(spans.append)
    c.sig_tool_used.connect(lambda turn, name: used.append((turn, name)))
    _say(qtbot, runtime, speak("What's the git status?"))
    qtbot.waitUntil(lambda: len(spans) == 1, timeout=90_000)
    calls = [m.tool_call.name for m in c.machine.history.messages if m.tool_call is not None]
    assert calls == ["git__git_status"]
    assert [name for _, name in used] == ["git__git_status"]  # the window's "used" chip
    assert "notes.txt" in c.machine.history.messages[-1].content
    log = subprocess.run(["git", "log", "--oneline"], cwd=runtime.repo, capture_output=True,
                         text=True)
    assert log.stdout == ""  # a read changed nothing
