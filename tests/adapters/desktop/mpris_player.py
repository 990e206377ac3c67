"""Fake MPRIS media players on a private session bus (python-dbusmock), for the media tests.

Each player is its own ``python3 -m dbusmock`` process (the system Python, as the portal tests
run it) owning ``org.mpris.MediaPlayer2.<name>`` with the two MPRIS interfaces. Its methods
are given by the test through dbusmock's Mock interface: Play, Pause, PlayPause and Stop set
``PlaybackStatus``; Next and Previous move through a short track list and update
``Metadata``. dbusmock logs every call (``GetMethodCalls``), so a test asserts the call the
adapter made as well as the state the player ended in.
"""

from __future__ import annotations

from typing import Any, Final

from tests.adapters.desktop.portal_desktop import SYSTEM_PYTHON, PortalDesktop

PATH: Final = "/org/mpris/MediaPlayer2"
ROOT: Final = "org.mpris.MediaPlayer2"
PLAYER: Final = "org.mpris.MediaPlayer2.Player"
PROPS: Final = "org.freedesktop.DBus.Properties"
_SET: Final = "self.UpdateProperties('" + PLAYER + "', {{'PlaybackStatus': '{status}'}})"
_MOVE: Final = (
    "tracks = self.tracks\n"
    "self.track = max(0, min(len(tracks) - 1, self.track + {step}))\n"
    "title, artist = tracks[self.track]\n"
    # set in place: dbusmock 0.28's UpdateProperties cannot wrap a dictionary
    "self.props['" + PLAYER + "']['Metadata'] = dbus.Dictionary({{"
    "'xesam:title': title, 'xesam:artist': dbus.Array([artist], signature='s')}}, "
    "signature='sv')")
_TOGGLE: Final = (
    "now = self.props['" + PLAYER + "']['PlaybackStatus']\n"
    "self.UpdateProperties('" + PLAYER + "', {'PlaybackStatus': "
    "'Paused' if now == 'Playing' else 'Playing'})")


def start_player(desktop: PortalDesktop, name: str, *, identity: str, status: str,
                 tracks: list[tuple[str, str]]) -> str:
    """Start a player ``name`` playing ``tracks[0]`` with ``status``; its bus name."""
    bus_name = f"{ROOT}.{name}"
    desktop._spawn([SYSTEM_PYTHON, "-m", "dbusmock", bus_name, PATH, ROOT], name, desktop.env)
    desktop.wait_for_name(bus_name, name, 30.0)
    title, artist = tracks[0]
    mock = _mock(desktop, bus_name)
    mock("AddProperties", "sa{sv}", (ROOT, {"Identity": ("s", identity)}))
    mock("AddProperties", "sa{sv}", (PLAYER, {
        "PlaybackStatus": ("s", status), "CanPlay": ("b", True), "CanPause": ("b", True),
        "Metadata": ("a{sv}", {"xesam:title": ("s", title), "xesam:artist": ("as", [artist])}),
    }))
    # the track list lives on the mock object itself, for Next and Previous
    code = f"self.tracks = {tracks!r}\nself.track = 0"
    mock("AddMethod", "sssss", (ROOT, "Setup", "", "", code))
    mock("Setup", "", (), interface=ROOT)
    methods = {"Play": _SET.format(status="Playing"), "Pause": _SET.format(status="Paused"),
               "Stop": _SET.format(status="Stopped"), "PlayPause": _TOGGLE,
               "Next": _MOVE.format(step=1), "Previous": _MOVE.format(step=-1)}
    mock("AddMethods", "sa(ssss)", (PLAYER, [(m, "", "", code) for m, code in methods.items()]))
    return bus_name


def _mock(desktop: PortalDesktop, bus_name: str) -> Any:
    def call(method: str, signature: str, args: tuple[Any, ...],
             interface: str = "org.freedesktop.DBus.Mock") -> Any:
        from jeepney import DBusAddress, MessageType, new_method_call

        address = DBusAddress(PATH, bus_name=bus_name, interface=interface)
        reply = desktop._conn.send_and_get_reply(
            new_method_call(address, method, signature, args), timeout=30)
        assert reply.header.message_type == MessageType.method_return, reply.body
        return reply.body

    return call


def player_state(desktop: PortalDesktop, bus_name: str) -> tuple[str, str]:
    """The player's (PlaybackStatus, title) as the bus says now."""
    from jeepney import DBusAddress, Properties

    props = Properties(DBusAddress(PATH, bus_name=bus_name, interface=PLAYER))
    body = desktop._conn.send_and_get_reply(props.get_all(), timeout=30).body[0]
    return body["PlaybackStatus"][1], body["Metadata"][1]["xesam:title"][1]


def method_calls(desktop: PortalDesktop, bus_name: str) -> list[str]:
    """The names of the player methods called so far, in order."""
    body = _mock(desktop, bus_name)("GetCalls", "", ())
    return [str(call[1]) for call in body[0] if str(call[1]) not in ("Setup",)]
