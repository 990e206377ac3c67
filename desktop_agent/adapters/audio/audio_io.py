"""Microphone and loudspeaker streams through sounddevice (PortAudio).

Callbacks only copy: the input callback writes mono samples into a ring buffer, the
output callback asks the :class:`~desktop_agent.audio.player.Player` to render. All
resampling (device rate -> 16 kHz) happens on the reading worker thread.

Devices are chosen by a case-insensitive substring of their name, or the system default
(``audio_devices.find_device``). A device that is missing, or a stream that errors or stops
while running, raises :class:`DeviceError` naming the device; :meth:`reopen` retries with
backoff and falls back to the default device.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop_agent.adapters.audio.audio_devices import find_device, load_sounddevice
from desktop_agent.audio.player import Player
from desktop_agent.audio.reference import BlockTiming
from desktop_agent.audio.resample import Resampler
from desktop_agent.audio.ring import SampleRing
from desktop_agent.core.errors import DeviceError
from desktop_agent.core.ports import ASR_SAMPLE_RATE

_LOGGER = logging.getLogger(__name__)


class _Stream:
    """What input and output share: device choice, failure flag, reopen with backoff."""

    kind = "input"

    def __init__(self, device: str | None, block_s: float) -> None:
        self.device_name = device
        self.block_s = block_s
        self._stream: Any = None
        self._failed: str | None = None
        self._started = False
        self.rate = 0

    @property
    def label(self) -> str:
        """The device as a person would name it."""
        return self.device_name or f"default {self.kind} device"

    def _open(self, device: str | None) -> None:
        raise NotImplementedError

    def start(self) -> None:
        """Open (if needed) and start the stream. Runs on: the owning worker thread."""
        if self._stream is None:
            self._open(self.device_name)
        try:
            self._stream.start()
        except Exception as exc:
            raise DeviceError("audio_stream_failed",
                              f"Could not start the {self.label}: {exc}") from exc
        self._started = True

    def close(self) -> None:
        """Stop and close the stream (idempotent). Runs on: the owning worker thread."""
        stream, self._stream = self._stream, None
        self._started = False
        if stream is not None:
            try:
                stream.abort(ignore_errors=True)
                stream.close(ignore_errors=True)
            except Exception:  # a vanished device may fail to close; nothing to save
                _LOGGER.debug("closing %s failed", self.label, exc_info=True)

    def check(self) -> None:
        """Raise if the stream failed or stopped on its own.

        Raises:
            DeviceError: ``audio_device_lost`` naming the device.
        """
        stopped = self._started and self._stream is not None and not self._stream.active
        if self._failed or stopped:
            why = self._failed or "the stream stopped"
            raise DeviceError(
                "audio_device_lost",
                f"The {self.kind} device {self.label!r} failed: {why}.",
                "Check the device is connected; the app retries and falls back to the default.",
            )

    def reopen(self, retries: int = 3, backoff_s: float = 0.25) -> str:
        """Reopen the chosen device with exponential backoff, else the default device.

        Runs on: the owning worker thread.

        Returns:
            The label of the device that opened.

        Raises:
            DeviceError: ``audio_device_lost`` when even the default device fails.
        """
        self.close()
        candidates = [self.device_name] * max(1, retries)
        if self.device_name:
            candidates.append(None)
        last: Exception | None = None
        for attempt, device in enumerate(candidates):
            try:
                self._failed = None
                self._open(device)
                self.start()
                if device != self.device_name:
                    _LOGGER.warning("%s unavailable; using the default", self.label)
                    self.device_name = None
                return self.label
            except Exception as exc:  # DeviceError or PortAudioError: retry
                last = exc
                self.close()
                time.sleep(backoff_s * (2 ** min(attempt, 4)))
        raise DeviceError(
            "audio_device_lost",
            f"The {self.kind} device {self.label!r} could not be reopened: {last}.",
            "Check the device is connected and not used exclusively by another program.",
        ) from last

    def _on_finished(self) -> None:
        # Runs on: PortAudio's thread when the stream ends (by us or by an error).
        if self._started and self._stream is not None:
            self._failed = self._failed or "the stream ended"


class MicInput(_Stream):
    """The microphone, read back as 16 kHz mono float32 by a worker thread."""

    kind = "input"

    def __init__(self, device: str | None = None, block_s: float = 0.01,
                 capacity_s: float = 5.0) -> None:
        """Create (not yet open) the input.

        Args:
            device: name substring, or None for the default input.
            block_s: callback block duration.
            capacity_s: audio kept if the worker falls behind (then newest is dropped).
        """
        super().__init__(device, block_s)
        self.capacity_s = capacity_s
        self._ring = SampleRing(1, np.float32)
        self._resampler = Resampler(ASR_SAMPLE_RATE, ASR_SAMPLE_RATE)
        self._anchor: tuple[int, float] | None = None
        self.overflows = 0
        self._arrived = 0.0  # monotonic time of the latest callback
        self._gaps: deque[float] = deque(maxlen=9)  # between callbacks that came apart

    def _open(self, device: str | None) -> None:
        sd = load_sounddevice()
        index = find_device(device, "input")
        try:
            info = sd.query_devices(index, "input")
            self.rate = int(info["default_samplerate"])
            self._ring = SampleRing(int(self.capacity_s * self.rate), np.float32)
            self._resampler = Resampler(self.rate, ASR_SAMPLE_RATE)
            self._anchor = None
            self._gaps.clear()  # another device, another period
            self._stream = sd.InputStream(
                device=index, channels=1, samplerate=self.rate, dtype="float32",
                blocksize=int(self.block_s * self.rate), callback=self._callback,
                finished_callback=self._on_finished,
            )
        except DeviceError:
            raise
        except Exception as exc:
            raise DeviceError("audio_stream_failed",
                              f"Could not open the input device {device or 'default'!r}: {exc}",
                              "Pick another input device in Settings.") from exc

    def _callback(self, indata: Any, frames: int, t: Any, status: Any) -> None:
        # Runs on: the audio input callback. Copy only.
        if status.input_overflow:
            self.overflows += 1
        now = time.monotonic()
        if 0.002 < now - self._arrived < 0.5:  # (back-to-back blocks and stalls say nothing)
            self._gaps.append(now - self._arrived)
        self._anchor = (self._ring.total_written, float(t.inputBufferAdcTime))
        self._ring.write(indata[:, 0])
        self._arrived = now  # after the write: a reader that saw it missing waits for the next

    def read(self, min_samples: int, timeout_s: float = 1.0
             ) -> tuple[npt.NDArray[np.float32], float | None]:
        """Wait for about ``min_samples`` at 16 kHz and return all available, resampled.

        Runs on: the capture worker thread.

        Returns:
            (float32 16 kHz mono, ADC stream time of the first returned sample or None).

        Raises:
            DeviceError: ``audio_device_lost`` when the stream failed or stopped.
        """
        self.check()
        need_dev = int(np.ceil(min_samples * self.rate / ASR_SAMPLE_RATE)) if self.rate else 0
        self._ring.wait(need_dev, timeout_s, self.rate or None, self._next_block)
        self.check()
        start = self._ring.total_read
        anchor = self._anchor
        out = self._resampler.process(self._ring.read_available())
        adc = None
        if anchor is not None and self.rate:
            adc = anchor[1] + (start - anchor[0]) / self.rate - self._resampler.delay_s
        return out, adc

    def _next_block(self) -> float | None:
        """When the next callback is expected: the device's usual period after the latest
        (the median of the recent ones: some servers deliver two blocks at once, then none
        for two periods). None before there is a period to go by."""
        gaps = sorted(tuple(self._gaps))
        return self._arrived + gaps[len(gaps) // 2] if gaps else None


class SpeakerOutput(_Stream):
    """The loudspeaker: a PortAudio output stream whose callback renders a Player."""

    kind = "output"

    def __init__(self, player: Player, device: str | None = None, block_s: float = 0.01,
                 latency: str | float = "low", sleep_after_s: float | None = None) -> None:
        """Create (not yet open) the output.

        Args:
            player: renders the audio; the stream runs at ``player.device_rate``.
            device: name substring, or None for the default output.
            block_s: callback block duration (keep >= the player's fade).
            latency: PortAudio latency hint.
            sleep_after_s: stop the stream once nothing has played or been asked for this
                long (:meth:`sleep_if_idle`); None keeps it running.
        """
        super().__init__(device, block_s)
        self.player = player
        self.rate = player.device_rate
        self.latency = latency
        self.channels = 1
        self.underflows = 0
        self.sleep_after_s = sleep_after_s
        self.wakes = 0
        """How often a sleeping stream was started again (the far-end timeline re-anchors)."""
        self._asleep = False
        self._busy_at = time.monotonic()
        self._sleep_lock = threading.Lock()

    def _open(self, device: str | None) -> None:
        self._asleep = False
        sd = load_sounddevice()
        index = find_device(device, "output")
        try:
            info = sd.query_devices(index, "output")
            self.channels = min(2, int(info["max_output_channels"])) or 1
            sd.check_output_settings(index, channels=self.channels, dtype="float32",
                                     samplerate=self.rate)
            self._stream = sd.OutputStream(
                device=index, channels=self.channels, samplerate=self.rate, dtype="float32",
                blocksize=int(self.block_s * self.rate), latency=self.latency,
                callback=self._callback, finished_callback=self._on_finished,
            )
        except DeviceError:
            raise
        except Exception as exc:
            raise DeviceError("audio_stream_failed",
                              f"Could not open the output device {device or 'default'!r} "
                              f"at {self.rate} Hz: {exc}",
                              "Pick another output device in Settings.") from exc

    def _callback(self, outdata: Any, frames: int, t: Any, status: Any) -> None:
        # Runs on: the audio output callback. Player.render only copies.
        if status.output_underflow:
            self.underflows += 1
        timing = BlockTiming(float(t.currentTime), float(t.outputBufferDacTime))
        outdata[:] = self.player.render(frames, timing)[:, np.newaxis]
        if self.player.busy:
            self._busy_at = time.monotonic()

    def check(self) -> None:
        """Raise if the stream failed or stopped on its own (a sleeping one did neither)."""
        if self._asleep and not self._failed:
            return
        super().check()

    def _on_finished(self) -> None:
        if not self._asleep:  # (a stream put to sleep ends too)
            super()._on_finished()

    def wake(self) -> None:
        """Run the stream again if it sleeps: audio is coming, or someone started talking.

        Runs on: any thread. Never raises: a stream that cannot start is reported by the
        next :meth:`check` (the capture thread's), which reopens the device.
        """
        self._busy_at = time.monotonic()
        with self._sleep_lock:
            stream = self._stream
            if not self._asleep or stream is None:
                return
            self.wakes += 1
            try:
                stream.start()
            except Exception as exc:  # the device went while the stream slept
                self._failed = f"it did not start again ({exc})"
            self._asleep = False

    def close(self) -> None:
        """Stop and close the stream (idempotent), never while :meth:`wake` starts it."""
        with self._sleep_lock:
            super().close()
            self._busy_at = time.monotonic()  # a reopened stream gets its full idle time

    def sleep_if_idle(self, now: float) -> bool:
        """Stop the stream once nothing has played or been asked for ``sleep_after_s``:
        idle, it still called back 50 times a second, each call in Python
        (docs/notes/idle.md). True when it was put to sleep. Runs on: the capture thread."""
        if self.sleep_after_s is None or self._asleep or not self._started:
            return False
        with self._sleep_lock:
            if (self._asleep or self._stream is None or self._failed
                    or now - self._busy_at < self.sleep_after_s
                    or self.player.busy):  # (queued: a stalled stream)
                return False
            self._asleep = True
            try:
                self._stream.abort()  # silence is all it holds
            except Exception as exc:
                self._failed = f"it did not stop ({exc})"
        return True

    @property
    def asleep(self) -> bool:
        """True while the stream is stopped for want of anything to play."""
        return self._asleep
