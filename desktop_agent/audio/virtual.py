"""A virtual sound card: a real-time clocked speaker and microphone with no hardware.

One thread ticks every ``block_s``: it pulls a block from the Player (exactly as a device
output callback would), records it, optionally feeds a delayed, attenuated copy back into
the microphone (echo), mixes in whatever speech was injected, and queues the mic block
with the far-end block for the capture worker. Used by headless runs, the turn benchmark
and end-to-end tests; the real devices (adapters/audio/audio_io.py) present the same interface.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from desktop_agent.audio.player import Player
from desktop_agent.core.ports import ASR_SAMPLE_RATE

MicBlock = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]
"""(mic samples, far-end samples played over the same span), both 16 kHz float32."""


class VirtualAudio:
    """Speaker + microphone on one real-time clock, at 16 kHz.

    Args:
        block_s: Callback period (10 ms like a small device buffer).
        echo_gain: Amplitude of the speaker leaking into the mic (0 = headphones).
        echo_delay_s: Acoustic + device delay of that leak.
        noise_db: Level of white noise in the mic (dBFS), or None for digital silence.
        max_ahead_s: The Player's bounded look-ahead.
        record_speaker: Keep every block the speaker played (``speaker_log``: tests and the
            benchmark read it). An app that runs for hours without a sound card turns it
            off: the log grows by 64 KB a second.
    """

    rate = ASR_SAMPLE_RATE

    def __init__(self, block_s: float = 0.01, echo_gain: float = 0.0, echo_delay_s: float = 0.03,
                 noise_db: float | None = -70.0, max_ahead_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic,
                 record_speaker: bool = True) -> None:
        self.block = int(round(block_s * self.rate))
        self.player = Player(self.rate, max_ahead_s=max_ahead_s, clock=clock)
        self.echo_gain = echo_gain
        self._echo_delay = int(round(echo_delay_s * self.rate))
        self._noise = None if noise_db is None else 10 ** (noise_db / 20)
        self._clock = clock
        self._queue: queue.Queue[MicBlock] = queue.Queue(maxsize=500)
        self._inject: list[tuple[int, npt.NDArray[np.float32]]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._echo_line = np.zeros(self._echo_delay + self.block, dtype=np.float32)
        self.mic_start_s = 0.0
        """Monotonic time of mic sample 0."""
        self.samples = 0
        """Blocks ticked so far times the block size (absolute sample index)."""
        self.speaker_log: list[npt.NDArray[np.float32]] = []
        """Every block the speaker played (for tests and the benchmark)."""
        self.record_speaker = record_speaker
        self._rng = np.random.default_rng(1)

    # -- control ---------------------------------------------------------------------------
    def start(self) -> None:
        """Start the clock."""
        if self._thread is not None:
            return
        self._stop.clear()
        self.mic_start_s = self._clock()
        self._thread = threading.Thread(target=self._run, name="virtual-audio", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the clock and join the thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._thread = None

    def inject(self, audio: npt.NDArray[np.float32], at_sample: int | None = None) -> int:
        """Mix ``audio`` (16 kHz) into the mic from ``at_sample`` (default: next block).

        Returns the absolute mic index where it starts.
        """
        with self._lock:
            start = self.samples + self.block if at_sample is None else at_sample
            self._inject.append((start, np.asarray(audio, dtype=np.float32)))
        return start

    def read(self, timeout_s: float = 0.1, min_samples: int | None = None) -> MicBlock | None:
        """The next mic block and its far-end block, or None after ``timeout_s``.

        Blocks come at the virtual clock's own size; ``min_samples`` is ignored.
        """
        try:
            return self._queue.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def time_of(self, sample: int) -> float:
        """Monotonic time of absolute mic index ``sample``."""
        return self.mic_start_s + sample / self.rate

    def sample_at(self, t: float) -> int:
        """Absolute mic index at monotonic time ``t``."""
        return int(round((t - self.mic_start_s) * self.rate))

    def speaker_audio(self) -> npt.NDArray[np.float32]:
        """Everything the speaker played so far."""
        return np.concatenate(self.speaker_log) if self.speaker_log else np.zeros(0, np.float32)

    # -- the clock -------------------------------------------------------------------------
    def _run(self) -> None:
        period = self.block / self.rate
        next_t = self.mic_start_s
        while not self._stop.is_set():
            next_t += period
            delay = next_t - self._clock()
            if delay > 0:
                time.sleep(delay)
            elif delay < -0.5:  # the machine stalled: do not try to catch up half a second
                now = self._clock()
                # The samples the stall skipped were never made: move the clock origin, so
                # that time_of/sample_at keep meaning the samples the mic really delivers
                # (a recording opened at a press time must not start after its audio).
                with self._lock:
                    self.mic_start_s += now - next_t
                next_t = now
            self._tick()

    def _tick(self) -> None:
        n = self.block
        out = self.player.render(n).astype(np.float32).reshape(-1)
        if self.record_speaker:
            self.speaker_log.append(out.copy())
        mic = np.zeros(n, dtype=np.float32)
        if self._noise is not None:
            mic += self._rng.normal(0, self._noise, n).astype(np.float32)
        if self.echo_gain:
            self._echo_line = np.concatenate([self._echo_line[n:], out])
            mic += self.echo_gain * self._echo_line[:n]
        with self._lock:
            start = self.samples
            keep = []
            for at, audio in self._inject:
                lo, hi = max(at, start), min(at + len(audio), start + n)
                if hi > lo:
                    mic[lo - start:hi - start] += audio[lo - at:hi - at]
                if at + len(audio) > start + n:
                    keep.append((at, audio))
            self._inject = keep
            self.samples += n
        try:
            self._queue.put_nowait((mic, out))
        except queue.Full:  # nobody reads: drop, like an overrun device
            pass
