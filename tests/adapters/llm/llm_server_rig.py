"""Servers for the LLM-server tests: llama.cpp's real ``llama-server``, and tiny scripted ones.

``LlamaServer`` starts llama.cpp's own ``llama-server`` on 127.0.0.1 and a free port, and
waits until ``/health`` says ok. The binary is the one ``scripts/setup.sh test`` builds from
the llama.cpp that the pinned llama-cpp-python sdist vendors, with the wheel's portable CPU
flags, and copies into the venv beside the interpreter (``DESKTOP_AGENT_LLAMA_SERVER``
names another one).

``ScriptedServer`` accepts connections on loopback and hands each to a function: it
can stall after the request (a slow server), answer with an HTTP error, or stream a
scripted SSE reply, and it records what arrived (the request's headers and body) and
whether the client hung up.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from tests.needs import unavailable

THREADS = 2
CONTEXT = 2048
BINARY_ENV = "DESKTOP_AGENT_LLAMA_SERVER"
"""Names a llama-server binary to use instead of the venv's."""


def llama_server_binary() -> Path:
    """The venv's ``llama-server``, or ``$DESKTOP_AGENT_LLAMA_SERVER`` (skip here, fail in CI,
    when absent)."""
    # Not resolved: sys.executable is the venv's bin/python, a link to the base interpreter.
    binary = Path(os.environ.get(BINARY_ENV) or Path(sys.executable).parent / "llama-server")
    if not os.access(binary, os.X_OK):
        unavailable("llama.cpp's llama-server (`bash scripts/setup.sh test` builds it into the "
                    f"venv; {BINARY_ENV} names another)", f"no executable {binary}")
    return binary


def free_port() -> int:
    """A TCP port nothing listens on now (the OS's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """A real llama-server on loopback, serving one GGUF. Use as a context manager."""

    def __init__(self, model: Path, log: Path, ready_within_s: float = 180.0) -> None:
        self.model, self.log_path, self.ready_within_s = model, log, ready_within_s
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The API base, e.g. http://127.0.0.1:41234/v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LlamaServer:
        binary = llama_server_binary()
        for _attempt in range(3):  # the free port may be taken between the check and the bind
            self.port = free_port()
            with self.log_path.open("ab") as log:
                self.proc = subprocess.Popen(
                    [str(binary), "-m", str(self.model), "--host", "127.0.0.1",
                     "--port", str(self.port), "-t", str(THREADS), "-tb", str(THREADS),
                     "-c", str(CONTEXT), "-np", "1", "--no-webui"],
                    stdout=log, stderr=subprocess.STDOUT)
            if self._wait_ready():
                return self
            reason = _exit_reason(self.proc)
            exited = self.proc.returncode is not None and self.proc.returncode > 0
            self.stop()
            if not exited:
                break  # a signal (SIGILL: built for a newer CPU) or a hang: no retry cures it
        raise RuntimeError(f"{binary} did not start ({reason}); its log: {self.log_path}")

    def _wait_ready(self) -> bool:
        """Poll /health until it says ok (True), the process exits or time runs out."""
        deadline = time.monotonic() + self.ready_within_s
        assert self.proc is not None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health",
                                            timeout=2) as r:
                    if r.status == 200:
                        return True
            except OSError:
                pass  # not listening yet, or 503 while the model loads
            time.sleep(0.1)  # between polls of a condition, not a wait for time to pass
        return False

    def stop(self) -> None:
        """End the server (SIGTERM, then SIGKILL)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def _exit_reason(proc: subprocess.Popen[bytes] | None) -> str:
    """How the server ended, in words: 'exit status 1', 'killed by SIGILL', 'no answer'."""
    code = None if proc is None else proc.returncode
    if code is None:
        return "no answer on /health in time"
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


# --- scripted servers ---------------------------------------------------------------------------


class Request:
    """What one client sent: the request line and headers, and the JSON body."""

    def __init__(self, head: str, body: bytes) -> None:
        self.head = head
        self.body = body

    def header(self, name: str) -> str | None:
        for line in self.head.split("\r\n")[1:]:
            key, _, value = line.partition(":")
            if key.strip().lower() == name.lower():
                return value.strip()
        return None

    def json(self) -> Any:
        return json.loads(self.body)


Handler = Callable[[socket.socket, Request, "ScriptedServer"], None]


class ScriptedServer:
    """A loopback TCP server that hands each connection, after its request, to ``handler``.

    Attributes: ``requests`` (each Request in order), ``accepted`` (set on the first
    connection), ``hung_up`` (set when a client closed its side while the handler held
    the connection open: a cancelled or timed-out request).
    """

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = int(self.sock.getsockname()[1])
        self.requests: list[Request] = []
        self.accepted = threading.Event()
        self.hung_up = threading.Event()
        self.release = threading.Event()
        """Set to let stalling handlers go (the server is closing)."""
        self._conns: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self._conns.append(conn)
            self.accepted.set()
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with suppress(OSError), conn:
            data = b""
            while b"\r\n\r\n" not in data:
                piece = conn.recv(65536)
                if not piece:
                    return
                data += piece
            head, _, body = data.partition(b"\r\n\r\n")
            text = head.decode("latin-1")
            length = int(Request(text, b"").header("Content-Length") or 0)
            while len(body) < length:
                piece = conn.recv(65536)
                if not piece:
                    return
                body += piece
            request = Request(text, body)
            self.requests.append(request)
            self.handler(conn, request, self)

    def stall(self, conn: socket.socket) -> None:
        """Hold ``conn`` open, sending nothing, until the client hangs up or ``release``."""
        conn.settimeout(0.05)
        while not self.release.is_set():
            try:
                if conn.recv(1024) == b"":
                    self.hung_up.set()
                    return
            except TimeoutError:
                continue
            except OSError:
                self.hung_up.set()
                return

    def close(self) -> None:
        self.release.set()
        with suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes a blocked accept; close alone does not
        self.sock.close()
        self._thread.join(5)
        for conn in self._conns:
            with suppress(OSError):
                conn.close()


@contextmanager
def scripted(handler: Handler) -> Iterator[ScriptedServer]:
    server = ScriptedServer(handler)
    try:
        yield server
    finally:
        server.close()


def stalls(conn: socket.socket, _request: Request, server: ScriptedServer) -> None:
    """A server that accepts the request and never answers."""
    server.stall(conn)


def answers(status: int, body: bytes, content_type: str = "application/json") -> Handler:
    """A server that answers every request with ``status`` and ``body``."""
    def handler(conn: socket.socket, _request: Request, _server: ScriptedServer) -> None:
        conn.sendall(f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                     + body)
    return handler


def streams(events: list[Any], then_stall: bool = False) -> Handler:
    """A server that streams ``events`` as SSE (dicts as JSON, str as is), chunked."""
    def handler(conn: socket.socket, _request: Request, server: ScriptedServer) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        for event in events:
            data = event if isinstance(event, str) else json.dumps(event)
            line = f"data: {data}\n\n".encode()
            conn.sendall(f"{len(line):x}\r\n".encode() + line + b"\r\n")
        if then_stall:
            server.stall(conn)
            return
        conn.sendall(b"0\r\n\r\n")
    return handler


def text_event(text: str, finish: str | None = None) -> dict[str, Any]:
    """One chat-completion chunk carrying ``text``."""
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}
