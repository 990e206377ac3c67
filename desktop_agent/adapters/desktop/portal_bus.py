"""One thread's D-Bus connection whose every wait a stop can cut short (jeepney, blocking I/O).

jeepney's blocking connection waits on its socket alone. ``Link`` waits on the socket and a
wake pipe, so another thread's ``stop()`` ends any wait at once, even one for a desktop dialog
that stays open for minutes. Replies are matched to their calls by serial; whatever else
arrives meanwhile (signals) is kept in order in ``backlog`` for the owner to handle after.

Only the thread that opened a ``Link`` uses it. What its methods raise stays in that thread:
``Interrupted`` (the wake pipe was written), ``TimeoutError`` (past a deadline),
``BusError`` (the bus daemon refused one of its own calls) and ``OSError`` (the bus went away).
"""

from __future__ import annotations

import select
import time
from collections import deque
from typing import Any, Final

BACKLOG: Final = 64
"""Messages kept while waiting for a reply; the oldest go first beyond that."""
_DBUS: Final = "org.freedesktop.DBus"


class Interrupted(Exception):  # noqa: N818 - a request, not an error
    """The wake pipe was written: the owner asked the thread to stop."""


class BusError(Exception):
    """The bus daemon answered one of its own calls (AddMatch, GetNameOwner...) with an error."""


class Link:
    """A blocking jeepney connection on one thread, interruptible through a pipe.

    Runs on: the thread that made it, alone.
    """

    def __init__(self, address: str, wake_fd: int, *, timeout_s: float) -> None:
        """Connect and authenticate (raises what jeepney raises: OSError, ValueError...).

        Args:
            address: the bus address ('unix:path=...').
            wake_fd: the read end of a pipe; a byte written to it interrupts every wait.
            timeout_s: how long authentication and each call may take by default.
        """
        from jeepney.io.blocking import open_dbus_connection

        self._conn: Any = open_dbus_connection(bus=address, auth_timeout=timeout_s)
        self._wake_fd = wake_fd
        self.timeout_s = timeout_s
        self.backlog: deque[Any] = deque(maxlen=BACKLOG)

    @property
    def unique_name(self) -> str:
        """This connection's unique name on the bus (':1.42')."""
        return str(self._conn.unique_name)

    def receive(self, deadline: float | None, *, interruptible: bool = True) -> Any:
        """The next message (not from ``backlog``); TimeoutError past ``deadline``.

        Raises ``Interrupted`` when the wake pipe has a byte (unless not ``interruptible``).
        """
        conn = self._conn
        watched = [conn.sock, self._wake_fd] if interruptible else [conn.sock]
        while True:
            try:
                return conn.receive(timeout=0)  # one already read, or readable now
            except TimeoutError:
                pass
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError("no reply in time")
            ready, _, _ = select.select(watched, [], [], left)
            if interruptible and self._wake_fd in ready:
                raise Interrupted

    def call(self, msg: Any, timeout_s: float | None = None, *,
             interruptible: bool = True) -> Any:
        """Send a method call and return its reply (a method return or an error)."""
        from jeepney import HeaderFields

        serial = next(self._conn.outgoing_serial)
        self._conn.send(msg, serial=serial)
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while True:
            reply = self.receive(deadline, interruptible=interruptible)
            if reply.header.fields.get(HeaderFields.reply_serial) == serial:
                return reply
            self.backlog.append(reply)

    def send(self, msg: Any) -> None:
        """Send a message without waiting for anything."""
        self._conn.send(msg)

    def bus(self, method: str, signature: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Call the bus daemon itself; its reply's arguments (BusError on an error)."""
        from jeepney import DBusAddress, new_method_call

        daemon = DBusAddress("/org/freedesktop/DBus", bus_name=_DBUS, interface=_DBUS)
        reply = self.call(new_method_call(daemon, method, signature, args))
        error = error_of(reply)
        if error is not None:
            raise BusError(f"{method}: {error[0]}: {error[1]}")
        return tuple(reply.body)

    def add_match(self, rule: Any) -> None:
        """Subscribe to what a jeepney ``MatchRule`` matches."""
        self.bus("AddMatch", "s", (rule.serialise(),))

    def remove_match(self, rule: Any) -> None:
        """Undo ``add_match``."""
        self.bus("RemoveMatch", "s", (rule.serialise(),))

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()


def fields(msg: Any) -> dict[str, Any]:
    """A message's sender, and for a signal its path, interface and member ('' / None)."""
    from jeepney import HeaderFields, MessageType

    header = msg.header.fields
    signal = msg.header.message_type == MessageType.signal
    return {"sender": header.get(HeaderFields.sender, ""),
            "path": header.get(HeaderFields.path, "") if signal else "",
            "interface": header.get(HeaderFields.interface) if signal else None,
            "member": header.get(HeaderFields.member) if signal else None}


def error_of(reply: Any) -> tuple[str, str] | None:
    """(error name, its text) when ``reply`` is an error, else None."""
    from jeepney import HeaderFields, MessageType

    if reply.header.message_type != MessageType.error:
        return None
    name = str(reply.header.fields.get(HeaderFields.error_name, "unknown error"))
    text = str(reply.body[0]) if reply.body and isinstance(reply.body[0], str) else ""
    return name, text


def is_name_lost(msg: Any, name: str, owner: str) -> bool:
    """True for the bus's NameOwnerChanged saying ``name`` is no longer ``owner``'s."""
    found = fields(msg)
    body = msg.body
    return (found["member"] == "NameOwnerChanged" and found["sender"] == _DBUS
            and len(body) == 3 and body[0] == name and body[2] != owner)


def name_owner_rule(name: str) -> Any:
    """The match rule for NameOwnerChanged of ``name``."""
    from jeepney import MatchRule

    rule = MatchRule(type="signal", sender=_DBUS, interface=_DBUS, member="NameOwnerChanged")
    rule.add_arg_condition(0, name)
    return rule
