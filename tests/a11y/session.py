"""A private desktop for accessibility tests: Xvfb, a session bus, the AT-SPI bus, the app.

``A11ySession`` starts, each on its own and torn down in reverse order:

* ``Xvfb`` on a free display (``-displayfd``), so the app is a real X11 client and keys can
  be typed into it through XTest (``xdotool``);
* a private D-Bus session bus (``dbus-daemon --session``): the AT-SPI bus launcher is
  activated on it when Qt asks for ``org.a11y.Bus``, and the registry on that bus;
* the probe (``tests/a11y/atspi_probe.py``) under the system Python, before the app, as a
  user's screen reader runs before the app starts: it is the screen reader's side, and the
  tests read only what it reports;
* the app (``tests/a11y/keyboard_app.py``, or the command a test gives) with Qt's AT-SPI
  bridge always on.

Nothing here reads Qt's own objects: what the tests see is what crossed the bus.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

SYSTEM_PYTHON: Final = "/usr/bin/python3"
BUS_LAUNCHER: Final = "/usr/libexec/at-spi-bus-launcher"
APT_PACKAGES: Final = ("xvfb", "xdotool", "dbus-daemon", "at-spi2-core", "python3-gi",
                       "gir1.2-atspi-2.0")
INSTALL: Final = ("sudo apt-get install -y " + " ".join(APT_PACKAGES)
                  + "   (or: bash scripts/setup.sh test, which installs them)")
REPO: Final = Path(__file__).resolve().parents[2]
HERE: Final = Path(__file__).resolve().parent

Event = dict[str, Any]
"""One JSON line of the probe: an AT-SPI event (see atspi_probe.py)."""


def missing_pieces() -> list[str]:
    """What this machine lacks to run the AT-SPI tests (empty when nothing)."""
    missing = [tool for tool in ("Xvfb", "xdotool", "dbus-daemon") if shutil.which(tool) is None]
    if not Path(BUS_LAUNCHER).exists():
        missing.append(BUS_LAUNCHER)
    probe = [SYSTEM_PYTHON, "-c",
             "import gi; gi.require_version('Atspi', '2.0'); from gi.repository import Atspi"]
    if not Path(SYSTEM_PYTHON).exists() or subprocess.run(
            probe, capture_output=True, timeout=30).returncode != 0:
        missing.append(f"{SYSTEM_PYTHON} with gi and Atspi 2.0")
    return missing


def require_pieces() -> None:
    """Skip (or fail when ``DESKTOP_AGENT_REQUIRE_ALL=1``) unless everything is installed."""
    missing = missing_pieces()
    if not missing:
        return
    message = f"AT-SPI test needs {', '.join(missing)}; install with: {INSTALL}"
    if os.environ.get("DESKTOP_AGENT_REQUIRE_ALL") == "1":
        pytest.fail(message)
    pytest.skip(message)


class _Lines:
    """Collects a child's stdout JSON lines on a thread; waits on them with a condition."""

    def __init__(self, proc: subprocess.Popen[str], name: str) -> None:
        self.proc = proc
        self.name = name
        self.lines: list[dict[str, Any]] = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, name=f"{name}-stdout", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                line = json.loads(raw)
            except ValueError:
                line = {"raw": raw.rstrip()}
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait(self, match: Callable[[dict[str, Any]], bool], timeout_s: float,
             start: int = 0) -> tuple[int, dict[str, Any]] | None:
        """The first line at or after ``start`` that matches (its index, the line)."""
        deadline = time.monotonic() + timeout_s
        with self.cond:
            while True:
                for i in range(start, len(self.lines)):
                    if match(self.lines[i]):
                        return i, self.lines[i]
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self.thread.is_alive()):
                    return None
                self.cond.wait(min(left, 0.5))


