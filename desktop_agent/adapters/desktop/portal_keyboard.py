"""Typing through the RemoteDesktop portal's keyboard: Wayland on GNOME and KDE (jeepney).

Under Wayland a program cannot press keys in another's window. GNOME and KDE offer it through
the desktop portal instead: ``org.freedesktop.portal.RemoteDesktop`` gives an app a virtual
keyboard once the user has allowed it in the desktop's dialog. ``PortalKeyboard.type(text)``:

1. the first time, on the session bus of the environment it was given (``portal_bus.Link``):
   the portal's ``AvailableDeviceTypes`` must offer a keyboard; then ``CreateSession``,
   ``SelectDevices`` (a keyboard; ``persist_mode`` 2 and the restore token an earlier run was
   given, so the desktop may let it in without asking again) and ``Start`` (the dialog, the
   first time: up to ``DIALOG_TIMEOUT_S``). The restore token in Start's results is kept in
   ``token_file`` (mode 0600) for the next run. A portal that will not persist a remote
   desktop grant (it refuses the options) is asked again without them.
2. each character as ``NotifyKeyboardKeysym`` down and up (``core.desktop.keysyms``: the X
   keysyms are xkbcommon's); a line break as a space (the focused window cannot be known
   here: a Return could send a message or run a terminal's line).

The session stays open for the app's life (it ends with the connection) and serves every
later ``type``. A session the desktop closed (the user may have revoked it) is opened again
once, without the restore token, so the desktop asks the user; a token the portal refuses,
or a start that gives none, is forgotten. The token is written to a new file (0600) that
then replaces the old one.

Answers, never raised: ``type`` returns what it left untyped: '' when all was typed; all
of it when this keyboard cannot type here, and from then on for the rest of the run (no
portal, no keyboard offered, the user said no, no answer in time: ``problem`` says which,
logged once), so the caller goes on to its other ways (``x11_typing``: wtype, then the
clipboard) without a dialog at every word, and with only the rest when a session failed
part way (nothing typed twice).

Threads: whichever thread types, one at a time (``x11_typing``'s typing lock); ``close``
from any thread interrupts a dialog wait.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from desktop_agent.adapters.desktop import portal_protocol as rules
from desktop_agent.adapters.desktop.portal_bus import (
    BusError,
    Interrupted,
    Link,
    error_of,
    fields,
    name_owner_rule,
)
from desktop_agent.adapters.desktop.portal_protocol import BUS_NAME, OBJECT_PATH, SESSION_IFACE
from desktop_agent.adapters.desktop.portal_request import Halt, PortalRequests
from desktop_agent.core.desktop.keysyms import keysym_of
from desktop_agent.core.errors import DesktopError

_LOGGER = logging.getLogger(__name__)

REMOTE_IFACE: Final = "org.freedesktop.portal.RemoteDesktop"
KEYBOARD: Final = 1
"""The keyboard's bit in the portal's device types (2 is the pointer, 4 a touchscreen)."""
PERSISTENT: Final = 2
"""``persist_mode``: keep the grant until the user revokes it."""
DIALOG_TIMEOUT_S: Final = 60.0
"""How long Start may wait for the user to answer the desktop's dialog."""
REPLY_TIMEOUT_S: Final = 10.0
"""How long any other call may take (no dialog: milliseconds)."""
SPACE: Final = 0x20
PRESSED: Final = 1
RELEASED: Final = 0


