"""The media tools' rules: "pause the music", "next song", "what's playing?".

``media_control`` (play, pause, next, previous) and ``now_playing`` (a read) act on the
active media player: the one playing, else the one last acted on, else a paused one. The
players are reached through ``MediaPlayers`` (``adapters/desktop/media_mpris.py``: MPRIS over
the session bus). A media key is undone by the next one, so they run at once and say what
they did. No player running is an answer, not an error. Pure: stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from desktop_agent.core.tools.offers import asks_about_it

ACTIONS: Final = {"play": "Play", "pause": "Pause", "next": "Next", "previous": "Previous"}
"""Each action and the MPRIS method it calls."""
NO_PLAYER: Final = "No media player is running, so there is nothing to play or pause."
NOTHING_PLAYING: Final = "Nothing is playing right now."

_MEDIA: Final = r"(?:music|song|track|tune|playback|video|podcast|audiobook|radio|album|playlist)"
_PAUSE: Final = re.compile(
    rf"\b(?:pause|stop|halt|freeze)\s+(?:the\s+|this\s+|my\s+)?{_MEDIA}"
    r"|^(?:please\s+)?(?:pause|pause\s+(?:it|that|this))(?:\s+please)?[.!]?$"
    r"|^(?:please\s+)?pause\s+(?:it|that|this)\b"
    rf"|\bhit\s+pause\b|\b{_MEDIA}\s+off\b|^(?:please\s+)?hold\s+(?:the|this|my)\s+{_MEDIA}\b"
    r"|\b(?:pause|stop)\s+(?:whatever(?:'s|\s+is)|what(?:'s|\s+is))\s+playing\b",
    re.IGNORECASE)
_PLAY: Final = re.compile(
    rf"\b(?:resume|unpause|continue|restart)\s+(?:the\s+|my\s+)?(?:{_MEDIA}|playing|playback|it)"
    rf"|\b(?:play|start)\s+(?:the\s+|my\s+)?{_MEDIA}\s+(?:again|back)"
    r"|^(?:please\s+)?(?:resume|unpause|play|play\s+it)(?:\s+(?:again|please))?[.!]?$"
    r"|\bhit\s+play\b|\bkeep\s+playing\b|\b(?:carry\s+on|continue)\s+playing\b"
    rf"|\b(?:carry\s+on|go\s+on|continue)\s+with\s+(?:the\s+|my\s+)?{_MEDIA}\b"
    rf"|\b(?:put|turn|switch|stick|pop)\s+(?:the\s+|my\s+)?{_MEDIA}\s+back\s+on\b"
    r"|\b(?:get|put)\s+(?:some|the|my)\s+(?:music|tunes|songs)\s+(?:going|on)\b"
    r"|^let'?s\s+(?:have|hear)\s+(?:some|the|my)\s+(?:music|tunes|songs)\b",
    re.IGNORECASE)
_NEXT: Final = re.compile(
    rf"\b(?:next|skip(?:\s+(?:this|the))?)\s+{_MEDIA}\b|\bskip\s+(?:it|this|ahead|forward)\b"
    r"|^(?:please\s+)?(?:skip|next)(?:\s+please)?[.!]?$"
    rf"|\b(?:play|go\s+to)\s+the\s+next\s+(?:one|{_MEDIA})"
    rf"|\bgive\s+(?:it|this(?:\s+one)?|this\s+{_MEDIA}|that(?:\s+one)?)\s+a\s+skip\b"
    rf"|\b(?:move|go)\s+on\s+to\s+the\s+next\s+{_MEDIA}"
    rf"|\b(?:put|stick|pop)\s+the\s+next\s+{_MEDIA}\s+on\b",
    re.IGNORECASE)
_NEXT_ONE: Final = re.compile(r"\b(?:move|go)\s+on\s+to\s+the\s+next\s+one\b"
                              r"|\b(?:put|stick|pop)\s+the\s+next\s+one\s+on\b", re.IGNORECASE)
""""The next one": a track only when the request speaks of music ("this playlist's gone a bit
miserable, move on to the next one"; not "move on to the next one" of a list)."""
_MEDIA_SAID: Final = re.compile(rf"\b{_MEDIA}", re.IGNORECASE)
_PREVIOUS: Final = re.compile(
    rf"\b(?:previous|last)\s+{_MEDIA}\b|\bgo\s+back\s+(?:a|one)\s+{_MEDIA}\b"
    rf"|\b(?:play|go\s+to)\s+the\s+(?:previous|last)\s+(?:one|{_MEDIA})\b"
    rf"|\bback\s+(?:a|one)\s+{_MEDIA}\b|\bthe\s+{_MEDIA}\s+before(?:\s+this(?:\s+one)?)?[.!?]*$"
    rf"|\bthe\s+{_MEDIA}\s+from\s+before\b|\bback\s+(?:it\s+)?up\s+(?:a|one)\s+{_MEDIA}\b"
    r"|\b(?:put|play|stick)\s+the\s+one\s+before\s+(?:this|that)(?:\s+one)?\s+(?:back\s+)?on\b"
    r"|^(?:please\s+)?go\s+back\s+(?:a|one)\b(?!\s+(?:day|week|page|step|year|month|hour"
    r"|minute|second|level|folder))",
    re.IGNORECASE)
_NOW: Final = re.compile(
    rf"\bwhat(?:'s|\s+is)\s+(?:this\s+{_MEDIA}|playing|on\s+(?:right\s+)?now)\b"
    rf"|\bwhat\s+{_MEDIA}\s+is\s+(?:this|playing|on)\b|\bwho(?:'s|\s+is)\s+(?:singing|this\s+by)"
    rf"|\bname\s+of\s+(?:this|the)\s+{_MEDIA}\b|\bwhat\s+am\s+i\s+listening\s+to\b"
    rf"|\bwho\s+(?:sings|is\s+singing)\s+this\b|\bwhich\s+{_MEDIA}\s+is\s+(?:this|playing)\b"
    r"|\bwho(?:'s|\s+is)\s+this\s+(?:band|artist|singer|group|singing)\b"
    rf"|\bwho\s+(?:is\s+)?this\s+(?:\w+\s+)?(?:{_MEDIA}|piece)\s+(?:is\s+)?by\b"
    rf"|\b{_MEDIA}\s+(?:which|that)\s+is\s+playing\b.*\b(?:name|called|title)\b",
    re.IGNORECASE)
_NOT_MEDIA: Final = re.compile(r"\b(?:timer|reminder|alarm|note|notes|game|volume)\b",
                               re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Player:
    """One media player as MPRIS describes it."""

    name: str
    """Its bus name ('org.mpris.MediaPlayer2.vlc')."""
    identity: str
    """Its own name for people ('VLC media player'); '' when it gives none."""
    status: str
    """'Playing', 'Paused' or 'Stopped'."""
    title: str = ""
    artist: str = ""

    @property
    def called(self) -> str:
        """What the answer calls it."""
        return self.identity or self.name.rsplit(".", 1)[-1]


class MediaPlayers(Protocol):
    """The running media players (an adapter: ``adapters/desktop/media_mpris.py``).

    Both methods raise ``AgentError`` with a spoken message when the session bus cannot
    be reached.
    """

    @property
    def recent(self) -> str | None:
        """The bus name of the player last acted on, or None."""
        ...

    def players(self) -> list[Player]:
        """Every running player, with its state now."""
        ...

    def command(self, name: str, method: str) -> None:
        """Call ``method`` (an ``ACTIONS`` value) on the player ``name``."""
        ...


def asks_media(text: str) -> bool:
    """Router rule: could ``text`` ask to play, pause or skip what is playing?"""
    return media_args(text) is not None


def media_args(text: str) -> dict[str, Any] | None:
    """Words rule: ``{'action': 'play'|'pause'|'next'|'previous'}``, or None."""
    text = text.strip().replace("\u2019", "'")
    if _NOT_MEDIA.search(text) or asks_about_it(text):
        return None  # "how do I skip a song in Spotify?" is answered, not done
    for action, rule in (("previous", _PREVIOUS), ("next", _NEXT), ("pause", _PAUSE),
                         ("play", _PLAY)):
        if rule.search(text):
            return {"action": action}
    if _NEXT_ONE.search(text) and _MEDIA_SAID.search(text):
        return {"action": "next"}
    return None


_WHO_IS_THIS: Final = re.compile(r"\bthis\s+(?:song|track|tune)\b[^,]*,\s*"
                                 r"who(?:'s|\s+(?:even\s+)?is)\s+this\W*$", re.IGNORECASE)
""""Who is this" after the music is spoken of ("this song slaps, who even is this")."""


def asks_now_playing(text: str) -> bool:
    """Router rule: does ``text`` ask what is playing?"""
    return bool(_NOW.search(text) or _WHO_IS_THIS.search(text)) and not _NOT_MEDIA.search(text)


def active_player(players: Sequence[Player], recent: str | None) -> Player | None:
    """The player an action is for: playing, else the one last acted on, else paused."""
    ranked = sorted(range(len(players)), key=lambda i: (
        players[i].status != "Playing", players[i].name != recent,
        players[i].status != "Paused", i))
    return players[ranked[0]] if ranked else None


def _track(player: Player) -> str:
    if player.title and player.artist:
        return f"{player.title} by {player.artist}"
    return player.title or player.artist


def control_media(media: MediaPlayers, action: str) -> str:
    """Do ``action`` on the active player; the sentence of what it did."""
    key = action.strip().lower()
    method = ACTIONS.get(key)
    if method is None:
        return ("I can play, pause, skip to the next track or go back to the previous one, "
                f"not {action!r}.")
    players = media.players()
    player = active_player(players, media.recent)
    if player is None:
        return NO_PLAYER
    if key == "pause":
        playing = [p for p in players if p.status == "Playing"] or [player]
        for each in playing:  # "pause the music" means silence, whichever plays it
            media.command(each.name, method)
        return f"Paused {' and '.join(p.called for p in playing)}."
    if key == "play":  # the one paused last by us, else any paused one
        player = next((p for p in players if p.name == media.recent and p.status == "Paused"),
                      next((p for p in players if p.status == "Paused"), player))
    media.command(player.name, method)
    now = next((p for p in media.players() if p.name == player.name), player)
    track = _track(now)
    if key == "play":
        return f"Playing {track} on {now.called}." if track else f"Playing {now.called}."
    if track == _track(player):
        track = ""  # a player may not have said the new track yet: never name the old one
    where = "the next track" if key == "next" else "the previous track"
    return f"Skipped to {where} on {now.called}" + (f": {track}." if track else ".")


def say_playing(media: MediaPlayers) -> str:
    """What is playing (title and artist, on which player), or that nothing is."""
    players = media.players()
    player = active_player(players, media.recent)
    if player is None:
        return NO_PLAYER.split(",")[0] + "."
    track = _track(player)
    if player.status == "Playing":
        return f"{track} is playing on {player.called}." if track else \
            f"{player.called} is playing, but it does not say what."
    if track and player.status == "Paused":
        return f"{player.called} is paused on {track}."
    return NOTHING_PLAYING
