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
from collections import deque
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop_agent.adapters.audio.audio_devices import find_device, load_sounddevice
from desktop_agent.adapters.audio.audio_io import MicInput, SpeakerOutput
from desktop_agent.audio.far_alignment import FAR_MARGIN_S, EchoDelayTracker, FarTimeline
from desktop_agent.audio.player import Player
from desktop_agent.audio.reference import FarEndTap
from desktop_agent.core.errors import DeviceError
from desktop_agent.core.ports import ASR_SAMPLE_RATE

_LOGGER = logging.getLogger(__name__)

MIC_BLOCK_S = 0.032
"""Microphone callback period: one VAD frame (512 samples at 16 kHz). Nothing is decided on
less than a frame, and each callback and capture loop costs a fixed amount of CPU: 10 ms
blocks made the idle app three times as busy (docs/notes/idle.md)."""
SPEAKER_BLOCK_S = 0.02
"""Speaker callback period: at least the player's fade; 20 ms halves the idle callbacks of
10 ms for at most 10 ms more between a flush and silence."""
SPEAKER_LATENCY = "high"
"""PortAudio's output latency hint: the device's own "high" suggestion (35 ms through
PulseAudio's ALSA plugin) rather than its "low" one (9 ms). With "low", on a 2-core machine
with two busy processes beside the app, the output callback missed its deadline 14 times a
minute of playback (a click in the reply, and the echo reference placed anew each time);
with more slack it misses far less. The cost: a pause or flush is heard up to ~25 ms later."""
SPEAKER_SLEEP_S = 10.0
"""The output stream stops once nothing has played, been queued or been said (a speech
onset) for this long; it starts again in 1-4 ms when audio is queued or someone speaks
(docs/notes/idle.md). Ten seconds, not three: the timer runs from the end of the user's
speech, and on a busy machine a reply can come later than 3 s, on a freshly woken stream,
whose first DAC timestamps come 46, 30 and 10 ms early (measured on the virtual card).
The one CI misplacement of the echo reference traced since came from elsewhere: the
delay tracker restored after a wake the lag it had moved the reference away from
(far_alignment.EchoDelayTracker). The idle figure is measured after 45 s of
settling: the stream sleeps all the same."""


def _output_rate(device: str | None) -> int:
    try:
        sd = load_sounddevice()
        index = find_device(device, "output")
        return int(sd.query_devices(index, "output")["default_samplerate"]) or 48_000
    except Exception:  # opening will report the real problem with the device's name
        return 48_000


class DeviceAudio:
    """Mic + speaker on the system's devices (chosen by name substring; '' = default)."""

    rate = ASR_SAMPLE_RATE

    def __init__(self, input_device: str = "", output_device: str = "",
                 mic_block_s: float = MIC_BLOCK_S, speaker_block_s: float = SPEAKER_BLOCK_S,
                 sleep_after_s: float | None = SPEAKER_SLEEP_S) -> None:
        out_rate = _output_rate(output_device or None)
        self.tap = FarEndTap(out_rate)
        self.player = Player(out_rate, tap=self.tap)
        self.mic = MicInput(input_device or None, mic_block_s)
        self.speaker = SpeakerOutput(self.player, output_device or None, speaker_block_s,
                                     latency=SPEAKER_LATENCY, sleep_after_s=sleep_after_s)
        self.player.on_enqueue = self.speaker.wake
        self.mic_start_s = 0.0
        self.samples = 0
        self._need_reopen = False
        self._reanchor = False
        self._last_check = 0.0
        self._started = False
        self._underflows = 0
        self._wakes = 0
        self.far = FarTimeline()
        self.delay = EchoDelayTracker()
        self.echo_path_version = 0
        """Bumped whenever the echo reference moves: the capture pipeline relearns the path."""
        self.echo_notes: deque[str] = deque(maxlen=32)
        """What happened to the echo reference (wakes, underruns, restores), for the capture
        trace; the capture loop takes them."""
        self.echo_path_reason = ""
        """Why the version was last bumped ('underflow' before any lag was learnt,
        'delay_shift', 'restore_failed', 'reopen'): the capture trace marks it."""

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

    def read(self, timeout_s: float = 0.1, min_samples: int | None = None
             ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] | None:
        """The next mic block (16 kHz) and the far-end played meanwhile. Runs on: capture.

        Waits for about ``min_samples`` (default 10 ms) and returns all that is available.
        """
        if self._need_reopen:
            self._reopen()
        try:
            now = time.monotonic()
            if now - self._last_check > 1.0:
                self._last_check = now
                self.speaker.check()
                self.speaker.sleep_if_idle(now)
            near, adc = self.mic.read(min_samples or 160, timeout_s)
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
        wakes = self.speaker.wakes  # before the tap: what it holds then came before a wake
        far_new, dac = self.tap.read()
        underflows = self.speaker.underflows
        if underflows != self._underflows:
            # The device skipped ahead or stalled: the echo moved against its reference.
            # Place the reference anew from the next timestamps and restore, by measuring,
            # the lag the canceller learnt (it keeps its filter); with no lag learnt yet,
            # the canceller learns the path anew.
            self._underflows = underflows
            self.far.reanchor()
            self.echo_notes.append("underflow: reference placed anew")
            if not self.delay.expect_restore():
                self._relearn("underflow")
        if wakes != self._wakes:
            # The stream slept: its clock went on without samples. Place the reference anew
            # from the next timestamps; the echo path itself did not move (the canceller
            # keeps what it learnt; the delay tracker restores the lag it knows).
            self._wakes = wakes
            self.far.reanchor()
            self.echo_notes.append("wake: reference placed anew")
            self.delay.expect_restore()
        self.far.push(far_new, dac)
        aligned = None if adc is None else self.far.take(adc + FAR_MARGIN_S, len(near))
        if adc is not None:
            self._anchor_clock(adc)
        if aligned is None:  # no device timing (some host APIs): the newest far-end
            aligned = np.zeros(len(near), np.float32)
            tail = far_new[-len(near):]
            aligned[len(near) - len(tail):] = tail
        else:
            fix = self.delay.observe(near, aligned)
            if fix.shift and self.far.pointer is not None:
                # A positive lag means the echo comes later than wanted: read the far-end
                # later too (and vice versa).
                self.far.pointer -= fix.shift
                self.far.shifted += fix.shift
                note = (f"echo reference moved by {-fix.shift * 1000 / self.rate:.1f} ms ("
                        + ("the canceller relearns)" if fix.relearn else "lag restored)"))
                self.echo_notes.append(note)
                _LOGGER.info("turn=0 %s", note)
            if fix.relearn:  # the echo sits where the canceller never learnt it
                self._relearn("delay_shift" if fix.shift else "restore_failed")
        self.samples += len(near)
        return near, aligned

    @property
    def echo_path_settling(self) -> bool:
        """True while the reference, placed anew after an underrun or a wake, is measured
        back to the lag the canceller learnt (the echo gate judges conservatively)."""
        return self.delay.restoring

    def _relearn(self, reason: str) -> None:
        """The echo moved where the canceller never learnt it: the pipeline resets it."""
        self.echo_path_version += 1
        self.echo_path_reason = reason

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

    def wake_output(self) -> None:
        """Someone started talking: have the speaker running before the reply comes.
        Runs on: the capture thread."""
        self.speaker.wake()

    def _reopen(self) -> None:
        label = self.mic.reopen()
        self.speaker.reopen()
        self.tap.clear()
        self.far = FarTimeline()
        self.delay = EchoDelayTracker()
        self._relearn("reopen")
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
