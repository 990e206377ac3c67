"""The control socket's protocol and where the socket lives. Stdlib only, no Qt.

The running app listens on a local (AF_UNIX stream) socket; ``desktop-agent ptt toggle``
and the like connect, write one request line and read one reply line:

    -> {"command": "ptt toggle"}\\n          (or the bare words: ptt toggle\\n)
    <- {"ok": true, "message": "Listening."}\\n
    <- {"ok": false, "code": "starting", "message": "...", "fix": "..."}\\n

A request is one UTF-8 line of at most ``MAX_LINE`` bytes: a JSON object with ``command``
(one of ``COMMANDS``) and, for ``show``, an optional ``activation_token`` (the launcher's
``XDG_ACTIVATION_TOKEN``, so a Wayland compositor lets the window come to the front); or
the command's words alone, for ``echo ptt toggle | nc -U SOCKET``. A line that is neither is
answered with ``bad_request``, an unknown command with ``unknown_command``: never silence.

Where: ``$XDG_RUNTIME_DIR/desktop-agent/`` (per user, 0700, emptied at logout); without
that variable, ``<temp dir>/desktop-agent-<uid>/``; ``$DESKTOP_AGENT_RUNTIME_DIR`` instead,
when set (a benchmark or test whose app must not meet the user's). The folder holds
``control.sock`` and ``instance.lock`` (the start-up lock, see ``instance_client``).
``ensure_private_dir`` makes it 0700 and refuses a folder that is not the user's own (a
shared temp dir).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from desktop_agent.core.errors import AgentError

PTT_ACTIONS: Final = ("start", "stop", "toggle", "cancel")
"""``desktop-agent ptt ACTION``: press, release, press-or-release, drop the turn."""
DICTATE_ACTIONS: Final = ("start", "stop", "toggle")
"""``desktop-agent dictate ACTION``: start dictating into the focused window, stop, either."""
COMMANDS: Final = (*(f"ptt {a}" for a in PTT_ACTIONS),
                   *(f"dictate {a}" for a in DICTATE_ACTIONS), "show", "quit")
"""Every command the running app answers, as the words of the command line."""
MAX_LINE: Final = 4096
"""Longest request line, bytes (newline included); a longer one is a bad request."""
DIR_NAME: Final = "desktop-agent"
SOCKET_NAME: Final = "control.sock"
LOCK_NAME: Final = "instance.lock"
SUN_PATH_MAX: Final = 107
"""Longest AF_UNIX socket path on Linux, bytes (sun_path is 108 with its NUL)."""


@dataclass(frozen=True, slots=True)
class Request:
    """One command for the running app."""

    command: str
    """One of ``COMMANDS``."""
    activation_token: str = ""
    """``show`` only: the launcher's XDG_ACTIVATION_TOKEN ('' when it had none)."""


@dataclass(frozen=True, slots=True)
class Reply:
    """The running app's answer: done (a sentence of what happened) or failed (code, fix)."""

    ok: bool
    message: str
    """What happened, or what went wrong, in one sentence."""
    code: str = ""
    """Stable code of a failure ('' when ``ok``)."""
    fix: str = ""
    """What to do about a failure."""

    @classmethod
    def done(cls, message: str) -> Reply:
        """A command that was carried out."""
        return cls(True, message)

    @classmethod
    def failed(cls, code: str, message: str, fix: str = "") -> Reply:
        """A command that was not carried out, and why."""
        return cls(False, message, code, fix)

    def describe(self) -> str:
        """The line the user reads: the message, or '[code] message Fix: ...'."""
        if self.ok:
            return self.message
        return AgentError(self.code, self.message, self.fix).describe()


def encode_request(request: Request) -> bytes:
    """The request's line, newline included."""
    fields = {"command": request.command}
    if request.activation_token:
        fields["activation_token"] = request.activation_token
    return (json.dumps(fields) + "\n").encode("utf-8")


