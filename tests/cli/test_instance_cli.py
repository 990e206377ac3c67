"""``desktop-agent ptt|show|quit`` with no app running: a clear error, and nothing started.

A shortcut bound to ``desktop-agent ptt toggle`` must never launch the app (a second press
during its start-up would launch another): the command exits ``EXIT_NO_INSTANCE`` at once,
creates no socket and leaves no process behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_agent.cli.exit_codes import EXIT_NO_INSTANCE

ROOT = Path(__file__).resolve().parents[2]
OWN_ENV = {k: v for k, v in os.environ.items() if k != "DESKTOP_AGENT_RUNTIME_DIR"}
"""The environment without the suite's own control folder (tests/conftest.py): these tests
place the folder through XDG_RUNTIME_DIR, as a user's session does."""
NO_INSTANCE = ("[no_instance] No desktop-agent is running. "
               "Fix: Start it with 'desktop-agent' first.")


@pytest.fixture
def runtime_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="da-") as name:
        yield Path(name)


def _processes_with(marker: str) -> list[int]:
    """Live processes whose environment holds ``marker`` (children inherit it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue  # gone, or not ours to read
    return found


@pytest.mark.parametrize("words", [["ptt", "toggle"], ["ptt", "start"], ["show"], ["quit"],
                                   ["-v", "ptt", "cancel"]])
def test_with_no_app_the_command_fails_and_starts_nothing(runtime_dir: Path,
                                                          words: list[str]) -> None:
    marker = f"DA_TEST_MARKER={uuid.uuid4().hex}"
    key, value = marker.split("=")
    env = {**OWN_ENV, "XDG_RUNTIME_DIR": str(runtime_dir), "PYTHONPATH": str(ROOT),
           key: value, "QT_QPA_PLATFORM": "offscreen"}  # a window could open, if one were made
    done = subprocess.run([sys.executable, "-m", "desktop_agent", *words], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == EXIT_NO_INSTANCE, done.stderr
    assert done.stderr.strip() == NO_INSTANCE
    assert done.stdout == ""
    assert list(runtime_dir.iterdir()) == []  # no control folder, no socket, no lock
    assert _processes_with(marker) == []  # nothing it started is still running


PROBE = """
import json, sys
from desktop_agent.cli import main
status = main(["ptt", "toggle"])
print(json.dumps([status, sorted({m.split(".")[0] for m in sys.modules})]))
"""


def test_the_client_path_loads_no_qt_and_no_engine(runtime_dir: Path) -> None:
    from tests.cli.test_light_import import HEAVY

    env = {**OWN_ENV, "XDG_RUNTIME_DIR": str(runtime_dir), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    status, loaded = json.loads(done.stdout)
    assert status == EXIT_NO_INSTANCE
    assert "desktop_agent" in loaded
    assert sorted(set(loaded) & set(HEAVY)) == []


def test_help_lists_the_commands() -> None:
    done = subprocess.run([sys.executable, "-m", "desktop_agent", "--help"], cwd=ROOT,
                          env={**OWN_ENV, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    for name in ("ptt", "dictate", "show", "quit"):
        assert f"\n    {name} " in done.stdout
    done = subprocess.run([sys.executable, "-m", "desktop_agent", "ptt", "hold"], cwd=ROOT,
                          env={**OWN_ENV, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "start" in done.stderr and "cancel" in done.stderr
