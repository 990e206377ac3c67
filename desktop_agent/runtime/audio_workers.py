"""The audio side of the runtime: the capture loop and the playback feeder.

``CaptureWorker`` runs a loop on its own QThread: it reads mic blocks (with the far-end
blocks played meanwhile) from the audio backend, runs the CapturePipeline (AEC, VAD,
segmenter, history) and reports speech onsets/ends and levels by signal.

``PlaybackFeeder`` is a plain thread that moves synthesized chunks into the Player with
backpressure (the Player holds at most ~1 s ahead of the playhead), so neither the GUI
thread nor the TTS worker ever blocks on the device.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any, Final, TypeAlias

import numpy.typing as npt
from PySide6.QtCore import QObject, Signal, Slot

from desktop_agent.audio.backend import AudioBackend, echo_path_reader, echo_settling_reader
from desktop_agent.audio.capture import CapturePipeline, level_db
from desktop_agent.audio.capture_trace import CaptureTrace
from desktop_agent.audio.player import Player
from desktop_agent.core.cancel import CancelToken, TurnId

_LOGGER = logging.getLogger(__name__)

RETRY_S: Final = 0.5
"""Wait after the first failed read of the devices, seconds (it doubles after each)."""
RETRY_MAX_S: Final = 8.0
"""The longest wait between two tries to reopen devices that keep failing, seconds."""


class CaptureWorker(QObject):
    """Runs the capture pipeline. Runs on: its own QThread (the ``run`` loop)."""

    sig_speech_detected = Signal(object)
    """A CaptureEvent (speech started/ended, absolute mic indices)."""
    sig_levels_measured = Signal(float, float, object)
    """mic dBFS, speaker dBFS, ERLE dB or None (about 15 per second)."""
    sig_failed = Signal(object)
    """The exception the device raised (the loop keeps running and retries)."""

    def __init__(self, backend: AudioBackend, pipeline: CapturePipeline) -> None:
        """Read from ``backend`` into ``pipeline`` once ``run`` starts."""
        super().__init__()
        self.backend = backend
        self.pipeline = pipeline
        self._stop = threading.Event()
        self.enabled = True
        self._wake_output = getattr(backend, "wake_output", None)
        """A backend whose speaker sleeps while idle wakes it when someone starts talking."""

    def stop(self) -> None:
        """Ask the loop to end. Runs on: any thread."""
        self._stop.set()

    @Slot()
    def run(self) -> None:
        """The capture loop. Runs on: the capture thread until ``stop``."""
        if self.pipeline.trace is None:
            self.pipeline.trace = CaptureTrace.from_env()
        try:
            self._loop()
        finally:
            self._save_trace()

    def _save_trace(self) -> None:
        trace = self.pipeline.trace
        if trace is None:
            return
        try:
            _LOGGER.info("turn=0 capture trace written to %s", trace.save())
        except OSError as exc:
            _LOGGER.warning("turn=0 capture trace not written to %s: %s", trace.path, exc)

    def _loop(self) -> None:
        last_levels = 0.0
        last_reading: tuple[float, float, float | None] = (-100.0, -100.0, None)
        version_of = echo_path_reader(self.backend)
        settling = echo_settling_reader(self.backend)
        path_version = version_of()
        failures = 0
        while not self._stop.is_set():
            try:
                block = self.backend.read(0.1, self.pipeline.samples_wanted())
            except Exception as exc:  # a vanished device: report, back off, retry
                self.sig_failed.emit(exc)
                failures += 1
                # No sound server, or a device gone for good: each try costs a PortAudio
                # open (and a notice), so the tries thin out (0.5 s, 1, 2, 4, 8, 8, ...);
                # a stop request ends the wait at once.
                self._stop.wait(min(RETRY_MAX_S, RETRY_S * 2 ** min(failures - 1, 8)))
                continue
            failures = 0
            if block is None:
                continue
            near, far = block
            version = version_of()
            if version != path_version:  # the reference moved: relearn the echo path
                path_version = version
                self.pipeline.echo_path_changed(getattr(self.backend, "echo_path_reason", ""))
            self.pipeline.echo_settling = settling()
            notes = getattr(self.backend, "echo_notes", None)
            while notes and self.pipeline.trace is not None:
                self.pipeline.trace.mark(self.pipeline.history.end, notes.popleft())
            try:
                events = self.pipeline.process(near, far)
            except Exception as exc:  # never let one bad block end capture
                _LOGGER.exception("turn=0 capture block failed: %s", exc)
                continue
            if self._wake_output is not None and (events or self.pipeline.segmenter.in_speech):
                self._wake_output()  # the reply that may follow finds the speaker running
            for event in events:
                self.sig_speech_detected.emit(event)
            now = time.monotonic()
            if now - last_levels >= 1 / 15:
                reading = (self.pipeline.mic_db,
                           level_db(far) if far is not None else -100.0, self.pipeline.erle_db)
                # An unchanged reading (a quiet room, nothing playing) is not sent again for
                # a second: each one wakes the GUI thread for nothing.
                if now - last_levels >= 1.0 or _changed(reading, last_reading):
                    last_levels, last_reading = now, reading
                    self.sig_levels_measured.emit(*reading)


def _changed(new: tuple[float, float, float | None],
             old: tuple[float, float, float | None]) -> bool:
    """Whether a level reading moved by a meter's step (1 dB) or the ERLE appeared/went."""
    if (new[2] is None) != (old[2] is None):
        return True
    pairs = [(new[0], old[0]), (new[1], old[1])]
    if new[2] is not None and old[2] is not None:
        pairs.append((new[2], old[2]))
    return any(abs(a - b) >= 1.0 for a, b in pairs)


Audio: TypeAlias = npt.NDArray[Any]
"""Mono samples (int16 from the voice, or float32)."""
_FeedJob: TypeAlias = tuple[TurnId, Audio | None, int, CancelToken]


class PlaybackFeeder:
    """Feeds chunk audio into the Player in order, blocking only its own thread."""

    def __init__(self, player: Player) -> None:
        """Start the feeder thread for ``player``."""
        self.player = player
        self._jobs: queue.Queue[_FeedJob | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="playback-feeder", daemon=True)
        self._thread.start()

    def play(self, key: TurnId, audio: Audio, sample_rate: int, cancel: CancelToken) -> None:
        """Queue ``audio`` for the player stream ``key``. Runs on: any thread."""
        self._jobs.put((key, audio, sample_rate, cancel))

    def end(self, key: TurnId, cancel: CancelToken) -> None:
        """Mark the stream complete after what is queued. Runs on: any thread."""
        self._jobs.put((key, None, 0, cancel))

    def close(self) -> None:
        """Stop the thread (after what is queued). Runs on: any thread but the feeder's."""
        self._jobs.put(None)
        self._thread.join(timeout=2)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            key, audio, rate, cancel = job
            if cancel.cancelled:
                continue
            if audio is None:
                self.player.end_turn(key)
                continue
            self.player.enqueue(key, audio, rate, cancel=cancel)
