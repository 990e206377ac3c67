"""Watches the Player and turns what the device consumed into turn-machine events.

The machine speaks of playback *streams* (one job per reply); the Player of keys. A stream
uses one key until it drains: then the key is ended (the resampler's tail is flushed so
every sample is heard) and, should more audio follow (a slow LLM), a fresh key continues
the same stream. Played counts add up across keys, at the voice's sample rate.

Polls every 10 ms on the GUI thread while a stream is known (never while idle: a 100 Hz
wake-up of the GUI thread for nothing was most of the idle window's CPU): PlaybackStarted
carries the instant the first sample reached the device (taken in the output callback),
not the poll time.

Runs on: GUI thread (everything in this module).
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer

from desktop_agent.audio.playback_turns import TurnPlayback
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import JobId, Stage
from desktop_agent.runtime.controller_ports import Feed

if TYPE_CHECKING:
    from desktop_agent.runtime.audio_workers import PlaybackFeeder

_LOGGER = logging.getLogger(__name__)
_POLL_MS = 10
_PROGRESS_EVERY_S = 0.05
STALL_S = 3.0
"""Seconds without a sample consumed, audio waiting and playback not paused, after which
the speaker is taken for stuck: the turn fails (ERROR, an apology) instead of hanging."""


class PlayerStatus(Protocol):
    """What the monitor reads of the Player (``audio.player.Player`` has it)."""

    def status(self, turn_id: TurnId) -> TurnPlayback | None:
        """Playback counters of one key (None when unknown)."""
        ...

    def flush(self, turn_id: TurnId) -> None:
        """Silence one key now (fade)."""
        ...

    def end_turn(self, turn_id: TurnId) -> None:
        """No more audio for one key: play out the resampler tail."""
        ...

    @property
    def paused(self) -> bool:
        """True while playback is paused on purpose."""
        ...

    @property
    def queued_s(self) -> float:
        """Seconds of audio accepted and not yet handed to the device."""
        ...


def new_keys() -> Callable[[], TurnId]:
    """A source of fresh Player keys (1, 2, ...), shared by replies and asides."""
    counter: Iterator[int] = itertools.count(1)
    return lambda: TurnId(next(counter))


@dataclass
class _Stream:
    turn_id: TurnId
    job: JobId
    token: CancelToken
    key: TurnId
    sent: int = 0
    """Samples handed to the current key."""
    base_sent: int = 0
    """Samples handed to keys already ended (all of them play out: an ended key drains).
    Counted as sent, not as the old key's played count: that one lags by the resampler's
    rounding and the output latency, and a reply whose total fell short of what was queued
    never finished (stuck in ASSISTANT_SPEAKING after a pause and a late chunk)."""
    started: bool = False
    ending: bool = False
    drained: bool = False
    flushed_at: float | None = None
    last_progress: float = 0.0
    keys: list[TurnId] = field(default_factory=list)
    last_played: int = 0
    last_advance: float = 0.0
    stalled: bool = False


class PlaybackMonitor(QObject):
    """Tracks playback streams and reports to ``feed``. Runs on: GUI thread.

    Args:
        player: The Player (status, flush, end of a key).
        feed: The controller's single entry into the machine.
        feeder: Routes end-of-stream marks after the audio it has queued (None: straight
            to the player, as the tests do).
        new_key: Source of fresh Player keys (shared with the asides).
        parent: The owning QObject.
    """

    def __init__(self, player: PlayerStatus, feed: Feed, parent: QObject | None = None, *,
                 feeder: PlaybackFeeder | None = None,
                 new_key: Callable[[], TurnId] | None = None) -> None:
        """Wire it up; the class docstring describes the arguments."""
        super().__init__(parent)
        self.player = player
        self._feed = feed
        self._new_key = new_key or new_keys()
        self._streams: dict[JobId, _Stream] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(_POLL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._first_audio_s: float | None = None
        self._feeder = feeder
        self._running = False

    def start(self) -> None:
        """Poll from now on, whenever there is a stream to watch."""
        self._running = True
        if self._streams:
            self._timer.start()

    def stop(self) -> None:
        """Stop polling."""
        self._running = False
        self._timer.stop()

    def first_audio_s(self) -> float | None:
        """When the current reply's first sample was played (None if not yet)."""
        return self._first_audio_s

    def key(self, job: JobId) -> TurnId:
        """The Player key currently used by stream ``job``."""
        return self._streams[job].key

    def add(self, turn_id: TurnId, job: JobId, n_samples: int, token: CancelToken) -> None:
        """A chunk of ``n_samples`` is about to be fed to stream ``job``."""
        stream = self._streams.get(job)
        if stream is None:
            stream = self._streams[job] = _Stream(turn_id, job, token, self._new_key())
            stream.keys.append(stream.key)
            self._first_audio_s = None
        elif stream.ending:
            stream.base_sent += stream.sent
            stream.key = self._new_key()
            stream.keys.append(stream.key)
            stream.sent = 0
            stream.ending = False
        stream.sent += n_samples
        stream.drained = False
        if self._running and not self._timer.isActive():
            self._timer.start()

    def flush(self, job: JobId) -> None:
        """Silence stream ``job`` now (fade within one block); PlaybackStopped follows."""
        stream = self._streams.get(job)
        if stream is None:
            return
        self.player.flush(stream.key)
        stream.flushed_at = time.monotonic()

    def _played(self, key: TurnId) -> int:
        status = self.player.status(key)
        return 0 if status is None else int(status.played_samples)

    def _on_timer_timeout(self) -> None:
        self._poll()
        if not self._streams:
            self._timer.stop()  # idle: ``add`` starts it again

    def _poll(self) -> None:
        now = time.monotonic()
        for job, s in list(self._streams.items()):
            status = self.player.status(s.key)
            played = sum(self._played(key) for key in s.keys)
            if s.flushed_at is not None:
                if status is None or status.state == "flushed" or now - s.flushed_at > 0.2:
                    del self._streams[job]
                    self._feed(ev.PlaybackStopped(turn_id=s.turn_id, at_s=now, job=job,
                                                  played_samples=played))
                continue
            if status is None:
                continue
            if not s.started and status.first_sample_monotonic_s is not None:
                s.started = True
                self._first_audio_s = status.first_sample_monotonic_s
                self._feed(ev.PlaybackStarted(turn_id=s.turn_id,
                                              at_s=status.first_sample_monotonic_s, job=job))
            waiting = int(status.enqueued_samples) - int(status.played_samples)
            self._watch_stall(s, played, now, waiting / max(1, status.sample_rate))
            if s.started and now - s.last_progress >= _PROGRESS_EVERY_S:
                s.last_progress = now
                self._feed(ev.PlaybackProgress(turn_id=s.turn_id, at_s=now, job=job,
                                               played_samples=played))
            if not s.ending and status.enqueued_samples >= s.sent and \
                    self.player.queued_s < 0.02:
                s.ending = True  # drained: flush the resampler tail so every sample plays
                self._feeder_end(s)
            if s.ending and status.state == "finished" and not s.drained:
                s.drained = True
                total = s.base_sent + int(status.enqueued_samples)
                self._feed(ev.PlaybackFinished(turn_id=s.turn_id, at_s=now, job=job,
                                               played_samples=total))

    def _watch_stall(self, s: _Stream, played: int, now: float, waiting_s: float) -> None:
        """``waiting_s``: audio of this stream's key accepted and not yet played."""
        if played != s.last_played or s.last_advance == 0.0:
            s.last_played, s.last_advance = played, now
            return
        waiting = (waiting_s > 0.05 and not s.drained and s.flushed_at is None
                   and not self.player.paused)
        if not waiting:
            s.last_advance = now  # nothing to play (a slow LLM) or paused on purpose
            return
        if not s.stalled and now - s.last_advance >= STALL_S:
            s.stalled = True
            _LOGGER.warning("turn=%d playback stalled for %.1f s", s.turn_id, now - s.last_advance)
            self._feed(ev.StageFailed(
                turn_id=s.turn_id, job=None, stage=Stage.PLAYBACK, code="playback_stalled",
                message=f"The speaker took no audio for {STALL_S:.0f} s.", at_s=now))

    def _feeder_end(self, s: _Stream) -> None:
        # end_turn runs on the feeder thread, after the chunks queued before it.
        if self._feeder is not None:
            self._feeder.end(s.key, s.token)
        else:
            self.player.end_turn(s.key)

    def forget(self, turn_id: TurnId) -> None:
        """Drop the drained streams of ``turn_id`` and of the turns before it."""
        for job, s in list(self._streams.items()):
            if s.turn_id <= turn_id and s.drained:
                del self._streams[job]
