"""Real MCP servers for the tests: our fixture server (stdio or HTTP), mcp-server-time/git."""

from __future__ import annotations

import importlib.util
import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.adapters.mcp.mcp_client import McpHub
from desktop_agent.core.mcp.config import McpConfig, ServerChoice, ServerConfig, ServerEntry
from tests.needs import unavailable

FIXTURE = Path(__file__).with_name("fixture_server.py")
BIN = Path(sys.executable).parent


def need_mcp() -> None:
    """The mcp SDK (the [test] extra) or skip/fail."""
    if importlib.util.find_spec("mcp") is None:
        unavailable("the mcp package", "not installed (pip install -e .[test])")


def server_program(name: str) -> str:
    """A test server's command beside this Python (models/requirements-test.txt)."""
    path = BIN / name
    if not path.exists():
        unavailable(name, "not installed (models/requirements-test.txt)")
    return str(path)


def wait_until(condition: Callable[[], bool], timeout_s: float = 30.0) -> None:
    """Wait for ``condition``, polling; fail with a clear message at the deadline."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"condition not met within {timeout_s} s")
        time.sleep(0.05)


def fixture_server(count: Path) -> dict[str, Any]:
    """mcp.json's entry for our fixture server over stdio, recording into ``count``."""
    return {"command": sys.executable, "args": [str(FIXTURE), str(count)]}


def write_config(folder: Path, servers: dict[str, Any], settings: str = "") -> Path:
    """``folder`` with an mcp.json naming ``servers`` and a settings.toml of ``settings``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    (folder / "settings.toml").write_text(settings, encoding="utf-8")
    return folder


def fixture_entry(count: Path, name: str = "fx") -> ServerEntry:
    """Our fixture server over stdio, recording into ``count``."""
    return ServerEntry(name=name, command=sys.executable, args=(str(FIXTURE), str(count)))


@pytest.fixture
def count(tmp_path: Path) -> Path:
    """The file the fixture server's writes append to."""
    return tmp_path / "count.txt"


@pytest.fixture
def make_hub(tmp_path: Path) -> Iterator[Callable[..., McpHub]]:
    """Start a hub over the given servers (closed at the end of the test)."""
    need_mcp()
    hubs: list[McpHub] = []

    def make(*servers: tuple[ServerEntry, ServerChoice], settle: bool = True,
             **kwargs: object) -> McpHub:
        config = McpConfig(tuple(ServerConfig(e, c) for e, c in servers))
        hub = McpHub(config, log_dir=tmp_path / "logs", **kwargs)  # type: ignore[arg-type]
        hubs.append(hub)
        hub.start()
        if settle:
            assert hub.wait_settled(60)
        return hub

    yield make
    for hub in hubs:
        hub.close()


def lines(path: Path) -> list[str]:
    """The lines of ``path`` ([] when it does not exist)."""
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def make_git_repo(folder: Path) -> Path:
    """A real git repository in ``folder``/repo with one staged file and no commit."""
    if shutil.which("git") is None:
        unavailable("git", "not installed (apt-get install git)")
    repo = folder / "repo"
    repo.mkdir()
    for args in (["init", "-q"], ["config", "user.email", "t@example.org"],
                 ["config", "user.name", "Test"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    (repo / "notes.txt").write_text("first\n", encoding="utf-8")
    subprocess.run(["git", "add", "notes.txt"], cwd=repo, check=True)
    return repo


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A real git repository with one staged file and no commit."""
    return make_git_repo(tmp_path)


@pytest.fixture
def http_server(count: Path) -> Iterator[str]:
    """Our fixture server over streamable HTTP on 127.0.0.1; its URL."""
    need_mcp()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(FIXTURE), str(count), "--http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def listening() -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0
    try:
        wait_until(listening)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)