class A11ySession:
    """The desktop, the buses, the app and the probe; see the module docstring."""

    def __init__(self, tmp: Path, private_home: bool = True) -> None:
        """Args: tmp: a fresh folder for logs, sockets and the app's config; private_home:
        HOME in ``tmp`` too (False keeps the user's, where the real app finds its models)."""
        self.tmp = tmp
        self.procs: list[subprocess.Popen[Any]] = []
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("AT_SPI_BUS_ADDRESS", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY",
                                 "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "SESSION_MANAGER")}
        runtime_dir = tmp / "xdg-runtime"
        runtime_dir.mkdir(mode=0o700, exist_ok=True)
        self.env["XDG_RUNTIME_DIR"] = str(runtime_dir)
        if private_home:
            self.env["HOME"] = str(tmp / "home")
            (tmp / "home").mkdir(exist_ok=True)
        self.app_pid = 0
        self.window_id = 0
        self.app: _Lines | None = None
        self.probe: _Lines | None = None
        self._seq = 0

    # -- start and stop -------------------------------------------------------------------
    def start(self, app: list[str] | None = None, app_env: dict[str, str] | None = None,
              timeout_s: float = 30.0) -> None:
        """Start everything; raise with the logs when a piece does not come up.

        Args:
            app: the app's command line (default: ``tests/a11y/keyboard_app.py``).
            app_env: more environment for the app.
            timeout_s: how long each piece may take to come up.
        """
        self._start_xvfb(timeout_s)
        self._start_bus(timeout_s)
        # The screen reader runs before the app starts, as a user's does.
        probe = self._spawn([SYSTEM_PYTHON, str(HERE / "atspi_probe.py"), "-"], self.env,
                            "probe", stdin=True)
        self.probe = _Lines(probe, "probe")
        if self.probe.wait(lambda line: "ready" in line, timeout_s) is None:
            raise AssertionError(f"the AT-SPI probe did not start:\n{self.log('probe')}")
        env = dict(self.env, QT_QPA_PLATFORM="xcb", QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1",
                   QT_ACCESSIBILITY="1", PYTHONUNBUFFERED="1", **(app_env or {}))
        argv = app or [sys.executable, "-m", "tests.a11y.keyboard_app", str(self.tmp / "config")]
        proc = self._spawn(argv, env, "app")
        self.app = _Lines(proc, "app")
        self.app_pid = proc.pid
        try:  # Qt names its windows' process (_NET_WM_PID): wait for the first one shown
            found = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid",
                                    str(proc.pid)], env=self.env, capture_output=True,
                                   text=True, timeout=timeout_s)
            self.window_id = int(found.stdout.split()[0])
        except (subprocess.TimeoutExpired, IndexError, ValueError):
            raise AssertionError(f"the app's window did not show in {timeout_s} s:\n"
                                 f"{self.log('app')}") from None
        self._ask("pid", timeout_s, pid=self.app_pid)
        # The bridge registers the app on the bus after the window shows: ask until it is.
        deadline = time.monotonic() + timeout_s
        while not self._ask("find", timeout_s).get("found"):
            if time.monotonic() > deadline:
                raise AssertionError(f"the app never appeared on the AT-SPI bus:\n"
                                     f"{self.log('app')}\n{self.log('probe')}")
            self.app.wait(lambda line: False, 0.1)  # let it run a moment between questions

    def _spawn(self, argv: list[str], env: dict[str, str], name: str,
               stdin: bool = False) -> subprocess.Popen[str]:
        err = (self.tmp / f"{name}.stderr").open("w")
        proc = subprocess.Popen(argv, cwd=REPO, env=env, text=True, stdout=subprocess.PIPE,
                                stderr=err, stdin=subprocess.PIPE if stdin else
                                subprocess.DEVNULL)
        self.procs.append(proc)
        return proc

    def _start_xvfb(self, timeout_s: float) -> None:
        read_fd, write_fd = os.pipe()
        err = (self.tmp / "xvfb.stderr").open("w")
        proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1400x900x24", "-nolisten",
             "tcp"], pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=err, env=self.env)
        self.procs.append(proc)
        os.close(write_fd)
        display = _read_line(read_fd, timeout_s)
        os.close(read_fd)
        if not display:
            raise AssertionError(f"Xvfb did not start:\n{self.log('xvfb')}")
        self.env["DISPLAY"] = f":{display}"

    def _start_bus(self, timeout_s: float) -> None:
        proc = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                                env=self.env, text=True, stdout=subprocess.PIPE,
                                stderr=(self.tmp / "dbus.stderr").open("w"))
        self.procs.append(proc)
        assert proc.stdout is not None
        address = _read_line(proc.stdout.fileno(), timeout_s)
        if not address:
            raise AssertionError(f"dbus-daemon did not start:\n{self.log('dbus')}")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address

    def close(self) -> None:
        """Stop the probe, the app, the bus and the display (the bus takes AT-SPI with it)."""
        if self.probe is not None and self.probe.proc.stdin is not None:
            try:
                self.probe.proc.stdin.write('{"cmd": "quit"}\n')
                self.probe.proc.stdin.close()
            except OSError:
                pass
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)

    def log(self, name: str) -> str:
        """The last lines of a child's stderr (for failure messages)."""
        path = self.tmp / f"{name}.stderr"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-30:])

    # -- what the screen reader sees ------------------------------------------------------
    @property
    def events(self) -> list[Event]:
        """Every AT-SPI event the probe has seen so far, oldest first."""
        assert self.probe is not None
        with self.probe.cond:
            return [line for line in self.probe.lines if "event" in line]

    def mark(self) -> int:
        """A position in the probe's output: ``wait_event(start=mark)`` looks after it."""
        assert self.probe is not None
        with self.probe.cond:
            return len(self.probe.lines)

    def wait_event(self, match: Callable[[Event], bool], what: str, start: int = 0,
                   timeout_s: float = 20.0) -> Event:
        """The first AT-SPI event at or after ``start`` that matches; fail saying ``what``.

        The event comes back with ``"at"``: its position (``start=event["at"] + 1`` waits
        for what came after it).
        """
        assert self.probe is not None
        found = self.probe.wait(lambda line: "event" in line and match(line), timeout_s, start)
        if found is None:
            raise AssertionError(f"no AT-SPI event: {what} within {timeout_s} s; "
                                 f"last events:\n{self.recent_events(start)}\n"
                                 f"app requests: {self.requests()}\napp log:\n{self.log('app')}")
        return dict(found[1], at=found[0])

    def sync(self, timeout_s: float = 20.0) -> int:
        """Wait until the events the app has sent so far have arrived; return a mark."""
        return int(self._ask("sync", timeout_s)["at"]) + 1

    def last_event(self, match: Callable[[Event], bool]) -> Event | None:
        """The newest event so far that matches (None if none)."""
        return next((e for e in reversed(self.events) if match(e)), None)

    def recent_events(self, start: int = 0, n: int = 25) -> str:
        """The last ``n`` events after ``start``, one line each."""
        return "\n".join(json.dumps(e) for e in self.events[start:][-n:])

    def requests(self) -> list[tuple[str, Any]]:
        """What the window asked of the view model so far (for failure messages)."""
        assert self.app is not None
        with self.app.cond:
            return [(line["request"], line["arg"]) for line in self.app.lines
                    if "request" in line]

    def _ask(self, cmd: str, timeout_s: float, **args: object) -> dict[str, Any]:
        assert self.probe is not None and self.probe.proc.stdin is not None
        self._seq += 1
        seq = self._seq
        start = self.mark()
        self.probe.proc.stdin.write(json.dumps({"cmd": cmd, "seq": seq, **args}) + "\n")
        self.probe.proc.stdin.flush()
        found = self.probe.wait(lambda line: line.get("seq") == seq, timeout_s, start)
        if found is None:
            raise AssertionError(f"the probe did not answer {cmd!r} in {timeout_s} s:\n"
                                 f"{self.log('probe')}")
        if found[1].get("error"):
            raise AssertionError(f"the probe failed on {cmd!r}:\n{found[1]['error']}")
        return dict(found[1], at=found[0])

    def tree(self, timeout_s: float = 30.0) -> dict[str, Any]:
        """The application's accessibility tree as the probe reads it now."""
        tree = self._ask("tree", timeout_s)["tree"]
        if tree is None:
            raise AssertionError(f"the probe found no application with pid {self.app_pid} "
                                 f"on the AT-SPI bus:\n{self.log('probe')}\n{self.log('app')}")
        return dict(tree)

    # -- the keyboard ---------------------------------------------------------------------
    def keys(self, *args: str) -> None:
        """Run ``xdotool ARGS`` on the private display (XTest key events)."""
        proc = subprocess.run(["xdotool", *args], env=self.env, capture_output=True,
                              text=True, timeout=30)
        assert proc.returncode == 0, f"xdotool {' '.join(args)}: {proc.stderr}"


def walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every node of a probe tree, depth first."""
    yield node
    for child in node.get("children", ()):
        yield from walk(child)


def _read_line(fd: int, timeout_s: float) -> str:
    """Read one line from ``fd`` without blocking past ``timeout_s``."""
    import select

    data = b""
    deadline = time.monotonic() + timeout_s
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 256)
        if not chunk:
            break
        data += chunk
    return data.decode().strip()
