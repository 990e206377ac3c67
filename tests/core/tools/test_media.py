"""The media tools' rules (core.tools.media): offers, the action in words, which player."""

from __future__ import annotations

import dataclasses

import pytest

from desktop_agent.core.tools.media import (
    Player,
    active_player,
    asks_media,
    asks_now_playing,
    control_media,
    media_args,
    say_playing,
)


@pytest.mark.parametrize(("text", "action"), [
    ("pause the music", "pause"), ("Pause.", "pause"), ("stop the music", "pause"),
    ("next song", "next"), ("skip this track", "next"), ("skip", "next"),
    ("play the previous song", "previous"), ("go back a song", "previous"),
    ("resume the music", "play"), ("unpause", "play"), ("keep playing", "play"),
    ("could you skip this song?", "next"), ("can you pause the music", "pause"),
])
def test_the_action_is_read_from_the_request(text: str, action: str) -> None:
    assert asks_media(text) and media_args(text) == {"action": action}


@pytest.mark.parametrize("text", [
    "play some music", "pause the timer", "play a game", "what is the time",
    "turn the volume down", "what is this", "next Tuesday remind me to call",
    "what was the last song you played?", "how do I skip this song in Spotify",
    "why does the music pause when I get a call", "who is this man in the photo",
])
def test_other_requests_are_not_media_keys(text: str) -> None:
    assert not asks_media(text) and not asks_now_playing(text)


@pytest.mark.parametrize("text", ["what's playing?", "what song is this", "who is singing",
                                  "what am I listening to", "who is this band"])
def test_what_is_playing_is_asked(text: str) -> None:
    assert asks_now_playing(text) and not asks_media(text)


A = Player("org.mpris.MediaPlayer2.a", "A", "Stopped")
B = Player("org.mpris.MediaPlayer2.b", "B", "Paused", "So What", "Miles Davis")
C = Player("org.mpris.MediaPlayer2.c", "", "Playing", "Blue Train")


def test_the_active_player() -> None:
    assert active_player([A, B, C], None) is C  # playing
    assert active_player([A, B], A.name) is A  # acted on last
    assert active_player([A, B], None) is B  # paused
    assert active_player([A], None) is A
    assert active_player([], None) is None


class FakePlayers:
    """Players in memory; records the calls."""

    def __init__(self, players: list[Player]) -> None:
        self.list = players
        self.calls: list[tuple[str, str]] = []

    @property
    def recent(self) -> str | None:
        return self.calls[-1][0] if self.calls else None

    def players(self) -> list[Player]:
        return self.list

    def command(self, name: str, method: str) -> None:
        self.calls.append((name, method))
        status = {"Pause": "Paused", "Play": "Playing"}
        self.list = [dataclasses.replace(
            p, status=status.get(method, p.status),
            title="Giant Steps" if method == "Next" and self.changes else p.title)
            if p.name == name else p for p in self.list]

    changes = True
    """Whether the player says its new track at once (some say it a moment later)."""


def test_answers() -> None:
    players = FakePlayers([A, B, C])
    assert control_media(players, "next") == "Skipped to the next track on c: Giant Steps."
    assert control_media(players, "pause") == "Paused c."
    assert players.calls == [(C.name, "Next"), (C.name, "Pause")]
    late = FakePlayers([C])
    late.changes = False  # the old title is never said as the new one
    assert control_media(late, "next") == "Skipped to the next track on c."
    assert say_playing(FakePlayers([C])) == "Blue Train is playing on c."
    assert say_playing(FakePlayers([B])) == "B is paused on So What by Miles Davis."
    assert say_playing(FakePlayers([A])) == "Nothing is playing right now."
    assert say_playing(FakePlayers([])) == "No media player is running."
    assert control_media(FakePlayers([]), "play") == (
        "No media player is running, so there is nothing to play or pause.")
    assert control_media(players, "shuffle").startswith("I can play, pause")


def test_pause_silences_every_player_and_play_resumes_the_one_paused_last() -> None:
    tab = Player("org.mpris.MediaPlayer2.chromium", "Chromium", "Playing", "Autoplay")
    spotify = Player("org.mpris.MediaPlayer2.spotify", "Spotify", "Playing", "Song")
    players = FakePlayers([tab, spotify])
    assert control_media(players, "pause") == "Paused Chromium and Spotify."
    players.list = [dataclasses.replace(tab, status="Playing"), players.list[1]]
    players.calls.append((spotify.name, "Pause"))  # Spotify was the one paused by voice
    assert control_media(players, "play").startswith("Playing Song on Spotify")
    assert players.calls[-1] == (spotify.name, "Play")
