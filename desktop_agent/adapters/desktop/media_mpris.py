"""The media players on the session bus, through MPRIS (jeepney, blocking, on the tool thread).

``MprisPlayers`` is the ``core.tools.media.MediaPlayers`` the app, ``ask`` and ``replay``
use. Every player that follows the MPRIS spec (specifications.freedesktop.org/mpris-spec)
owns a bus name ``org.mpris.MediaPlayer2.*`` and the object ``/org/mpris/MediaPlayer2``:
its ``PlaybackStatus`` and ``Metadata`` (``xesam:title``, ``xesam:artist``) say what it
plays, and ``Play``/``Pause``/``Next``/``Previous`` act on it. Browsers, Spotify, VLC, mpv
(with mpv-mpris), Rhythmbox and most players do.

Each call opens its own connection and closes it (the tool thread is the only user, and a
media key is rare), waits at most ``timeout_s`` for any reply, and never raises anything but
``AgentError``: no session bus is a spoken answer; a player that vanished or refused a call
is left out or said so.

Runs on: the tool thread (a worker thread: the GUI thread never waits on D-Bus).
"""

from __future__ import annotations

import logging
from typing import Any, Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.media import Player

_LOGGER = logging.getLogger(__name__)
PREFIX: Final = "org.mpris.MediaPlayer2."
PROXY = "org.mpris.MediaPlayer2.playerctld"
"""playerctl's proxy: it mirrors a real player, which is listed too (not a player of its own)."""
PATH: Final = "/org/mpris/MediaPlayer2"
ROOT_IFACE: Final = "org.mpris.MediaPlayer2"
PLAYER_IFACE: Final = "org.mpris.MediaPlayer2.Player"
TIMEOUT_S: Final = 2.0
"""The longest any one bus call may take (a hung player must not hang the turn)."""
NO_BUS: Final = ("no_session_bus", "I can't reach the desktop's message bus, so I can't "
                 "control media players.", "run the assistant inside your desktop session "
                 "(DBUS_SESSION_BUS_ADDRESS must be set)")


def _variant(value: Any) -> Any:
    """The value of a jeepney variant ``(signature, value)``."""
    return value[1] if isinstance(value, tuple) and len(value) == 2 else value


def _first_text(value: Any) -> str:
    value = _variant(value)
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value if str(v).strip())
    return str(value) if value is not None else ""


class MprisPlayers:
    """The MPRIS players on a session bus.

    Runs on: the tool thread.
    """

    def __init__(self, address: str | None = None, *, timeout_s: float = TIMEOUT_S) -> None:
        """Use the bus at ``address`` (default: the session bus of the environment)."""
        self._address = address
        self._timeout_s = timeout_s
        self._recent: str | None = None

    @property
    def recent(self) -> str | None:
        """The bus name of the player last acted on, or None."""
        return self._recent

    def _connect(self) -> Any:
        from jeepney.io.blocking import open_dbus_connection

        try:
            return open_dbus_connection(bus=self._address or "SESSION",
                                        auth_timeout=self._timeout_s)
        except (OSError, KeyError, ValueError, TimeoutError) as exc:
            _LOGGER.info("turn=0 no session bus for MPRIS: %s", exc.__class__.__name__)
            raise AgentError(*NO_BUS) from None

    def _call(self, conn: Any, message: Any) -> Any:
        """The reply's body; None when the call failed (an error reply or no reply)."""
        from jeepney import MessageType

        try:
            reply = conn.send_and_get_reply(message, timeout=self._timeout_s)
        except (OSError, TimeoutError):
            return None
        if reply.header.message_type == MessageType.error:
            return None
        return reply.body

    def _player(self, conn: Any, name: str) -> Player | None:
        from jeepney import DBusAddress, Properties

        player = Properties(DBusAddress(PATH, bus_name=name, interface=PLAYER_IFACE))
        body = self._call(conn, player.get_all())
        if body is None:
            return None  # it left the bus, or is not a player after all
        props: dict[str, Any] = body[0]
        meta = _variant(props.get("Metadata", ("a{sv}", {}))) or {}
        root = Properties(DBusAddress(PATH, bus_name=name, interface=ROOT_IFACE))
        ident = self._call(conn, root.get("Identity"))
        return Player(name=name, identity=_first_text(ident[0]) if ident else "",
                      status=str(_variant(props.get("PlaybackStatus", ("s", "Stopped")))),
                      title=_first_text(meta.get("xesam:title", "")),
                      artist=_first_text(meta.get("xesam:artist", "")))

    def players(self) -> list[Player]:
        """Every running MPRIS player, in bus-name order, with its state now."""
        from jeepney import message_bus

        conn = self._connect()
        try:
            body = self._call(conn, message_bus.ListNames())
            names = sorted(n for n in (body[0] if body else ())
                           if n.startswith(PREFIX) and n != PROXY)
            found = [self._player(conn, name) for name in names]
            return [p for p in found if p is not None]
        finally:
            conn.close()

    def command(self, name: str, method: str) -> None:
        """Call ``method`` on the player ``name`` (Play, Pause, Next, Previous)."""
        from jeepney import DBusAddress, new_method_call

        conn = self._connect()
        try:
            address = DBusAddress(PATH, bus_name=name, interface=PLAYER_IFACE)
            if self._call(conn, new_method_call(address, method)) is None:
                raise AgentError("media_player_refused",
                                 f"The media player did not accept {method.lower()}.",
                                 "try it in the player itself")
            self._recent = name
        finally:
            conn.close()
