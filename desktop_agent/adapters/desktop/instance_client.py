"""Talking to the running app over its control socket, and the start-up lock. Stdlib only.

``send`` is the whole client of ``desktop-agent ptt|show|quit``: connect, one request line,
one reply line. It imports no Qt and starts nothing: with no app listening it raises
AgentError('no_instance'), and the caller exits non-zero.

``claim_instance`` is what a GUI launch does before it loads anything: if an app already
answers, ask it to ``show`` its window (the launch then exits 0); otherwise take the lock
(``flock`` on ``instance.lock``, held for the app's life; the kernel drops it when the
process dies, so a killed app leaves no stale lock). If another launch holds the lock but
does not listen yet, wait for its socket a few seconds and then ask it to show: two launches
racing through start-up leave one app.
"""

from __future__ import annotations

import fcntl
import os
import socket
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from desktop_agent.adapters.desktop.instance_protocol import (
    LOCK_NAME,
    MAX_LINE,
    Reply,
    Request,
    control_dir,
    encode_request,
    parse_reply,
    socket_path,
)
from desktop_agent.core.errors import AgentError

REPLY_TIMEOUT_S: Final = 2.0
"""How long a command waits for the running app's answer, seconds (it takes milliseconds;
longer means its GUI thread is stuck)."""
START_REPLY_TIMEOUT_S: Final = 10.0
"""A second launch waits this long for ``show``'s answer: an app starting up may be busy."""
START_WAIT_S: Final = 15.0
"""How long a launch that lost the lock waits for the winner's socket, seconds."""
POLL_S: Final = 0.05
"""How often that launch looks again, seconds."""


def no_instance() -> AgentError:
    """The error of a command with no app to talk to."""
    return AgentError("no_instance", "No desktop-agent is running.",
                      "Start it with 'desktop-agent' first.")


def current_dir() -> Path:
    """This user's control folder (``instance_protocol.control_dir`` for this process)."""
    return control_dir(os.environ, os.getuid(), tempfile.gettempdir())


def send(request: Request, folder: Path | None = None, *,
         timeout_s: float = REPLY_TIMEOUT_S) -> Reply:
    """Send ``request`` to the app listening in ``folder`` (default: ``current_dir()``).

    Returns its reply (which may be a failure, e.g. 'starting'). Raises AgentError:
    'no_instance' (no socket, or nothing listening on it), 'instance_not_answering'
    (connected, but no answer within ``timeout_s``), 'control_socket_failed' (other OS errors).
    """
    path = socket_path(folder or current_dir())
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout_s)
        try:
            sock.connect(os.fsencode(path))
            sock.sendall(encode_request(request))
            line = _read_line(sock)
        except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError) as exc:
            raise no_instance() from exc
        except TimeoutError as exc:
            raise AgentError("instance_not_answering",
                             f"desktop-agent is running but did not answer within "
                             f"{timeout_s:g} s.", "Wait a moment and try again; if it stays "
                             "stuck, close it and start it again.") from exc
        except OSError as exc:
            raise AgentError("control_socket_failed",
                             f"Cannot talk to desktop-agent over {path}: {exc.strerror or exc}.",
                             "Close it and start it again.") from exc
    return parse_reply(line)


def _read_line(sock: socket.socket) -> bytes:
    data = b""
    while b"\n" not in data and len(data) <= MAX_LINE:
        chunk = sock.recv(MAX_LINE)
        if not chunk:
            break  # closed without a whole line: parse_reply says it is unreadable
        data += chunk
    return data.split(b"\n", 1)[0]


def answers(path: Path) -> bool:
    """True when something accepts connections on the socket ``path`` (a live app)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        try:
            sock.connect(os.fsencode(path))
        except OSError:
            return False
    return True


class InstanceLock:
    """The start-up lock: ``flock`` on a file, held until ``release`` or the process ends."""

    def __init__(self, fd: int, path: Path) -> None:
        """Wrap the locked file descriptor ``fd`` of ``path``."""
        self._fd: int | None = fd
        self.path = path

    @classmethod
    def try_take(cls, path: Path) -> InstanceLock | None:
        """Take the lock on ``path`` without waiting; None when another process holds it."""
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())  # for a person looking; the lock is the flock
        return cls(fd, path)

    def release(self) -> None:
        """Let the next launch be the app (idempotent)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


@dataclass(frozen=True, slots=True)
class Claim:
    """What a GUI launch found: the lock (it is the app) or another app's answer to ``show``."""

    folder: Path
    """The control folder (made private)."""
    lock: InstanceLock | None
    """Held: this launch is the app, and listens in ``folder``. None: forwarded."""
    reply: Reply | None
    """The running app's answer to ``show`` (None when this launch is the app)."""


def claim_instance(folder: Path, *, activation_token: str = "",
                   wait_s: float = START_WAIT_S) -> Claim:
    """Become the app, or ask the running one to show its window (see the module docstring).

    ``folder`` must already be private (``ensure_private_dir``). Raises AgentError when
    another launch holds the lock and does not listen within ``wait_s`` ('instance_starting'),
    or an app is there but stuck ('instance_not_answering'): never a second app.
    """
    show = Request("show", activation_token)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return Claim(folder, None, send(show, folder, timeout_s=START_REPLY_TIMEOUT_S))
        except AgentError as exc:
            if exc.code != "no_instance":
                raise
        lock = InstanceLock.try_take(folder / LOCK_NAME)
        if lock is not None:
            return Claim(folder, lock, None)
        if time.monotonic() >= deadline:
            raise AgentError("instance_starting",
                             f"Another desktop-agent is starting, but it did not open its "
                             f"control socket within {wait_s:g} s.",
                             "Wait until its window opens, or end that process, then start "
                             "again.")
        time.sleep(POLL_S)  # the winner opens its socket within a second of starting
