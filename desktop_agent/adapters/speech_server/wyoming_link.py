"""One connection to a Wyoming speech server: address, connect, send and read events, timeouts.

Wyoming (Home Assistant's voice protocol, the ``wyoming`` package) is one JSON header line per
event, then optional JSON data and binary payload, over TCP or a Unix socket. Every request
here opens its own connection (as the servers expect: one transcription or one synthesis per
connection) and reads with a deadline, so a server that is down, silent or drops the line
costs at most ``timeout_s`` and ends in a typed error, never a hang. The protocol has no
encryption and no authentication: ``core.speech_server.address.is_local_address`` tells
when to warn.

Runs on: the worker thread of the engine that uses it (blocking sockets).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import IO, Any

from desktop_agent.core.errors import AgentError
from desktop_agent.core.speech_server.address import URI_FIX, ServerAddress, parse_address

DEFAULT_TIMEOUT_S = 10.0
"""The longest wait for any one reply event, seconds."""
CONNECT_TIMEOUT_S = 2.0
"""The longest wait to reach the server, seconds: a down server answers at once or never."""


def parse_uri(uri: str, make_error: Callable[[str, str, str], AgentError]) -> ServerAddress:
    """Read ``uri``; a bad one raises ``make_error(code, message, fix)``."""
    address = parse_address(uri)
    if address is None:
        raise make_error("speech_server_bad_uri", f"The speech server address {uri!r} is not "
                         "one this app can reach.", URI_FIX)
    return address


class WyomingLink:
    """One request's connection: ``send`` events, ``read`` them back, ``close``.

    Args:
        address: The server.
        timeout_s: The longest wait for each reply event.
        make_error: Builds the engine's typed error (AsrError, TtsError) from a code, a
            message and a fix.
    """

    def __init__(self, address: ServerAddress, timeout_s: float,
                 make_error: Callable[[str, str, str], AgentError]) -> None:
        """Connect now; a server that cannot be reached raises ``speech_server_down``."""
        self.address = address
        self.timeout_s = timeout_s
        self._error = make_error
        family = socket.AF_UNIX if address.scheme == "unix" else socket.AF_INET
        target: Any = address.path if address.scheme == "unix" else (address.host, address.port)
        try:
            if family == socket.AF_INET:
                self._sock = socket.create_connection(target, timeout=CONNECT_TIMEOUT_S)
            else:
                self._sock = socket.socket(family, socket.SOCK_STREAM)
                self._sock.settimeout(CONNECT_TIMEOUT_S)
                self._sock.connect(target)
        except OSError as exc:
            raise self.down(f"cannot be reached ({exc.strerror or exc})") from exc
        self._sock.settimeout(timeout_s)
        self._file: IO[bytes] = self._sock.makefile("rwb")

    def down(self, what: str) -> AgentError:
        """The typed error for a server that failed: ``speech_server_down``."""
        return self._error("speech_server_down", f"The speech server at {self.address.uri} "
                           f"{what}.", "Check that it runs and that this computer can reach "
                           "it; until then this computer's own engine answers.")

    def send(self, *eventables: Any) -> None:
        """Write events (``wyoming`` Eventables) and flush."""
        from wyoming.event import write_event

        try:
            for item in eventables:
                write_event(item.event(), self._file)
            self._file.flush()
        except OSError as exc:
            raise self.down(f"dropped the connection ({exc})") from exc

    def read(self, deadline: float | None = None) -> Any:
        """The next event; a closed connection or a silent server raises ``down``.

        ``deadline`` (monotonic seconds) bounds the whole wait as well as each read.
        """
        from wyoming.event import read_event

        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self.down(f"did not answer within {self.timeout_s:g} s")
            self._sock.settimeout(min(self.timeout_s, left))
        try:
            event = read_event(self._file)
        except TimeoutError as exc:
            raise self.down(f"did not answer within {self.timeout_s:g} s") from exc
        except (OSError, ValueError) as exc:
            raise self.down(f"dropped the connection ({exc})") from exc
        if event is None:
            raise self.down("closed the connection before answering")
        if event.type == "error":
            text = str(event.data.get("text", "")) if event.data else ""
            raise self._error("speech_server_error", f"The speech server at "
                              f"{self.address.uri} reported an error: {text or 'no details'}.",
                              "Check the server's log; until then this computer's own "
                              "engine answers.")
        return event

    def close(self) -> None:
        """Close the connection (idempotent)."""
        for closer in (self._file.close, self._sock.close):
            try:
                closer()
            except OSError:
                pass

    def __enter__(self) -> WyomingLink:
        """Use as a context manager: closed on exit."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the connection."""
        self.close()


def describe(address: ServerAddress, timeout_s: float,
             make_error: Callable[[str, str, str], AgentError]) -> tuple[Any, float]:
    """Ask the server what it offers: (its ``wyoming.info.Info``, round trip in seconds)."""
    from wyoming.info import Describe, Info

    start = time.monotonic()
    with WyomingLink(address, timeout_s, make_error) as link:
        link.send(Describe())
        deadline = start + timeout_s
        while True:
            event = link.read(deadline)
            if Info.is_type(event.type):
                return Info.from_event(event), time.monotonic() - start
