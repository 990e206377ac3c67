"""The control socket's server: the running app answers ``desktop-agent ptt|show|quit``.

A QLocalServer (an AF_UNIX stream socket at the path given, see
``adapters/desktop/instance_protocol.py`` for the protocol and the folder). Each connection
sends one request line and gets one reply line, then is closed; a connection that says
nothing within ``IDLE_MS`` is dropped. The commands run on the GUI thread through an
``InstanceTarget`` (the window's own push-to-talk, cancel, raise and quit: gui/window_remote.py).

The server listens before the window exists (a second launch during start-up finds it):
until ``attach``, ``show`` is kept for the window and the other commands answer 'starting'.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Final, Protocol

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtNetwork import QAbstractSocket, QLocalServer, QLocalSocket

from desktop_agent.adapters.desktop.instance_client import answers
from desktop_agent.adapters.desktop.instance_protocol import (
    MAX_LINE,
    Reply,
    Request,
    encode_reply,
    parse_request,
)
from desktop_agent.core.errors import AgentError

_LOGGER = logging.getLogger(__name__)

IDLE_MS: Final = 2000
"""A connection that sends no whole line within this many milliseconds is closed."""


class InstanceTarget(Protocol):
    """What the commands do in the app; each returns the sentence of what happened.

    Raising AgentError answers the command with that failure. Runs on: GUI thread.
    """

    def ptt_start(self) -> str:
        """Press the talk key."""

    def ptt_stop(self) -> str:
        """Release the talk key (the turn goes on)."""

    def ptt_toggle(self) -> str:
        """Press it if it is up, else release it."""

    def ptt_cancel(self) -> str:
        """Drop the turn."""

    def dictate(self, action: str) -> str:
        """Dictation into the focused window: 'start', 'stop' or 'toggle'."""

    def show(self, activation_token: str) -> str:
        """Bring the window to the front (``activation_token``: the launcher's, or '')."""

    def quit(self) -> str:
        """Close the app as its Quit does (after the reply is sent)."""


class InstanceServer(QObject):
    """Listens on the control socket and runs each command on an ``InstanceTarget``.

    Runs on: GUI thread.
    """

    sig_served = Signal(object, object)
    """(Request | None, Reply): a command was answered (None: the line was not a request)."""

    def __init__(self, parent: QObject | None = None) -> None:
        """A server that does not listen yet (``listen``) and has no target (``attach``)."""
        super().__init__(parent)
        # No UserAccessOption: with it Qt binds elsewhere and renames the socket over the
        # path, silently replacing a live app's socket. The 0700 folder keeps others out.
        self._server = QLocalServer(self)
        self._server.newConnection.connect(self._on_server_new_connection)
        self._target: InstanceTarget | None = None
        self._pending_show: str | None = None
        self._sockets: set[QLocalSocket] = set()  # Python refs until Qt is done with them

    def listen(self, path: Path) -> None:
        """Listen on ``path``; a stale socket left by a killed app is removed first.

        Raises AgentError('instance_running') when a live app answers on ``path``, and
        ('control_socket_failed') when the socket cannot be made.
        """
        name = str(path)
        if self._server.listen(name):
            return
        if self._server.serverError() == QAbstractSocket.SocketError.AddressInUseError:
            if answers(path):
                raise AgentError("instance_running", f"Another desktop-agent listens on {path}.",
                                 "Use that one, or quit it first.")
            _LOGGER.info("control socket: removing the stale %s", path)
            QLocalServer.removeServer(name)
            if self._server.listen(name):
                return
        raise AgentError("control_socket_failed",
                         f"Cannot listen on {path}: {self._server.errorString()}.",
                         "Check the folder's permissions, or set XDG_RUNTIME_DIR.")

    @property
    def path(self) -> str:
        """The socket's path ('' when not listening)."""
        return str(self._server.fullServerName()) if self._server.isListening() else ""

    def attach(self, target: InstanceTarget) -> None:
        """Run the commands on ``target`` from now on (a ``show`` that came early runs now)."""
        self._target = target
        if self._pending_show is not None:
            token, self._pending_show = self._pending_show, None
            target.show(token)

    def close(self) -> None:
        """Stop listening and remove the socket file."""
        self._server.close()

    def serve(self, parsed: Request | Reply) -> Reply:
        """The reply to one parsed request line (the target runs the command)."""
        if isinstance(parsed, Reply):
            return parsed
        target = self._target
        if target is None:
            if parsed.command == "show":
                self._pending_show = parsed.activation_token
                return Reply.done("desktop-agent is starting: its window opens in a moment.")
            return Reply.failed("starting", "desktop-agent is still starting.",
                                "Try again in a moment.")
        handlers: dict[str, Callable[[], str]] = {
            "ptt start": target.ptt_start, "ptt stop": target.ptt_stop,
            "ptt toggle": target.ptt_toggle, "ptt cancel": target.ptt_cancel,
            "dictate start": lambda: target.dictate("start"),
            "dictate stop": lambda: target.dictate("stop"),
            "dictate toggle": lambda: target.dictate("toggle"),
            "show": lambda: target.show(parsed.activation_token), "quit": target.quit,
        }
        try:
            return Reply.done(handlers[parsed.command]())
        except AgentError as exc:
            return Reply.failed(exc.code, exc.message, exc.fix)

    def _on_server_new_connection(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            self._sockets.add(sock)
            sock.readyRead.connect(lambda s=sock: self._on_socket_ready_read(s))
            sock.disconnected.connect(lambda s=sock: self._drop(s))
            QTimer.singleShot(IDLE_MS, sock, lambda s=sock: self._on_socket_idle(s))
            self._on_socket_ready_read(sock)  # the line may have come with the connection

    def _on_socket_ready_read(self, sock: QLocalSocket) -> None:
        if sock.property("answered"):
            return
        if sock.canReadLine():
            line = sock.readLine(MAX_LINE + 1).data()
            parsed = parse_request(bytes(line))
        elif sock.bytesAvailable() > MAX_LINE:
            parsed = parse_request(bytes(MAX_LINE + 1))  # too long: its error reply
        else:
            return  # wait for the rest of the line
        reply = self.serve(parsed)
        request = parsed if isinstance(parsed, Request) else None
        _LOGGER.info("control socket: %s -> %s", request.command if request else "?",
                     "ok" if reply.ok else reply.code)
        sock.setProperty("answered", True)
        sock.write(encode_reply(reply))
        sock.flush()  # written now: a 'quit' closes the app before the loop writes again
        sock.disconnectFromServer()
        self.sig_served.emit(request, reply)

    def _on_socket_idle(self, sock: QLocalSocket) -> None:
        if not sock.property("answered"):
            sock.abort()

    def _drop(self, sock: QLocalSocket) -> None:
        self._sockets.discard(sock)
        sock.deleteLater()
