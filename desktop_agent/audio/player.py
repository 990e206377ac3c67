"""The Player: per-turn playback with bounded look-ahead, flush, duck, pause and counters.

Threading model (one producer per turn, one consumer):

* A TTS worker thread calls :meth:`Player.enqueue` / :meth:`Player.end_turn`. Resampling to
  the device rate happens there, outside the lock; queuing blocks while more than
  ``max_ahead_s`` of audio is queued ahead of the playhead (backpressure).
* The device's output callback calls :meth:`Player.render`, which only copies queued
  samples, applies gains, advances counters and pushes the result to the far-end tap.
  It holds the lock for microseconds and never waits.
* Any thread may call :meth:`flush`, :meth:`duck`, :meth:`pause`, :meth:`resume`,
  :meth:`status`: they only flip flags; the next :meth:`render` acts on them.

Turns: a newer ``turn_id`` supersedes (flushes) older ones; audio for an older or a
flushed turn is refused. "Played" counts samples the device consumed, never samples
queued, and is reported at the voice's own sample rate.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt

from desktop_agent.audio.frames import int16_to_float32
from desktop_agent.audio.gains import Duck, Fade
from desktop_agent.audio.playback_turns import Segment, TurnPlayback, TurnRecord
from desktop_agent.audio.reference import BlockTiming, FarEndTap
from desktop_agent.audio.resample import Resampler
from desktop_agent.core.cancel import CancelToken, TurnId

_KEEP_TURNS = 16
_WAIT_SLICE_S = 0.02


class Player:
    """Plays turns of synthesized speech into an output callback."""

    def __init__(
        self,
        device_rate: int,
        max_ahead_s: float = 1.0,
        fade_s: float = 0.005,
        tap: FarEndTap | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Create a player.

        Args:
            device_rate: the output stream's sample rate in Hz.
            max_ahead_s: the most audio queued ahead of the playhead.
            fade_s: fade-out on flush/pause and fade-in on resume (no clicks).
            tap: the far-end reference tap fed with every rendered block, or None.
            clock: monotonic seconds (injected for tests).
        """
        self.device_rate = int(device_rate)
        self.max_ahead = max(1, int(round(max_ahead_s * self.device_rate)))
        self._fade = Fade(round(fade_s * self.device_rate))
        self.tap = tap
        self._clock = clock
        self.on_enqueue: Callable[[], None] | None = None
        """Called (on the producer's thread) before audio is queued: wakes a sleeping stream."""
        self._cond = threading.Condition(threading.Lock())
        self._segments: deque[Segment] = deque()
        self._queued = 0  # device samples in _segments not yet handed out
        self._turns: dict[TurnId, TurnRecord] = {}
        self._latest: TurnId = TurnId(0)
        self._paused = False
        self._producers = 0  # threads inside enqueue/end_turn (see _producing)
        self._duck = Duck()

    # ----------------------------------------------------------------- producer side
    def enqueue(
        self,
        turn_id: TurnId,
        samples: npt.ArrayLike,
        sample_rate: int,
        timeout_s: float | None = None,
        cancel: CancelToken | None = None,
    ) -> bool:
        """Queue int16 (or float) mono ``samples`` of ``turn_id`` for playback.

        Blocks while ``max_ahead_s`` is queued; pieces are queued as room frees, so a
        chunk longer than the look-ahead still goes in. ``timeout_s=0`` never blocks:
        the chunk goes in whole or not at all.

        Runs on: the TTS/playback worker thread (one producer per turn).

        Returns:
            True when every sample was queued. False, with nothing more queued, when the
            turn is stale or flushed, ``cancel`` fires, or the timeout passes (a blocking
            call may have queued a prefix by then).
        """
        with self._producing():
            return self._enqueue(turn_id, samples, sample_rate, timeout_s, cancel)

    def _enqueue(self, turn_id: TurnId, samples: npt.ArrayLike, sample_rate: int,
                 timeout_s: float | None, cancel: CancelToken | None) -> bool:
        x = np.asarray(samples).reshape(-1)
        x = int16_to_float32(x) if x.dtype == np.int16 else x.astype(np.float32, copy=False)
        with self._cond:
            turn = self._admit(turn_id)
            if turn is None:
                return False
            if turn.resampler is None or turn.rate != sample_rate:
                turn.rate = int(sample_rate)
                turn.resampler = Resampler(turn.rate, self.device_rate)
                turn.delay_dev = turn.resampler.delay_s * self.device_rate
            resampler = turn.resampler
        if timeout_s == 0:
            with self._cond:
                need = math.ceil(len(x) * self.device_rate / turn.rate) + 1
                if self.max_ahead - self._queued < need or turn.state == "flushed":
                    return False
        dev = resampler.process(x)  # outside the lock: the callback never waits on this
        return self._push(turn, dev, len(x), timeout_s, cancel)

    def end_turn(self, turn_id: TurnId) -> None:
        """Say no more audio comes for ``turn_id``.

        Its resampler tail is queued; the turn becomes 'finished' once the device has
        consumed everything. Runs on: the producer thread of that turn.
        """
        with self._cond:
            turn = self._turns.get(turn_id)
            if turn is None or turn.state == "flushed" or turn.ended:
                return
            resampler = turn.resampler
        tail = resampler.flush() if resampler is not None else np.zeros(0, np.float32)
        with self._producing(wake=len(tail) > 0), self._cond:
            if turn.state == "flushed":
                return
            if len(tail):
                self._segments.append(Segment(turn, tail))
                self._queued += len(tail)
            turn.ended = True
            self._update_finished(turn)

    @contextmanager
    def _producing(self, wake: bool = True) -> Iterator[None]:
        """A producer is about to queue audio: wake the output first (``on_enqueue``), so
        the first samples find it running, and keep it from sleeping (:attr:`busy`) until
        they are queued: resampling a long chunk took longer than a short idle timeout, and
        the woken stream went back to sleep with the audio about to come."""
        with self._cond:
            self._producers += 1
        try:
            if wake and self.on_enqueue is not None:
                self.on_enqueue()
            yield
        finally:
            with self._cond:
                self._producers -= 1

    def _admit(self, turn_id: TurnId) -> TurnRecord | None:
        """Find or create the turn; supersede older ones. Caller holds the lock."""
        if turn_id < self._latest:
            return None
        turn = self._turns.get(turn_id)
        if turn is None:
            for old in list(self._turns.values()):
                self._flush_locked(old)
            turn = TurnRecord(turn_id)
            self._turns[turn_id] = turn
            self._latest = turn_id
            while len(self._turns) > _KEEP_TURNS:
                self._turns.pop(next(iter(self._turns)))
        if turn.state == "flushed" or turn.flush_pending or turn.ended:
            return None
        return turn

    def _push(self, turn: TurnRecord, dev: npt.NDArray[np.float32], n_voice: int,
              timeout_s: float | None, cancel: CancelToken | None) -> bool:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        off = 0
        with self._cond:
            base = turn.enqueued  # counted piece by piece: a long chunk plays while it queues
            while off < len(dev):
                if turn.state == "flushed" or turn.flush_pending:
                    return False
                if cancel is not None and cancel.cancelled:
                    return False
                room = self.max_ahead - self._queued
                if room <= 0:
                    if deadline is not None and time.monotonic() >= deadline:
                        return False
                    self._cond.wait(_WAIT_SLICE_S)  # woken by render(); sliced to see cancel
                    continue
                piece = dev[off : off + room]
                self._segments.append(Segment(turn, piece))
                self._queued += len(piece)
                off += len(piece)
                turn.enqueued = base + n_voice * off // len(dev)
            turn.enqueued = base + n_voice
            return True

    # ----------------------------------------------------------------- control, any thread
    def flush(self, turn_id: TurnId) -> None:
        """Stop ``turn_id`` now; later audio for it is refused.

        The next rendered block fades it out over ``fade_s`` and drops the rest.
        Runs on: any thread.
        """
        with self._cond:
            turn = self._turns.get(turn_id)
            if turn is None:
                # Flushing a turn that never queued anything still refuses its audio.
                if turn_id < self._latest:
                    return
                turn = TurnRecord(turn_id)
                self._turns[turn_id] = turn
            self._flush_locked(turn)
            self._cond.notify_all()

    def _flush_locked(self, turn: TurnRecord) -> None:
        if turn.state in ("flushed", "finished"):
            return
        audible = turn.consumed_dev > 0 and not self._fade.silent and any(
            s.turn is turn for s in self._segments
        )
        if audible and self._segments[0].turn is turn:
            # render() fades it out, then drops it. Keep only the samples the fade needs
            # so the look-ahead frees at once for the next turn.
            turn.flush_pending = True
            self._trim_locked(turn, self._fade.samples_left())
        else:
            self._drop_locked(turn)

    def _trim_locked(self, turn: TurnRecord, keep: int) -> None:
        kept: deque[Segment] = deque()
        for seg in self._segments:
            if seg.turn is turn:
                left = len(seg.data) - seg.off
                if keep <= 0:
                    continue
                if left > keep:
                    seg.data = seg.data[: seg.off + keep]
                keep -= min(left, keep)
            kept.append(seg)
        self._segments = kept
        self._queued = sum(len(s.data) - s.off for s in kept)

    def _drop_locked(self, turn: TurnRecord) -> None:
        kept = deque(s for s in self._segments if s.turn is not turn)
        self._queued = sum(len(s.data) - s.off for s in kept)
        self._segments = kept
        turn.flush_pending = False
        turn.state = "flushed"

    def duck(self, gain: float) -> None:
        """Lower the output to ``gain`` (0..1), ramped over one block. Runs on: any thread."""
        self._duck.set(gain)

    def unduck(self) -> None:
        """Restore full level. Runs on: any thread."""
        self._duck.set(1.0)

    def pause(self) -> None:
        """Fade out and hold the position (nothing is skipped). Runs on: any thread."""
        self._paused = True

    def resume(self) -> None:
        """Fade back in from where :meth:`pause` stopped. Runs on: any thread."""
        self._paused = False

    def restore(self) -> None:
        """Undo :meth:`pause` and :meth:`duck`: full level again. Runs on: any thread."""
        self.resume()
        self.unduck()

    @property
    def paused(self) -> bool:
        """True between :meth:`pause` and :meth:`resume`."""
        return self._paused

    @property
    def busy(self) -> bool:
        """Audio queued, a reply paused, or a producer about to queue: the output keeps
        running (SpeakerOutput sleeps only when this is False)."""
        return bool(self._queued or self._paused or self._producers)

    @property
    def queued_s(self) -> float:
        """Seconds queued ahead of the playhead."""
        return self._queued / self.device_rate

    def status(self, turn_id: TurnId) -> TurnPlayback | None:
        """Return a snapshot of ``turn_id`` (None if unknown or forgotten). Runs on: any thread."""
        with self._cond:
            turn = self._turns.get(turn_id)
            if turn is None:
                return None
            played = 0
            if turn.rate:
                played = int((turn.consumed_dev - turn.delay_dev) * turn.rate / self.device_rate)
                played = max(0, min(turn.enqueued, played))
            state = turn.state
            if state == "pending" and turn.consumed_dev > 0:
                state = "playing"
            return TurnPlayback(turn.turn_id, turn.rate, turn.enqueued, played,
                                turn.first_mono, turn.first_stream, state)

    def wait_finished(self, turn_id: TurnId, timeout_s: float) -> TurnPlayback | None:
        """Block until ``turn_id`` is finished or flushed (or the timeout); return its status.

        Runs on: a worker thread.
        """
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while True:
                turn = self._turns.get(turn_id)
                if turn is None or turn.state in ("finished", "flushed"):
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(min(left, _WAIT_SLICE_S))
        return self.status(turn_id)

    # ----------------------------------------------------------------- consumer side
    def render(self, frames: int, timing: BlockTiming | None = None) -> npt.NDArray[np.float32]:
        """Produce the next ``frames`` mono samples for the device.

        Runs on: the audio output callback. Copies only; never blocks for long.
        """
        out = np.zeros(frames, dtype=np.float32)
        with self._cond:
            pos = 0
            while pos < frames and self._segments:
                seg = self._segments[0]
                turn = seg.turn
                stopping = turn.flush_pending or self._paused
                if stopping and self._fade.silent:
                    if turn.flush_pending:
                        self._drop_locked(turn)
                        continue
                    break  # paused: hold the position
                n = min(frames - pos, len(seg.data) - seg.off)
                if stopping:
                    n = min(n, self._fade.samples_left())
                gains = self._fade.ramp(n, 0.0 if stopping else 1.0)
                chunk = seg.data[seg.off : seg.off + n]
                out[pos : pos + n] = chunk if gains is None else chunk * gains
                if turn.consumed_dev == 0 and n > 0:
                    self._stamp_first(turn, pos, timing)
                turn.consumed_dev += n
                seg.off += n
                self._queued -= n
                pos += n
                if seg.off >= len(seg.data):
                    self._segments.popleft()
                    self._update_finished(turn)
            if not self._segments and not self._paused:
                self._fade.reset()  # idle: the next turn starts at full level, not faded in
            self._duck.apply(out)
            self._cond.notify_all()
        if self.tap is not None:
            self.tap.push(out, timing)
        return out

    def _stamp_first(self, turn: TurnRecord, pos: int, timing: BlockTiming | None) -> None:
        offset = pos / self.device_rate
        if timing is not None:
            turn.first_stream = timing.dac_s + offset
            turn.first_mono = self._clock() + timing.output_latency_s + offset
        else:
            turn.first_mono = self._clock() + offset

    def _update_finished(self, turn: TurnRecord) -> None:
        if turn.state == "flushed" or any(s.turn is turn for s in self._segments):
            return
        if turn.flush_pending:  # the fade-out consumed the last kept samples
            turn.flush_pending = False
            turn.state = "flushed"
        elif turn.ended:
            turn.state = "finished"