def parse_request(line: bytes) -> Request | Reply:
    """The request in ``line`` (its newline optional), or the error reply to send back."""
    if len(line) > MAX_LINE:
        return Reply.failed("bad_request", f"The request is longer than {MAX_LINE} bytes.",
                            "Send one command per line.")
    try:
        text = line.decode("utf-8").strip()
    except UnicodeDecodeError:
        return Reply.failed("bad_request", "The request is not UTF-8 text.",
                            "Send one command per line, e.g. 'ptt toggle'.")
    token = ""
    if text.startswith("{"):
        try:
            fields = json.loads(text)
        except ValueError:
            fields = None
        if not isinstance(fields, dict) or not isinstance(fields.get("command"), str):
            return Reply.failed("bad_request", "The request is not a JSON object with a "
                                "'command' string.", 'Send e.g. {"command": "ptt toggle"}.')
        command, token = fields["command"], fields.get("activation_token", "")
        if not isinstance(token, str):
            return Reply.failed("bad_request", "'activation_token' must be a string.",
                                "Send the launcher's XDG_ACTIVATION_TOKEN, or leave it out.")
    else:
        command = text
    command = " ".join(command.split())
    if command not in COMMANDS:
        return Reply.failed("unknown_command", f"Unknown command {command[:60]!r}.",
                            "Send one of: " + ", ".join(COMMANDS) + ".")
    return Request(command, token if command == "show" else "")


def encode_reply(reply: Reply) -> bytes:
    """The reply's line, newline included."""
    fields: dict[str, object] = {"ok": reply.ok, "message": reply.message}
    if not reply.ok:
        fields.update(code=reply.code, fix=reply.fix)
    return (json.dumps(fields) + "\n").encode("utf-8")


def parse_reply(line: bytes) -> Reply:
    """The reply in ``line``; a garbled one becomes a ``bad_reply`` failure."""
    try:
        fields = json.loads(line.decode("utf-8"))
        return Reply(bool(fields["ok"]), str(fields["message"]), str(fields.get("code", "")),
                     str(fields.get("fix", "")))
    except (ValueError, KeyError, TypeError):
        return Reply.failed("bad_reply", "The running app sent an answer that cannot be read.",
                            "Check that it is the same version as this command.")


def control_dir(env: Mapping[str, str], uid: int, temp_dir: str) -> Path:
    """The folder of the control socket and the lock (nothing is created or checked).

    ``$DESKTOP_AGENT_RUNTIME_DIR`` itself when set (absolute); else
    ``$XDG_RUNTIME_DIR/desktop-agent`` when that variable names an absolute path; else
    ``<temp_dir>/desktop-agent-<uid>``: one folder per user.
    """
    own = env.get("DESKTOP_AGENT_RUNTIME_DIR", "")
    if own and os.path.isabs(own):
        return Path(own)
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime):
        return Path(runtime) / DIR_NAME
    return Path(temp_dir) / f"{DIR_NAME}-{uid}"


def socket_path(folder: Path) -> Path:
    """The control socket in ``folder``. Raises AgentError when the path is too long."""
    path = folder / SOCKET_NAME
    if len(os.fsencode(path)) > SUN_PATH_MAX:
        raise AgentError("socket_path_too_long",
                         f"The control socket path {path} is longer than {SUN_PATH_MAX} bytes.",
                         "Set XDG_RUNTIME_DIR to a shorter folder.")
    return path


def ensure_private_dir(folder: Path) -> Path:
    """Create ``folder`` (mode 0700) or check it: a real folder of this user, made 0700.

    Raises AgentError('control_dir_unsafe') for a symlink, a file, or someone else's folder
    (a name taken in a shared temp dir), and ('control_dir_failed') when it cannot be made.
    """
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise AgentError("control_dir_failed", f"Cannot create {folder}: {exc.strerror}.",
                         "Set XDG_RUNTIME_DIR to a folder of yours.") from exc
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise AgentError("control_dir_unsafe",
                         f"{folder} is not a folder of yours, so the control socket cannot "
                         "go there.", f"Remove {folder}, or set XDG_RUNTIME_DIR to a private "
                         "folder.")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(folder, 0o700)
    return folder
