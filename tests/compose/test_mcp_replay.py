"""Your own tools through the whole turn, on the real default model and real MCP servers.

The issue's "done when": an mcp.json naming a stdio server (mcp-server-git on a temporary
repository, its path pinned) plus ``trusted = true`` gives a spoken answer from its read tool
and a confirmed write that runs once; nothing from an untrusted server runs without a yes;
a crashed server's turn ends in an apology, not silence.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.adapters.mcp.mcp_files import load_mcp_config
from desktop_agent.compose.replay import run_replay
from tests.adapters.mcp.conftest import FIXTURE, make_git_repo, need_mcp, server_program

pytestmark = [pytest.mark.models, pytest.mark.slow]


def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, servers: dict[str, Any],
            settings: str) -> None:
    need_mcp()
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    (config / "settings.toml").write_text(settings)
    monkeypatch.setenv("DESKTOP_AGENT_LOG_DIR", str(tmp_path / "log"))


def _replay(tmp_path: Path, steps: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(json.dumps(s) for s in steps) + "\n")
    rows = run_replay(script, data_dir=tmp_path / "data", out=io.StringIO(),
                      mcp=load_mcp_config(tmp_path / "config"))
    by_step = {r["step"]: r for r in rows if "step" in r}
    by_step[0] = rows[-1]["summary"]
    return by_step


def _commits(repo: Path) -> list[str]:
    return subprocess.run(["git", "log", "--format=%s"], cwd=repo, capture_output=True,
                          text=True).stdout.splitlines()


def test_a_trusted_servers_read_answers_and_its_write_runs_once_after_yes(
        models: Any, speak: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop_agent.adapters.audio.audio_files import write_wav

    git_repo = make_git_repo(tmp_path)
    _config(tmp_path, monkeypatch, {"git": {"command": server_program("mcp-server-git")}},
            f'[mcp.servers.git]\ntrusted = true\npinned = {{ repo_path = "{git_repo}" }}\n')
    question = tmp_path / "status.wav"  # spoken, through Whisper: a voice answer
    write_wav(question, speak("What's the git status?"), 16_000)
    by_step = _replay(tmp_path, [
        {"wav": str(question)},                                          # 1 a read: at once
        {"say": "Commit my changes with the message first note."},      # 2 read back
        {"say": "yes"},                                                 # 3 runs once
        {"say": "yes"},                                                 # 4 nothing more
        {"say": "Create a new branch called experiments."},             # 5 read back
        {"say": "no"},                                                  # 6 dropped
    ])
    assert "status" in by_step[1]["transcript"].lower()  # whisper-tiny: "the get status"
    assert [c["name"] for c in by_step[1]["tool_calls"]] == ["git__git_status"]
    assert "notes.txt" in by_step[1]["reply"] and by_step[1]["executed"] == []
    assert by_step[2]["pending"]["tool"] == "git__git_commit"
    assert "first note" in by_step[2]["pending"]["read_back"].lower()
    assert by_step[2]["executed"] == []
    assert [e["tool"] for e in by_step[3]["executed"]] == ["git__git_commit"]
    assert by_step[4]["executed"] == [] and by_step[4]["pending"] is None
    assert by_step[5]["pending"]["tool"] == "git__git_create_branch"
    assert by_step[6]["executed"] == []
    assert [e["tool"] for e in by_step[0]["executed"]] == ["git__git_commit"]
    assert [c.rstrip(".").lower() for c in _commits(git_repo)] == ["first note"]
    branches = subprocess.run(["git", "branch"], cwd=git_repo, capture_output=True,
                              text=True).stdout
    assert "experiments" not in branches


def test_nothing_from_an_untrusted_server_runs_without_a_yes(
        models: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git_repo = make_git_repo(tmp_path)
    _config(tmp_path, monkeypatch, {"git": {"command": server_program("mcp-server-git")}},
            f'[mcp.servers.git]\npinned = {{ repo_path = "{git_repo}" }}\n')
    by_step = _replay(tmp_path, [
        {"say": "What's the git status?"},                      # 1 even a read asks first
        {"advance_s": 31},                                      # 2 the read-back expires
        {"say": "yes"},                                         # 3 too late
    ])
    assert by_step[1]["pending"]["tool"] == "git__git_status"
    assert by_step[1]["executed"] == [] and by_step[3]["executed"] == []
    assert by_step[0]["executed"] == []


def test_a_crashed_server_gets_an_apology_and_is_started_again(
        models: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(tmp_path, monkeypatch, {"fx": {"command": sys.executable,
                                           "args": [str(FIXTURE), str(tmp_path / "c.txt")]}},
            "[mcp.servers.fx]\ntrusted = true\n")
    by_step = _replay(tmp_path, [{"say": "Crash the fixture server."}])
    assert [c["name"] for c in by_step[1]["tool_calls"]] == ["fx__crash"]
    assert by_step[1]["reply"].strip()  # said something, not silence
    log = (tmp_path / "log" / "mcp" / "fx.log").read_text()
    assert "crashing on purpose" in log
