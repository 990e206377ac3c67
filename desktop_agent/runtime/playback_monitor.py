"""Watches the Player and turns what the device consumed into turn-machine events.

The machine speaks of playback *streams* (one job per reply); the Player of keys. A stream
uses one key until it drains: then the key is ended (the resampler's tail is flushed so
every sample is heard) and, should more audio follow (a slow LLM), a fresh key continues
the same stream. Played counts add up across keys, at the voice's sample rate.

Polls every 10 ms on the GUI thread: PlaybackStarted carries the instant the first sample
reached the device (taken in the output callback), not the poll time.
"""

from __future__ import annotations

import itertools
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.model import Stage
from desktop_agent.runtime.workers import TtsJob

_LOGGER = logging.getLogger(__name__)
_POLL_MS = 10
_PROGRESS_EVERY_S = 0.05
STALL_S = 3.0
"""Seconds without a sample consumed, audio waiting and playback not paused, after which
the speaker is taken for stuck: the turn fails (ERROR, an apology) instead of hanging."""


@dataclass
class _Stream:
    turn_id: TurnId
    job: int
    token: CancelToken
    key: TurnId
    sent: int = 0
    """Samples handed to the current key."""
    base_played: int = 0
    """Samples played on keys already ended."""
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
    """Tracks playback streams and reports to ``feed``. Runs on: GUI thread."""

    sig_apology_job = Signal(object)
    """Queued to the TTS worker's ``speak_only``."""

    def __init__(self, player: Any, feed: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.player = player
        self._feed = feed
        self._keys = itertools.count(1)
        self._streams: dict[int, _Stream] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(_POLL_MS)
        self._timer.timeout.connect(self._poll)
        self._apology: tuple[TurnId, TurnId, CancelToken, int] | None = None
        self._first_audio_s: float | None = None
        self._feeder: Any = None
        self._tts: Any = None

    def start(self) -> None:
        """Start polling."""
        self._timer.start()

    def stop(self) -> None:
        """Stop polling."""
        self._timer.stop()

    def first_audio_s(self) -> float | None:
        """When the current reply's first sample was played (None if not yet)."""
        return self._first_audio_s

    def key(self, job: int) -> TurnId:
        """The Player key currently used by stream ``job``."""
        return self._streams[job].key

    def _new_key(self) -> TurnId:
        return TurnId(next(self._keys))

    def add(self, turn_id: TurnId, job: int, n_samples: int, token: CancelToken) -> None:
        """A chunk of ``n_samples`` is about to be fed to stream ``job``."""
        stream = self._streams.get(job)
        if stream is None:
            stream = self._streams[job] = _Stream(turn_id, job, token, self._new_key())
            stream.keys.append(stream.key)
            self._first_audio_s = None
        elif stream.ending:
            stream.base_played += self._played(stream.key)
            stream.key = self._new_key()
            stream.keys.append(stream.key)
            stream.sent = 0
            stream.ending = False
        stream.sent += n_samples
        stream.drained = False

    def flush(self, job: int) -> None:
        """Silence stream ``job`` now (fade within one block); PlaybackStopped follows."""
        stream = self._streams.get(job)
        if stream is None:
            return
        self.player.flush(stream.key)
        stream.flushed_at = time.monotonic()

    def _played(self, key: TurnId) -> int:
        status = self.player.status(key)
        return 0 if status is None else int(status.played_samples)

    def _poll(self) -> None:
        now = time.monotonic()
        for job, s in list(self._streams.items()):
            status = self.player.status(s.key)
            played = s.base_played + (0 if status is None else int(status.played_samples))
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
                total = s.base_played + int(status.enqueued_samples)
                self._feed(ev.PlaybackFinished(turn_id=s.turn_id, at_s=now, job=job,
                                               played_samples=total))
        self._poll_apology(now)

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

    def attach_feeder(self, feeder: Any) -> None:
        """Route end-of-stream marks through the feeder (keeps them after queued audio)."""
        self._feeder = feeder

    def forget(self, turn_id: TurnId) -> None:
        """Drop finished streams of ``turn_id``."""
        for job, s in list(self._streams.items()):
            if s.turn_id == turn_id and s.drained:
                del self._streams[job]

    # --- the apology ---------------------------------------------------------------------------

    def speak_apology(self, turn_id: TurnId, text: str, tts: Any, feeder: Any) -> None:
        """Synthesize ``text`` on the TTS worker and play it; ApologyFinished when heard."""
        token = CancelToken(turn_id)
        key = self._new_key()
        self._apology = (turn_id, key, token, -1)
        self._feeder = feeder
        if self._tts is not tts:  # connect once per TTS worker (queued: it lives elsewhere)
            self._tts = tts
            self.sig_apology_job.connect(tts.speak_only)
            tts.sig_result.connect(self._on_apology_audio)
        self.sig_apology_job.emit(TtsJob(turn_id, -1, -1, text, token))  # type: ignore[arg-type]

    def _on_apology_audio(self, result: Any) -> None:
        job, chunk = result
        if self._apology is None or job.chunk_index != -1 or job.cancel is not self._apology[2]:
            return
        turn_id, key, token, _ = self._apology
        if chunk is None:  # the voice itself failed: nothing to wait for
            self._apology = None
            self._feed(ev.ApologyFinished(turn_id=turn_id, at_s=time.monotonic()))
            return
        self._apology = (turn_id, key, token, chunk.n_samples)
        self._feeder.play(key, chunk.audio, chunk.sample_rate, token)
        self._feeder.end(key, token)

    def _poll_apology(self, now: float) -> None:
        if self._apology is None or self._apology[3] < 0:
            return
        turn_id, key, _token, _n = self._apology
        status = self.player.status(key)
        if status is not None and status.state in ("finished", "flushed"):
            self._apology = None
            self._feed(ev.ApologyFinished(turn_id=turn_id, at_s=now))

    def stop_apology(self) -> None:
        """Cut the apology (the user pressed to talk)."""
        if self._apology is not None:
            turn_id, key, token, _ = self._apology
            token.cancel("apology cut")
            self.player.flush(key)
            self._apology = None
