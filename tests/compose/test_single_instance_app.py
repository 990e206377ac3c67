"""The real app, offscreen, as one instance: reached by the CLI, raised by a second launch.

Each test starts ``python -m desktop_agent`` (the GUI) in a subprocess on the offscreen
platform, with a manifest whose only model is absent and a sound device that does not exist:
the real window, settings, controller wiring and control socket, without loading a model or
opening a sound card. Waits are on conditions (the socket answers, the process ended).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from desktop_agent.adapters.desktop.instance_client import send
from desktop_agent.adapters.desktop.instance_protocol import Request
from desktop_agent.cli.exit_codes import EXIT_NO_INSTANCE
from desktop_agent.core.errors import AgentError
from tests.cli.test_instance_cli import _processes_with

pytestmark = [pytest.mark.gui, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
OWN_ENV = {k: v for k, v in os.environ.items() if k != "DESKTOP_AGENT_RUNTIME_DIR"}
"""The environment without the suite's own control folder (tests/conftest.py): these tests
place the folder through XDG_RUNTIME_DIR, as a user's session does."""
START_S = 120.0  # generous for a busy 2-core machine: the app starts in a second or two

ABSENT_MODEL = """\
[models.absent-asr]
role = "asr"
kind = "ct2-dir"
default = true
packages = ["not-installed-package==0.0.0"]
files = ["not_installed_package/model.bin"]
sha256 = { "model.bin" = "0000000000000000000000000000000000000000000000000000000000000000" }
licence = "none"
size_bytes = 1
"""


class App:
    """The environment of one test's apps and CLI calls."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / "run" / "desktop-agent"
        (root / "run").mkdir(mode=0o700)
        (root / "manifest.toml").write_text(ABSENT_MODEL)
        (root / "config").mkdir()
        (root / "config" / "settings.toml").write_text(
            '[audio]\ninput_device = "no-such-device"\noutput_device = "no-such-device"\n')
        self.marker = f"DA_TEST_MARKER={uuid.uuid4().hex}"
        key, value = self.marker.split("=")
        self.env = {**OWN_ENV, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
                    "XDG_RUNTIME_DIR": str(root / "run"), key: value,
                    "DESKTOP_AGENT_MANIFEST": str(root / "manifest.toml"),
                    "DESKTOP_AGENT_CONFIG_DIR": str(root / "config"),
                    "DESKTOP_AGENT_DATA_DIR": str(root / "data"),
                    "DESKTOP_AGENT_LOG_DIR": str(root / "log"),
                    "XDG_CONFIG_HOME": str(root / "xdg-config")}
        self.procs: list[subprocess.Popen[str]] = []

    def launch(self, *words: str) -> subprocess.Popen[str]:
        """``desktop-agent [words]`` (the GUI), in the background."""
        n = len(self.procs)
        proc = subprocess.Popen([sys.executable, "-m", "desktop_agent", "-v", *words],
                                cwd=ROOT,
                                env=self.env, text=True,
                                stdout=open(self.root / f"out{n}.log", "w"),  # noqa: SIM115
                                stderr=subprocess.STDOUT)
        self.procs.append(proc)
        return proc

    def log(self, proc: subprocess.Popen[str]) -> str:
        return (self.root / f"out{self.procs.index(proc)}.log").read_text()

    def cli(self, *words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "desktop_agent", *words], cwd=ROOT,
                              env=self.env, capture_output=True, text=True, timeout=START_S)

    def wait_for_window(self) -> None:
        """Until the app's window answers (ptt 'starting' means the socket is up, not yet it)."""
        def ready() -> bool:
            try:
                return send(Request("ptt stop"), self.folder).ok
            except AgentError:
                return False
        wait_until(ready, "the app's control socket to answer")

    def alive(self) -> list[subprocess.Popen[str]]:
        return [p for p in self.procs if p.poll() is None]


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = START_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)  # a polling interval, not a wait for something to happen


@pytest.fixture
def app() -> Iterator[App]:
    with tempfile.TemporaryDirectory(prefix="da-") as name:
        env = App(Path(name))
        yield env
        for proc in env.alive():
            proc.kill()
            proc.wait(30)


def test_the_running_app_answers_ptt_show_and_a_second_launch(app: App) -> None:
    first = app.launch()
    app.wait_for_window()
    steps = [("ptt", "start"), ("ptt", "start"), ("ptt", "stop"), ("ptt", "toggle"),
             ("ptt", "cancel"), ("show",)]
    said = []
    for words in steps:
        done = app.cli(*words)
        assert done.returncode == 0, done.stderr
        said.append(done.stdout.strip())
    assert said == ["Listening.", "Already listening.", "Stopped listening.", "Listening.",
                    "Cancelled.", "Shown."]
    second = app.launch()
    assert second.wait(START_S) == 0, app.log(second)
    assert "desktop-agent is already running: Shown." in app.log(second)
    assert app.alive() == [first]
    assert _processes_with(app.marker) == [first.pid]
    done = app.cli("quit")
    assert (done.returncode, done.stdout.strip()) == (0, "Quitting.")
    assert first.wait(START_S) == 0, app.log(first)
    assert not (app.folder / "control.sock").exists()
    done = app.cli("ptt", "toggle")
    assert done.returncode == EXIT_NO_INSTANCE and "[no_instance]" in done.stderr


def test_two_launches_at_once_leave_one_app(app: App) -> None:
    a, b = app.launch(), app.launch()
    wait_until(lambda: len(app.alive()) == 1, "one of the two launches to end")
    ended = a if a.poll() is not None else b
    assert ended.returncode == 0, app.log(ended)
    assert "desktop-agent is already running" in app.log(ended)
    app.wait_for_window()
    assert app.cli("quit").returncode == 0
    survivor = app.alive()[0]
    assert survivor.wait(START_S) == 0, app.log(survivor)


def test_a_killed_app_leaves_a_stale_socket_that_the_next_one_replaces(app: App) -> None:
    first = app.launch()
    app.wait_for_window()
    first.send_signal(signal.SIGKILL)
    first.wait(START_S)
    assert (app.folder / "control.sock").exists()  # stale: nobody listens
    done = app.cli("ptt", "toggle")
    assert done.returncode == EXIT_NO_INSTANCE and "[no_instance]" in done.stderr
    second = app.launch()
    app.wait_for_window()
    assert app.cli("ptt", "start").stdout.strip() == "Listening."
    assert app.cli("quit").returncode == 0
    assert second.wait(START_S) == 0, app.log(second)


def test_started_hidden_at_login_it_writes_its_autostart_entry_and_quits(app: App) -> None:
    settings = app.root / "config" / "settings.toml"
    settings.write_text(settings.read_text() + "[desktop]\nstart_at_login = true\n")
    first = app.launch("--start-hidden")  # offscreen has no tray: minimised
    app.wait_for_window()
    entry = app.root / "xdg-config" / "autostart" / "io.github.desktop_agent.DesktopAgent.desktop"
    exec_line = next(x for x in entry.read_text().splitlines() if x.startswith("Exec="))
    assert exec_line.endswith("desktop-agent --start-hidden") and exec_line.startswith("Exec=/")
    assert app.cli("show").stdout.strip() == "Shown."
    assert app.cli("quit").returncode == 0
    assert first.wait(START_S) == 0, app.log(first)
