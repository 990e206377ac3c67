"""A private desktop for the portal tests: a session bus, a fake desktop, the real portal.

``PortalDesktop`` starts, each on its own and stopped in reverse order:

* a private ``dbus-daemon`` with a configuration of its own: no service folders, so nothing
  is started on demand (the user's portal, or Debian's activation file for
  ``org.freedesktop.portal.Desktop``, can never answer in a test's place);
* the fake desktop (``portal_backend.py``, python-dbusmock under the system Python) as
  ``org.freedesktop.impl.portal.Test``;
* the real frontend, ``/usr/libexec/xdg-desktop-portal`` (Debian 12: 1.16, GlobalShortcuts
  but no host Registry), told by ``XDG_DESKTOP_PORTAL_DIR`` and ``XDG_CURRENT_DESKTOP=test``
  to use the fake desktop (a ``test.portal`` file), with its own empty config and runtime
  folders and no system bus.

Every wait is for a condition (a name appearing on the bus, a call the fake desktop
announces with dbusmock's ``MethodCalled``) with a time limit, never a fixed sleep. The test
side speaks D-Bus through jeepney from the test's own thread.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from tests.a11y.session import _read_line
from tests.needs import unavailable

SYSTEM_PYTHON: Final = "/usr/bin/python3"
FRONTEND: Final = "/usr/libexec/xdg-desktop-portal"
APT_PACKAGES: Final = ("dbus-daemon", "xdg-desktop-portal", "python3-dbusmock")
HERE: Final = Path(__file__).resolve().parent
BACKEND_NAME: Final = "org.freedesktop.impl.portal.Test"
REMOTE_BACKEND_NAME: Final = "org.freedesktop.impl.portal.TestRemote"
PORTAL_NAME: Final = "org.freedesktop.portal.Desktop"
MAIN_PATH: Final = "/org/freedesktop/portal/desktop"
MOCK_IFACE: Final = "org.freedesktop.DBus.Mock"
REGISTRY_IFACE: Final = "org.freedesktop.host.portal.Registry"
_BUS_CONFIG: Final = """<!DOCTYPE busconfig PUBLIC
 "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={dir}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""
_TEST_PORTAL: Final = """[portal]
DBusName=org.freedesktop.impl.portal.Test
Interfaces={interfaces}
UseIn=test
"""


def require_pieces() -> None:
    """Skip (or fail under DESKTOP_AGENT_REQUIRE_ALL=1) unless the portal and dbusmock are here."""
    missing = _missing_pieces()
    if missing:
        unavailable("the desktop portal test desktop",
                    f"missing {', '.join(missing)}; install with: sudo apt-get install -y "
                    f"{' '.join(APT_PACKAGES)}   (or: bash scripts/setup.sh test)")


@functools.cache
def _missing_pieces() -> tuple[str, ...]:
    """What this machine lacks to run the portal tests (asked once per test run)."""
    missing = [] if shutil.which("dbus-daemon") else ["dbus-daemon"]
    if not Path(FRONTEND).exists():
        missing.append(FRONTEND)
    probe = [SYSTEM_PYTHON, "-c", "import dbusmock, dbus"]
    if not Path(SYSTEM_PYTHON).exists() or subprocess.run(
            probe, capture_output=True, timeout=60).returncode != 0:
        missing.append(f"{SYSTEM_PYTHON} with dbusmock")
    try:
        import jeepney  # noqa: F401
    except ImportError:
        missing.append("jeepney in the venv")
    return tuple(missing)


@contextmanager
def private_desktop() -> Iterator[PortalDesktop]:
    """A ``PortalDesktop`` with its bus started (skips, or fails in CI, without the pieces)."""
    require_pieces()
    desktop = PortalDesktop()
    try:
        desktop.start_bus()
        yield desktop
    finally:
        desktop.close()


