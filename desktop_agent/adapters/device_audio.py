"""The real sound card, presented like ``audio.virtual.VirtualAudio``.

A MicInput and a SpeakerOutput (PortAudio via sounddevice) around one Player whose
far-end tap gives the AEC exactly the samples the output callback played. ``read``
returns each mic block with the far-end block of the same length; the AEC's adaptive
filter (200 ms tail) absorbs the remaining device latency difference.

A stream that fails mid-turn raises DeviceError from ``read``; the capture worker reports
it and calls ``read`` again, which reopens the stream (or the default device) first.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop_agent.adapters.audio_io import MicInput, SpeakerOutput, _sd, find_device
from desktop_agent.audio.player import Player
from desktop_agent.audio.reference import FarEndTap
from desktop_agent.core.errors import DeviceError
from desktop_agent.core.ports import ASR_SAMPLE_RATE

_LOGGER = logging.getLogger(__name__)


def _output_rate(device: str | None) -> int:
    try:
        sd = _sd()
        index = find_device(device, "output")
        return int(sd.query_devices(index, "output")["default_samplerate"]) or 48_000
    except Exception:  # opening will report the real problem with the device's name
        return 48_000


FAR_MARGIN_S = 0.01
"""The far-end handed to the AEC with a mic block recorded at ADC time T is what the DAC
played from T + this margin: the echo of a sample played at T + m arrives at T + m + d
(d: the acoustic and device delay), so it always comes at least the margin after its
reference, as a causal adaptive filter needs, even when the device timestamps are a few
milliseconds early. (Reading from *before* T instead, as an early version did, put the
echo ahead of its reference: uncancellable until the delay tracker moved it.)"""


class FarTimeline:
    """Far-end samples (16 kHz) handed to the AEC in step with the mic.

    Both streams run on one sample clock, so the far-end is read with a pointer that
    advances exactly as many samples as each mic block holds: the echo path the adaptive
    filter learns stays put. The device timestamps (the DAC time of the tap's samples,
    the ADC time of the mic's) only place that pointer at start and correct slow drift:
    they jitter by tens of milliseconds through some sound servers, so they are averaged
    and the pointer moves only when the average error passes 20 ms.
    """

    def __init__(self, rate: int = ASR_SAMPLE_RATE, seconds: float = 4.0) -> None:
        self.rate = rate
        self._buf = np.zeros(int(seconds * rate), dtype=np.float32)
        self.written = 0
        self.t0: float | None = None
        """Stream time of far index 0 (averaged over reads)."""
        self.pointer: int | None = None
        """Far index that goes with the next mic sample."""
        self._err = 0.0
        self._n_t0 = 0
        self.jumps = 0
        self.shifted = 0
        """Samples the delay tracker moved the pointer by (kept across timestamp updates)."""

    def push(self, samples: npt.NDArray[np.float32], dac_s: float | None) -> None:
        """Append what the tap returned, with the DAC time of its first sample."""
        if dac_s is not None and len(samples):
            t0 = dac_s - self.written / self.rate
            self._n_t0 += 1  # a running mean first, then a slow average
            alpha = max(0.02, 1.0 / self._n_t0)
            self.t0 = t0 if self.t0 is None else (1 - alpha) * self.t0 + alpha * t0
        cap = len(self._buf)
        for i in range(0, len(samples), cap):
            piece = samples[i:i + cap]
            self._buf[(self.written + np.arange(len(piece))) % cap] = piece
            self.written += len(piece)

    def reanchor(self) -> None:
        """The output stream underran: the device timestamps moved and the averaged ones
        would take seconds to follow. Start the average afresh and place the pointer anew
        (the delay tracker's correction stays: it belongs to the echo path)."""
        self._n_t0 = 0
        self._err = 0.0
        self.pointer = None

    def take(self, start_s: float, n: int) -> npt.NDArray[np.float32] | None:
        """``n`` far samples for a mic block recorded from stream time ``start_s``."""
        if self.t0 is None:
            return None
        ideal = int(round((start_s - self.t0) * self.rate)) - self.shifted
        if self.pointer is None:
            self.pointer = ideal
        else:
            self._err = 0.95 * self._err + 0.05 * (ideal - self.pointer)
            if abs(self._err) > 0.02 * self.rate:
                self.pointer += int(round(self._err))
                self._err = 0.0
                self.jumps += 1
        start, self.pointer = self.pointer, self.pointer + n
        out = np.zeros(n, dtype=np.float32)
        lo = max(start, self.written - len(self._buf), 0)
        hi = min(start + n, self.written)
        if hi > lo:
            out[lo - start:hi - start] = self._buf[np.arange(lo, hi) % len(self._buf)]
        return out


class EchoDelayTracker:
    """Measures where the echo really sits relative to the far-end handed to the AEC.

    Device timestamps can be off by tens of milliseconds (some sound servers report their
    latency wrongly), and an echo that arrives *before* its reference cannot be cancelled.
    So, while the speaker plays, the tracker cross-correlates the mic with that far-end
    (FFT, lags within +-300 ms, once per second of far-end activity) and, when two
    estimates agree and the echo is not 5-120 ms after the reference, says how far to move
    the far-end pointer so that it sits ``target_s`` after it.
    """

    def __init__(self, rate: int = ASR_SAMPLE_RATE, window_s: float = 1.0,
                 target_s: float = 0.03) -> None:
        self.rate = rate
        self.window = int(window_s * rate)
        self.target = int(target_s * rate)
        self._near: list[npt.NDArray[np.float32]] = []
        self._far: list[npt.NDArray[np.float32]] = []
        self._held = 0
        self._last: int | None = None
        self.lag: int | None = None
        """Latest agreed echo delay after the reference, samples (None: not measured)."""

    def observe(self, near: npt.NDArray[np.float32], far: npt.NDArray[np.float32]) -> int:
        """Add a block pair; return the pointer correction in samples (0: none needed)."""
        self._near.append(near)
        self._far.append(far)
        self._held += len(near)
        if self._held < self.window:
            return 0
        a = np.concatenate(self._near)[-self.window:]
        b = np.concatenate(self._far)[-self.window:]
        self._near, self._far, self._held = [], [], 0
        if float(np.mean(b * b)) < 1e-5 or float(np.mean(a * a)) < 1e-7:
            return 0  # the speaker is (nearly) silent: nothing to measure
        max_lag = int(0.3 * self.rate)
        size = 1 << int(np.ceil(np.log2(len(a) + len(b))))
        xc = np.fft.irfft(np.fft.rfft(a, size) * np.conj(np.fft.rfft(b, size)), size)
        lags = np.concatenate([xc[:max_lag], xc[-max_lag:]])
        idx = int(np.argmax(np.abs(lags)))
        lag = idx if idx < max_lag else idx - 2 * max_lag
        peak = abs(float(lags[idx])) / (float(np.linalg.norm(a) * np.linalg.norm(b)) + 1e-12)
        agreed = peak > 0.3 and self._last is not None and abs(lag - self._last) <= 32
        self._last = lag if peak > 0.3 else None
        if not agreed:
            return 0
        self.lag = lag
        if int(0.005 * self.rate) <= lag <= int(0.12 * self.rate):
            return 0
        self._last = None
        return lag - self.target


class DeviceAudio:
    """Mic + speaker on the system's devices (chosen by name substring; '' = default)."""

    rate = ASR_SAMPLE_RATE

    def __init__(self, input_device: str = "", output_device: str = "",
                 block_s: float = 0.01) -> None:
        out_rate = _output_rate(output_device or None)
        self.tap = FarEndTap(out_rate)
        self.player = Player(out_rate, tap=self.tap)
        self.mic = MicInput(input_device or None, block_s)
        self.speaker = SpeakerOutput(self.player, output_device or None, block_s)
        self.mic_start_s = 0.0
        self.samples = 0
        self._need_reopen = False
        self._reanchor = False
        self._last_check = 0.0
        self._started = False
        self._underflows = 0
        self.far = FarTimeline()
        self.delay = EchoDelayTracker()
        self.echo_path_version = 0
        """Bumped whenever the echo reference moves: the capture pipeline relearns the path."""

    def start(self) -> None:
        """Open both streams (once). Raises DeviceError naming the device that failed."""
        if self._started:
            return
        self._started = True
        self.speaker.start()
        self.mic.start()
        self.mic_start_s = time.monotonic()
        self.samples = 0

    def stop(self) -> None:
        """Close both streams."""
        self.mic.close()
        self.speaker.close()

    def read(self, timeout_s: float = 0.1
             ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] | None:
        """The next mic block (16 kHz) and the far-end played meanwhile. Runs on: capture."""
        if self._need_reopen:
            self._reopen()
        try:
            now = time.monotonic()
            if now - self._last_check > 1.0:
                self._last_check = now
                self.speaker.check()
            near, adc = self.mic.read(160, timeout_s)
        except DeviceError:
            self._need_reopen = True
            raise
        if len(near) == 0:
            return None
        if self.samples == 0 or self._reanchor:
            # Absolute mic indices stay continuous across a reopen (the pipeline's history
            # counts them), but the outage took wall time they never saw: re-anchor so that
            # time_of() of new samples is now, not seconds in the past (which would make
            # every later onset look like playback warm-up echo).
            self.mic_start_s = time.monotonic() - (self.samples + len(near)) / self.rate
            self._reanchor = False
        far_new, dac = self.tap.read()
        underflows = self.speaker.underflows
        if underflows != self._underflows:
            # The device skipped ahead or stalled: the echo moved against its reference.
            self._underflows = underflows
            self.far.reanchor()
            self.echo_path_version += 1
        self.far.push(far_new, dac)
        aligned = None if adc is None else self.far.take(adc + FAR_MARGIN_S, len(near))
        if adc is not None:
            self._anchor_clock(adc)
        if aligned is None:  # no device timing (some host APIs): the newest far-end
            aligned = np.zeros(len(near), np.float32)
            tail = far_new[-len(near):]
            aligned[len(near) - len(tail):] = tail
        else:
            shift = self.delay.observe(near, aligned)
            if shift and self.far.pointer is not None:
                # A positive lag means the echo comes later than wanted: read the far-end
                # later too (and vice versa). The AEC re-adapts to the new path.
                self.far.pointer -= shift
                self.far.shifted += shift
                self.echo_path_version += 1
                _LOGGER.info("turn=0 echo reference moved by %.1f ms (echo was %.1f ms after it)",
                             -shift * 1000 / self.rate,
                             (shift + self.delay.target) * 1000 / self.rate)
        self.samples += len(near)
        return near, aligned

    def _anchor_clock(self, adc_s: float) -> None:
        """Keep time_of() on the monotonic clock even when the mic delivers unevenly."""
        stream = getattr(self.mic, "_stream", None)
        if stream is None:
            return
        try:
            mono = adc_s + (time.monotonic() - float(stream.time))
        except Exception:  # a stream that just died: the next read reports it
            return
        start = mono - self.samples / self.rate
        if abs(start - self.mic_start_s) > 0.05:
            self.mic_start_s = start
        else:
            self.mic_start_s = 0.95 * self.mic_start_s + 0.05 * start

    def _reopen(self) -> None:
        label = self.mic.reopen()
        self.speaker.reopen()
        self.tap.clear()
        self.far = FarTimeline()
        self.delay = EchoDelayTracker()
        self.echo_path_version += 1
        self._need_reopen = False
        self._reanchor = True
        _LOGGER.warning("turn=0 audio devices reopened (%s)", label)

    def time_of(self, sample: int) -> float:
        """Monotonic time of absolute mic index ``sample``."""
        return self.mic_start_s + sample / self.rate

    def sample_at(self, t: float) -> int:
        """Absolute mic index at monotonic time ``t``."""
        return int(round((t - self.mic_start_s) * self.rate))

    def describe(self) -> dict[str, Any]:
        """Names of the streams in use (for the GUI and doctor)."""
        return {"input": self.mic.label, "output": self.speaker.label}