class PortalKeyboard:
    """The portal's virtual keyboard for this desktop session; see the module docstring.

    Runs on: the typing thread (one ``type`` at a time).
    """

    def __init__(self, env: Mapping[str, str], token_file: Path) -> None:
        """Use the session bus of ``env``; keep the restore token in ``token_file``."""
        self._address = env.get("DBUS_SESSION_BUS_ADDRESS", "")
        self._token_file = token_file
        self._link: Link | None = None
        self._requests = PortalRequests(_failed)
        self._session = ""
        self._left = ""
        """What ``type`` has still to type."""
        self._revoked = False
        """The desktop closed the last session: the next one is asked for without the
        restore token, so the desktop asks the user again."""
        self._watching = False
        self._closing = False
        """``close`` was called: a bus error after it is the close, not a failure."""
        self._wake_r, self._wake_w = os.pipe()
        self.problem = "" if self._address else "no D-Bus session bus"
        """Why this keyboard does not type here ('' while it may)."""
        self.typed = 0
        """Characters typed through the portal so far (for the log and the tests)."""

    @property
    def session(self) -> str:
        """The open RemoteDesktop session's object path ('' when none)."""
        return self._session

    def type(self, text: str) -> str:
        """Type ``text`` with the portal's keyboard; what is left untyped.

        '' when all of it was typed; all of it when this keyboard cannot type here (see
        ``problem``); the rest when the session failed part way and could not be opened
        again (the caller types that another way, so nothing is typed twice).
        """
        self._left = text
        if self.problem:
            return text
        for attempt in (1, 2):
            try:
                if not self._session:
                    self._open()
                self._keys()
                return ""
            except _SessionGone:
                # Closed by the desktop (the user may have revoked it: the next session is
                # asked for without the restore token, so the desktop asks the user), or a
                # key refused on a session still open (closed first: its keys are let go).
                self._drop_session()
                if attempt == 2:
                    self._give_up("the desktop closed the remote keyboard session twice")
            except Halt as halt:
                self._give_up(halt.problem.message)
            except Interrupted:
                self._give_up("the app is closing")
            except (TimeoutError, BusError, OSError, ValueError) as exc:
                # close() from another thread may shut the connection before this thread
                # sees the wake ("I/O operation on closed epoll object"): that is closing
                self._give_up("the app is closing" if self._closing
                              else f"the session bus failed: {exc}")
            except Exception as exc:  # noqa: BLE001 - a reply of an odd shape: never raised
                _LOGGER.exception("remote keyboard failed")
                self._give_up(f"unexpected {type(exc).__name__}: {exc}")
            if self.problem:
                break
        return self._left

    def close(self) -> None:
        """End a dialog wait, close the session and the connection (any thread)."""
        self._closing = True
        os.write(self._wake_w, b"x")
        link, self._link = self._link, None
        if link is not None:
            try:
                self._requests.dismiss(link)
            except OSError:
                pass
            link.close()
        self._session = ""
        self.problem = self.problem or "closed"

    def __del__(self) -> None:
        # The wake pipe outlives close(): a thread may still be selecting on it then.
        for fd in (getattr(self, "_wake_r", -1), getattr(self, "_wake_w", -1)):
            if fd >= 0:
                os.close(fd)

    def offered(self) -> str:
        """Why the portal offers no keyboard here ('' when it does); asks nothing of the user.

        For ``desktop-agent doctor``: one property read, no session, no dialog.
        """
        if self.problem:
            return self.problem
        try:
            _keyboard_offered(self._connected())
        except Halt as halt:
            return halt.problem.message
        except (Interrupted, TimeoutError, BusError, OSError, ValueError) as exc:
            return f"the session bus failed: {exc}"
        return ""

    # -- the session ----------------------------------------------------------------------
    def _connected(self) -> Link:
        """The connection to the session bus, opened on first use."""
        if self._link is None:
            self._link = Link(self._address, self._wake_r, timeout_s=REPLY_TIMEOUT_S)
        return self._link

    def _open(self) -> None:
        from jeepney import MatchRule, new_method_call

        link = self._connected()
        remote = _remote()
        _keyboard_offered(link)
        self._requests.portal_owner = str(link.bus("GetNameOwner", "s", (BUS_NAME,))[0])
        if not self._watching:  # a portal that goes away mid-dialog ends the wait at once
            link.add_match(name_owner_rule(BUS_NAME))
            self._watching = True
        token = "" if self._revoked else self._saved_token()
        # A stale token is dropped; a portal that will not let a remote desktop grant last
        # (it refuses the options) is asked without them.
        tries = [(True, token), *([(True, "")] if token else []), (False, "")]
        for n, (persist, given) in enumerate(tries):
            self._create(link, remote)
            try:
                self._select(link, remote, persist=persist, token=given)
                break
            except Halt as halt:
                if given:
                    self._forget_token()  # refused: it will not be offered again
                if n == len(tries) - 1:
                    raise
                _LOGGER.info("remote keyboard: SelectDevices refused %s (%s)",
                             "the restore token" if given else "a lasting grant",
                             halt.problem.message)
                self._close_session(link)
        results = self._requests.call(link, "start the remote keyboard", lambda t: (
            new_method_call(remote, "Start", "osa{sv}",
                            (self._session, "", {"handle_token": ("s", t)}))),
            DIALOG_TIMEOUT_S)  # the desktop's dialog, unless the restore token let us in
        devices = int(rules.unwrap(results.get("devices", ("u", 0))))
        if not devices & KEYBOARD:
            raise Halt(_failed("give the keyboard", "the dialog left it out"))
        new_token = rules.unwrap(results.get("restore_token", ("s", "")))
        if persist and isinstance(new_token, str) and new_token:
            if new_token != given:
                self._save_token(new_token)
        else:
            self._forget_token()  # no lasting grant now: an old token would only be refused
        self._revoked = False
        link.add_match(MatchRule(type="signal", sender=BUS_NAME, interface=SESSION_IFACE,
                                 member="Closed", path=self._session))
        _LOGGER.info("remote keyboard: session %s started (lasting grant: %s)", self._session,
                     bool(persist and new_token))

    def _create(self, link: Link, remote: Any) -> None:
        from jeepney import new_method_call

        session_token = self._requests.token()
        results = self._requests.call(link, "start a remote keyboard session", lambda t: (
            new_method_call(remote, "CreateSession", "a{sv}", (
                {"handle_token": ("s", t), "session_handle_token": ("s", session_token)},))),
            REPLY_TIMEOUT_S)
        self._session = str(rules.unwrap(results.get("session_handle", ""))) or \
            rules.session_path(link.unique_name, session_token)

    def _select(self, link: Link, remote: Any, *, persist: bool, token: str) -> None:
        from jeepney import new_method_call

        options: dict[str, tuple[str, Any]] = {"types": ("u", KEYBOARD)}
        if persist:
            options["persist_mode"] = ("u", PERSISTENT)
            if token:
                options["restore_token"] = ("s", token)
        self._requests.call(link, "choose the keyboard", lambda t: new_method_call(
            remote, "SelectDevices", "oa{sv}",
            (self._session, {"handle_token": ("s", t), **options})), REPLY_TIMEOUT_S)

    def _close_session(self, link: Link) -> None:
        from jeepney import DBusAddress, new_method_call

        if self._session:
            session = DBusAddress(self._session, bus_name=BUS_NAME, interface=SESSION_IFACE)
            link.call(new_method_call(session, "Close"))
        self._session = ""

    def _drop_session(self) -> None:
        """After ``_SessionGone``: close a session the desktop did not say it closed."""
        link = self._link
        if self._session and not self._revoked and link is not None:
            try:
                self._close_session(link)
            except (TimeoutError, BusError, OSError, ValueError, Interrupted):
                pass  # the next steps find out what is wrong with the bus
        self._session = ""

    # -- the keys -------------------------------------------------------------------------
    def _keys(self) -> None:
        """Type ``_left``. A character is taken off before its key goes down and put back
        only when the portal refused that press: whatever else goes wrong, the caller
        types the rest, never a character twice (one may be lost)."""
        from jeepney import new_method_call

        link = self._link
        if link is None:  # close() from another thread
            raise Interrupted
        self._check_closed(link)
        remote = _remote()
        while self._left:
            char, self._left = self._left[0], self._left[1:]
            keysym = SPACE if char in "\r\n" else keysym_of(char)
            for state in (PRESSED, RELEASED):
                reply = link.call(new_method_call(
                    remote, "NotifyKeyboardKeysym", "oa{sv}iu",
                    (self._session, {}, keysym, state)))
                error = error_of(reply)
                if error is not None:
                    if state == PRESSED:  # not typed: first in the rest
                        self._left = char + self._left
                    # A key that went down was typed (a closed session's keys are let go
                    # by the desktop): the rest starts after it.
                    self._check_closed(link)
                    _LOGGER.info("remote keyboard: a key was refused (%s: %s)", *error)
                    raise _SessionGone
            self.typed += 1

    def _check_closed(self, link: Link) -> None:
        """Raise ``_SessionGone`` when the desktop closed our session (a signal kept)."""
        for msg in list(link.backlog):
            found = fields(msg)
            if (found["interface"], found["member"], found["path"]) == (
                    SESSION_IFACE, "Closed", self._session) and (
                    found["sender"] == self._requests.portal_owner):
                link.backlog.remove(msg)
                self._revoked = True
                raise _SessionGone

    # -- the restore token ----------------------------------------------------------------
    def _saved_token(self) -> str:
        try:
            return self._token_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return ""

    def _save_token(self, token: str) -> None:
        """Keep ``token`` for the next start: readable by the user alone, written whole."""
        folder = self._token_file.parent
        temp = folder / f".{self._token_file.name}.{os.getpid()}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                os.fchmod(out.fileno(), 0o600)
                out.write(token + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, self._token_file)
        except OSError as exc:  # the grant lasts this run; the next asks again
            temp.unlink(missing_ok=True)
            _LOGGER.warning("remote keyboard: could not keep the restore token in %s (%s)",
                            self._token_file, exc)

    def _forget_token(self) -> None:
        try:
            self._token_file.unlink(missing_ok=True)
        except OSError as exc:
            _LOGGER.warning("remote keyboard: could not remove %s (%s)", self._token_file, exc)

    def _give_up(self, why: str) -> None:
        self.problem = why
        _LOGGER.info("remote keyboard off for this run: %s", why)
        link, self._link = self._link, None
        if link is not None:
            link.close()
        self._session = ""


def _remote() -> Any:
    """The portal's RemoteDesktop interface, as jeepney addresses it."""
    from jeepney import DBusAddress

    return DBusAddress(OBJECT_PATH, bus_name=BUS_NAME, interface=REMOTE_IFACE)


def _keyboard_offered(link: Link) -> None:
    """Halt unless the portal's RemoteDesktop offers a keyboard."""
    from jeepney import Properties

    reply = link.call(Properties(_remote()).get("AvailableDeviceTypes"))
    error = error_of(reply)
    if error is not None:
        raise Halt(_failed("offer a remote desktop", ": ".join(error)))
    if not int(rules.unwrap(reply.body[0])) & KEYBOARD:
        raise Halt(_failed("offer a keyboard", "its remote desktop has none"))


def _failed(step: str, detail: str) -> DesktopError:
    """A step of the remote keyboard that failed (only logged: the caller types another way)."""
    return DesktopError("portal_keyboard_failed",
                        f"The desktop portal could not {step} ({detail}).",
                        "text is typed with wtype or put on the clipboard instead")


class _SessionGone(Exception):  # noqa: N818 - a state, not an error
    """The desktop closed our session, or refused a key on it."""
