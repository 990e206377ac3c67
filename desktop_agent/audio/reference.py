"""The far-end reference tap: what the loudspeaker actually played, for the echo canceller.

The output callback pushes exactly the mono block it handed to the device, with the
block's DAC time. The AEC worker reads it back resampled to 16 kHz, with the DAC
time of the first sample it got, so it can line the reference up with microphone
frames by their ADC time (both are PortAudio stream times).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from desktop_agent.audio.resample import Resampler
from desktop_agent.audio.ring import SampleRing
from desktop_agent.core.ports import ASR_SAMPLE_RATE


@dataclass(frozen=True, slots=True)
class BlockTiming:
    """PortAudio timing of one output callback block (seconds of stream time)."""

    stream_now_s: float
    """``time.currentTime``: when the callback was invoked."""
    dac_s: float
    """``time.outputBufferDacTime``: when the block's first sample leaves the DAC."""

    @property
    def output_latency_s(self) -> float:
        """How far ahead of 'now' the block will be heard."""
        return self.dac_s - self.stream_now_s


class FarEndTap:
    """A bounded SPSC buffer of played samples, read back at 16 kHz.

    Producer: the output callback (:meth:`push` only copies). Consumer: the AEC
    worker (:meth:`read`). If the consumer falls behind by more than ``capacity_s``
    the newest samples are dropped and counted in :attr:`dropped`.
    """

    def __init__(self, device_rate: int, capacity_s: float = 2.0,
                 out_rate: int = ASR_SAMPLE_RATE) -> None:
        """Create a tap.

        Args:
            device_rate: the output device's sample rate in Hz.
            capacity_s: how much unread audio is kept.
            out_rate: the rate :meth:`read` returns (16 kHz for the AEC).
        """
        self.device_rate = device_rate
        self.out_rate = out_rate
        self._ring = SampleRing(int(capacity_s * device_rate), np.float32)
        self._resampler = Resampler(device_rate, out_rate)
        # (device-rate index of a block's first sample, its DAC time); replaced as one
        # tuple so the consumer never sees a torn pair.
        self._anchor: tuple[int, float] | None = None
        self.output_latency_s: float | None = None
        """Latest DAC time minus callback time (None before the first timed block)."""
        self._base_dev = 0  # device index of output sample 0 (moves on clear)
        self._out_count = 0  # samples returned by read() since then

    @property
    def dropped(self) -> int:
        """Samples lost because the consumer fell behind."""
        return self._ring.dropped

    def push(self, block: npt.NDArray[np.float32], timing: BlockTiming | None = None) -> None:
        """Append the block that was just handed to the device.

        Runs on: the audio output callback (copies only).
        """
        if timing is not None:
            self._anchor = (self._ring.total_written, timing.dac_s)
            self.output_latency_s = timing.output_latency_s
        self._ring.write(block)

    def read(self, max_out: int | None = None) -> tuple[npt.NDArray[np.float32], float | None]:
        """Return the unread reference at ``out_rate`` and the DAC time of its first sample.

        Args:
            max_out: at most this many output samples (approximately; None = all).

        Returns:
            (samples, dac_time_s) where dac_time_s is None if no timing is known yet.
            The time accounts for the resampler's delay.

        Runs on: the AEC worker thread.
        """
        avail = len(self._ring)
        if max_out is not None:
            avail = min(avail, int(max_out * self.device_rate / self.out_rate))
        out = self._resampler.process(self._ring.read(avail).astype(np.float32, copy=False))
        dac: float | None = None
        anchor = self._anchor
        if anchor is not None and len(out):
            # Output sample j stands for device sample base + j * ratio - filter delay.
            first_dev = (
                self._base_dev
                + self._out_count * self.device_rate / self.out_rate
                - self._resampler.delay_s * self.device_rate
            )
            dac = anchor[1] + (first_dev - anchor[0]) / self.device_rate
        self._out_count += len(out)
        return out, dac

    def clear(self) -> None:
        """Drop unread audio (e.g. after the AEC was reset). Runs on: the AEC worker."""
        self._ring.clear()
        self._resampler.reset()
        self._base_dev = self._ring.total_read
        self._out_count = 0
