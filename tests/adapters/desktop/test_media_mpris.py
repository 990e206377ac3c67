"""The media tools on fake MPRIS players (python-dbusmock) on a private session bus.

The tools run through the registry as the app runs them (``add_desktop_tools``) with the
real jeepney adapter; the players' own state is read back from the bus, and their call log
says which player got which call.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop_agent.adapters.desktop.desktop_tools import add_desktop_tools
from desktop_agent.adapters.desktop.media_mpris import MprisPlayers
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.args import arguments_from_words
from desktop_agent.core.tools.registry import ToolRegistry
from tests.adapters.desktop.mpris_player import method_calls, player_state, start_player
from tests.adapters.desktop.portal_desktop import PortalDesktop, _missing_pieces
from tests.needs import unavailable

SONGS = [("Blue Train", "John Coltrane"), ("So What", "Miles Davis")]


@pytest.fixture
def desktop() -> Iterator[PortalDesktop]:
    missing = [m for m in _missing_pieces() if "xdg-desktop-portal" not in m]
    if missing:
        unavailable("a private session bus with python-dbusmock",
                    f"missing {', '.join(missing)} (bash scripts/setup.sh test)")
    bus = PortalDesktop()
    try:
        bus.start_bus()
        yield bus
    finally:
        bus.close()


def _ask(registry: ToolRegistry, request: str, tool: str = "media_control") -> str:
    args = arguments_from_words(tool, request)
    assert args is not None, request
    content, is_error = registry.answer(ToolCall(tool, args, "c1"))
    assert not is_error, content
    return content


def test_the_playing_player_is_paused_skipped_and_resumed(desktop: PortalDesktop) -> None:
    idle = start_player(desktop, "idle", identity="Idle Player", status="Stopped",
                        tracks=[("Nothing", "Nobody")])
    vlc = start_player(desktop, "vlc", identity="VLC media player", status="Playing",
                       tracks=SONGS)
    registry = add_desktop_tools(ToolRegistry(), media=MprisPlayers(desktop.address))
    assert _ask(registry, "what's playing?", "now_playing") == (
        "Blue Train by John Coltrane is playing on VLC media player.")
    assert _ask(registry, "next song") == (
        "Skipped to the next track on VLC media player: So What by Miles Davis.")
    assert player_state(desktop, vlc) == ("Playing", "So What")
    assert _ask(registry, "pause the music") == "Paused VLC media player."
    assert player_state(desktop, vlc) == ("Paused", "So What")
    # nothing plays now: the player acted on last is the one meant
    assert _ask(registry, "play the previous song") == (
        "Skipped to the previous track on VLC media player: Blue Train by John Coltrane.")
    assert _ask(registry, "resume the music") == (
        "Playing Blue Train by John Coltrane on VLC media player.")
    assert player_state(desktop, vlc) == ("Playing", "Blue Train")
    assert method_calls(desktop, vlc) == ["Next", "Pause", "Previous", "Play"]
    assert method_calls(desktop, idle) == []


def test_a_paused_player_is_the_one_meant_when_none_plays(desktop: PortalDesktop) -> None:
    start_player(desktop, "aaa", identity="Stopped One", status="Stopped", tracks=SONGS)
    start_player(desktop, "playerctld", identity="", status="Paused", tracks=SONGS)  # a proxy
    paused = start_player(desktop, "zzz", identity="Paused One", status="Paused", tracks=SONGS)
    registry = add_desktop_tools(ToolRegistry(), media=MprisPlayers(desktop.address))
    assert _ask(registry, "what song is this", "now_playing") == (
        "Paused One is paused on Blue Train by John Coltrane.")
    assert _ask(registry, "unpause") == "Playing Blue Train by John Coltrane on Paused One."
    assert player_state(desktop, paused)[0] == "Playing"


def test_no_player_is_a_spoken_answer(desktop: PortalDesktop) -> None:
    registry = add_desktop_tools(ToolRegistry(), media=MprisPlayers(desktop.address))
    assert _ask(registry, "pause the music") == (
        "No media player is running, so there is nothing to play or pause.")
    assert _ask(registry, "what's playing", "now_playing") == "No media player is running."


def test_no_session_bus_is_a_spoken_answer(tmp_path: object) -> None:
    players = MprisPlayers(f"unix:path={tmp_path}/no-bus-here")
    with pytest.raises(AgentError) as err:
        players.players()
    assert err.value.code == "no_session_bus"
    registry = add_desktop_tools(ToolRegistry(), media=players)
    content, is_error = registry.answer(ToolCall("media_control", {"action": "pause"}, "c1"))
    assert content.startswith("I can't reach the desktop's message bus") and not is_error