class PortalDesktop:
    """The bus, the fake desktop and the portal; see the module docstring."""

    def __init__(self) -> None:
        """Nothing starts until ``start_bus``."""
        # A short folder: a socket's path must stay under 108 bytes (tmp_path may not).
        self.tmp = Path(tempfile.mkdtemp(prefix="da-portal-"))
        self.procs: list[subprocess.Popen[Any]] = []
        self.address = ""
        self.env: dict[str, str] = {}
        self._conn: Any = None
        self._calls: deque[Any] = deque()
        self._seen: list[tuple[str, str, list[Any]]] = []
        self._overheard: list[Any] = []

    # -- start ----------------------------------------------------------------------------
    def start_bus(self, timeout_s: float = 30.0) -> str:
        """Start the private session bus; its address."""
        from jeepney import MatchRule, message_bus
        from jeepney.io.blocking import open_dbus_connection

        config = self.tmp / "bus.conf"
        config.write_text(_BUS_CONFIG.format(dir=self.tmp))
        proc = self._spawn(["dbus-daemon", f"--config-file={config}", "--nofork",
                            "--print-address=1"], "dbus", os.environ.copy(), stdout=True)
        assert proc.stdout is not None
        self.address = _read_line(proc.stdout.fileno(), timeout_s)
        if not self.address:
            raise AssertionError(f"dbus-daemon did not start:\n{self.log('dbus')}")
        keep = {k: v for k, v in os.environ.items() if k not in (
            "DISPLAY", "WAYLAND_DISPLAY", "XDG_CURRENT_DESKTOP", "XDG_SESSION_DESKTOP",
            "DESKTOP_SESSION", "XDG_DESKTOP_PORTAL_DIR", "GTK_USE_PORTAL")}
        for name in ("runtime", "config", "config-dirs", "data", "cache", "home"):
            (self.tmp / name).mkdir(mode=0o700)
        self.env = dict(keep, DBUS_SESSION_BUS_ADDRESS=self.address,
                        DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={self.tmp}/no-system-bus",
                        XDG_RUNTIME_DIR=str(self.tmp / "runtime"),
                        XDG_CONFIG_HOME=str(self.tmp / "config"),
                        XDG_CONFIG_DIRS=str(self.tmp / "config-dirs"),
                        XDG_DATA_HOME=str(self.tmp / "data"),
                        XDG_CACHE_HOME=str(self.tmp / "cache"), HOME=str(self.tmp / "home"),
                        XDG_CURRENT_DESKTOP="test",
                        XDG_DESKTOP_PORTAL_DIR=str(self.tmp / "portals"))
        self._conn = open_dbus_connection(bus=self.address, auth_timeout=timeout_s)
        rule = MatchRule(type="signal", interface=MOCK_IFACE, member="MethodCalled")
        self._conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=timeout_s)
        self._calls_filter = self._conn.filter(rule, queue=self._calls)
        return self.address

    def start_backend(self, timeout_s: float = 30.0, **parameters: Any) -> None:
        """Start the fake desktop with its parameters (see portal_backend.py)."""
        self._spawn([SYSTEM_PYTHON, "-m", "dbusmock", "-t", str(HERE / "portal_backend.py"),
                     "-p", json.dumps(parameters)], "backend", self.env)
        self.wait_for_name(BACKEND_NAME, "backend", timeout_s)

    def start_remote_backend(self, timeout_s: float = 30.0, **parameters: Any) -> None:
        """Start the fake desktop's RemoteDesktop (see portal_remote_backend.py)."""
        self._spawn([SYSTEM_PYTHON, "-m", "dbusmock", "-t",
                     str(HERE / "portal_remote_backend.py"), "-p", json.dumps(parameters)],
                    "remote-backend", self.env)
        self.wait_for_name(REMOTE_BACKEND_NAME, "remote-backend", timeout_s)

    def start_portal(self, global_shortcuts: bool = True, remote_desktop: bool = False,
                     timeout_s: float = 30.0) -> None:
        """Start the real frontend; with the fake desktop's GlobalShortcuts, or with none;
        with its RemoteDesktop (``start_remote_backend`` first) or without."""
        portals = self.tmp / "portals"
        portals.mkdir(exist_ok=True)
        # Without GlobalShortcuts the fake desktop offers another interface only.
        interfaces = ("org.freedesktop.impl.portal.GlobalShortcuts" if global_shortcuts
                      else "org.freedesktop.impl.portal.Inhibit")
        (portals / "test.portal").write_text(_TEST_PORTAL.format(interfaces=interfaces))
        if remote_desktop:
            (portals / "test-remote.portal").write_text(_TEST_PORTAL.format(
                interfaces="org.freedesktop.impl.portal.RemoteDesktop").replace(
                    BACKEND_NAME, REMOTE_BACKEND_NAME))
        self._spawn([FRONTEND, "--replace", "--verbose"], "portal", self.env)
        self.wait_for_name(PORTAL_NAME, "portal", timeout_s)

    def start_registry_portal(self, timeout_s: float = 30.0) -> None:
        """A stand-in for a newer portal (1.19.4+) that has only the host Registry.

        A bare dbusmock object as ``org.freedesktop.portal.Desktop`` whose Register records
        its call; it has no GlobalShortcuts, so a client stops after asking for it.
        """
        self._spawn([SYSTEM_PYTHON, "-m", "dbusmock", PORTAL_NAME, MAIN_PATH, REGISTRY_IFACE],
                    "registry", self.env)
        self.wait_for_name(PORTAL_NAME, "registry", timeout_s)
        self.mock("AddMethod", "sssss", (REGISTRY_IFACE, "Register", "sa{sv}", "", ""),
                  bus_name=PORTAL_NAME)

    def _spawn(self, argv: list[str], name: str, env: dict[str, str],
               stdout: bool = False) -> subprocess.Popen[Any]:
        err = (self.tmp / f"{name}.stderr").open("w")
        proc = subprocess.Popen(argv, env=env, text=True, stderr=err, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE if stdout else subprocess.DEVNULL)
        err.close()
        self.procs.append(proc)
        return proc

    def wait_for_name(self, name: str, proc_name: str, timeout_s: float) -> None:
        """Until ``name`` has an owner on the bus; fail with the process's log if it dies."""
        from jeepney import MatchRule, message_bus

        rule = MatchRule(type="signal", sender="org.freedesktop.DBus",
                         interface="org.freedesktop.DBus", member="NameOwnerChanged")
        rule.add_arg_condition(0, name)
        owners: deque[Any] = deque()
        proc = self.procs[-1]
        with self._conn.filter(rule, queue=owners):
            self._conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=timeout_s)
            has = self._conn.send_and_get_reply(message_bus.NameHasOwner(name),
                                                timeout=timeout_s)
            deadline = time.monotonic() + timeout_s
            while not has.body[0] and not any(m.body[2] for m in owners):
                if proc.poll() is not None:
                    raise AssertionError(f"{proc_name} exited with {proc.returncode}:\n"
                                         f"{self.log(proc_name)}")
                if time.monotonic() > deadline:
                    raise AssertionError(f"{name} did not appear in {timeout_s} s:\n"
                                         f"{self.log(proc_name)}")
                try:  # short waits: a process that dies must end the wait too
                    self._conn.recv_messages(timeout=0.5)
                except TimeoutError:
                    pass

    # -- the fake desktop -----------------------------------------------------------------
    def mock(self, method: str, signature: str = "", args: tuple[Any, ...] = (),
             path: str = MAIN_PATH, bus_name: str = BACKEND_NAME,
             timeout_s: float = 30.0) -> Any:
        """Call a method of the fake desktop's Mock interface; its reply's body."""
        from jeepney import DBusAddress, MessageType, new_method_call

        address = DBusAddress(path, bus_name=bus_name, interface=MOCK_IFACE)
        reply = self._conn.send_and_get_reply(new_method_call(address, method, signature, args),
                                              timeout=timeout_s)
        assert reply.header.message_type == MessageType.method_return, reply.body
        return reply.body

    def press(self, session: str, shortcut_id: str = "push-to-talk") -> None:
        """The desktop's key goes down (Activated)."""
        self.mock("Press", "os", (session, shortcut_id))

    def release(self, session: str, shortcut_id: str = "push-to-talk") -> None:
        """The desktop's key comes up (Deactivated)."""
        self.mock("Release", "os", (session, shortcut_id))

    def wait_call(self, method: str, path: str = MAIN_PATH,
                  timeout_s: float = 30.0) -> list[Any]:
        """The arguments of the first call of ``method`` on ``path`` (waits for it)."""
        from jeepney import HeaderFields

        deadline = time.monotonic() + timeout_s
        while True:
            while self._calls:
                msg = self._calls.popleft()
                self._seen.append((msg.header.fields.get(HeaderFields.path, ""),
                                   msg.body[0], [arg[1] for arg in msg.body[1]]))
            for seen_path, name, args in self._seen:
                if name == method and seen_path == path:
                    return args
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the fake desktop saw no {method} on {path} in "
                                     f"{timeout_s} s; it saw {[s[:2] for s in self._seen]}\n"
                                     f"{self.log('portal')}")
            try:
                self._conn.recv_messages(timeout=left)
            except TimeoutError:
                pass

    def overhear(self, interface: str, member: str, kind: str = "method_call") -> deque[Any]:
        """From now on, a copy of every call (or ``kind="signal"``) of ``interface.member``
        on the bus (eavesdropped: this bus allows it), in the returned queue;
        ``wait_overheard`` waits on it."""
        from jeepney import MatchRule, message_bus

        rule = MatchRule(type=kind, interface=interface, member=member, eavesdrop=True)
        self._conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=30)
        heard: deque[Any] = deque()
        self._overheard.append(self._conn.filter(rule, queue=heard))
        return heard

    def wait_overheard(self, heard: deque[Any], timeout_s: float = 30.0) -> Any:
        """The first message in ``heard`` (waits for it)."""
        deadline = time.monotonic() + timeout_s
        while not heard:
            left = deadline - time.monotonic()
            assert left > 0, f"no call overheard in {timeout_s} s"
            try:
                self._conn.recv_messages(timeout=left)
            except TimeoutError:
                pass
        return heard.popleft()

    def calls(self, method: str, bus_name: str = BACKEND_NAME) -> list[Any]:
        """The fake desktop's calls of ``method`` so far (its own log, not the signals)."""
        return [args for _, args in self.mock("GetMethodCalls", "s", (method,),
                                              bus_name=bus_name)[0]]

    # -- stop -----------------------------------------------------------------------------
    def log(self, name: str) -> str:
        """The last lines of a child's stderr (for failure messages)."""
        path = self.tmp / f"{name}.stderr"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-30:])

    def close(self) -> None:
        """Stop the portal, the fake desktop and the bus; remove the folder."""
        if self._conn is not None:
            self._conn.close()
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)
            if proc.stdout is not None:
                proc.stdout.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

