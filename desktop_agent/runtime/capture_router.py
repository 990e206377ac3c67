"""The microphone side of the runtime: the capture thread, and where its events go.

``CaptureRouter`` runs the ``CaptureWorker`` on its own QThread and routes what it reports
by state and mode: a speech onset or end starts or ends a hands-free turn; while the
assistant speaks (hands-free), an onset pauses the reply at once and the barge-in tracker
judges it; a device failure fails the running turn; levels go to the meters.

Runs on: GUI thread (everything here but the worker's loop).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QThread, QTimer

from desktop_agent.audio.backend import AudioBackend
from desktop_agent.audio.capture import CaptureEvent, CapturePipeline
from desktop_agent.core.errors import AgentError
from desktop_agent.core.listening.segmenter import SegmentEvent
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import Stage, State
from desktop_agent.runtime.audio_workers import CaptureWorker
from desktop_agent.runtime.bargein_tracker import BargeInTracker
from desktop_agent.runtime.controller_ports import Feed, MachineView
from desktop_agent.runtime.view_api import ErrorNotice, LevelReading


class CaptureRouter(QObject):
    """Capture events routed to the machine or the barge-in tracker.

    Args:
        machine: Read-only view of the turn machine.
        feed: The controller's single entry into the machine.
        backend: Mic indices to clock seconds, and the mic itself (for the worker).
        pipeline: The capture pipeline the worker runs.
        tracker: Judges an onset during playback.
        mode: The interaction mode now ('push_to_talk' or 'hands_free').
        first_audio_s: When the current reply's first sample played (None: not yet).
        restore_playback: Undoes a pause or duck of the player.
        show_levels: Emits a level reading.
        show_error: Emits an error notice.
        parent: The owning QObject.
    """

    def __init__(self, machine: MachineView, *, feed: Feed, backend: AudioBackend,
                 pipeline: CapturePipeline, tracker: BargeInTracker, mode: Callable[[], str],
                 first_audio_s: Callable[[], float | None],
                 restore_playback: Callable[[], None],
                 show_levels: Callable[[LevelReading], None],
                 show_error: Callable[[ErrorNotice], None],
                 parent: QObject | None = None) -> None:
        """Wire it up; the class docstring describes the arguments."""
        super().__init__(parent)
        self._machine = machine
        self._feed = feed
        self._backend = backend
        self._pipeline = pipeline
        self._tracker = tracker
        self._mode = mode
        self._first_audio_s = first_audio_s
        self._restore_playback = restore_playback
        self._show_levels = show_levels
        self._show_error = show_error
        self._worker = CaptureWorker(backend, pipeline)
        self._thread = QThread()
        self._thread.setObjectName("capture")
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        # Bound methods of this GUI-thread object: Qt queues each call to the GUI thread.
        self._worker.sig_speech_detected.connect(self._on_capture_sig_speech_detected)
        self._worker.sig_levels_measured.connect(self._on_capture_sig_levels_measured)
        self._worker.sig_failed.connect(self._on_capture_sig_failed)

    def start(self) -> None:
        """Start the capture thread."""
        self._thread.start()

    def stop(self) -> None:
        """Stop the capture loop and wait for its thread (shutdown, input phase)."""
        self._tracker.cancel()
        self._worker.stop()
        self._thread.quit()
        self._thread.wait(2000)

    # --- what the capture worker reports ---------------------------------------------------------

    def _on_capture_sig_speech_detected(self, event: CaptureEvent) -> None:
        at = self._backend.time_of(event.detected_sample)
        speech_at = self._backend.time_of(event.speech_sample)
        hands_free = self._mode() == "hands_free"
        if self._machine.state is State.ASSISTANT_SPEAKING and hands_free:
            self._barge_event(event, at)
            return
        if not hands_free:
            return
        if event.kind is SegmentEvent.SPEECH_STARTED:
            self._feed(ev.SpeechStarted(turn_id=self._machine.turn_id, at_s=at,
                                        speech_start_s=speech_at))
        else:
            self._feed(ev.SpeechEnded(turn_id=self._machine.turn_id, at_s=at,
                                      speech_end_s=speech_at))

    def _on_capture_sig_levels_measured(self, mic_db: float, speaker_db: float,
                                        erle_db: float | None) -> None:
        self._show_levels(LevelReading(mic_db, speaker_db, erle_db))

    def _on_capture_sig_failed(self, exc: Exception) -> None:
        err = exc if isinstance(exc, AgentError) else AgentError("device_error", str(exc))
        self._show_error(ErrorNotice.from_error(err))
        state = self._machine.state
        if state not in (State.LISTENING, State.ERROR):
            # A turn cannot go on without its devices: fail it (ERROR, an apology, then
            # LISTENING) rather than wait for audio that will never be played or heard.
            speaking = state in (State.ASSISTANT_SPEAKING, State.INTERRUPTED)
            self._feed(ev.StageFailed(
                turn_id=self._machine.turn_id, job=None, code=err.code, message=err.message,
                stage=Stage.PLAYBACK if speaking else Stage.RECORDING, at_s=time.monotonic()))

    def _barge_event(self, event: CaptureEvent, at: float) -> None:
        """An onset or end while the assistant speaks: pause at once, then let the tracker judge."""
        if event.kind is not SegmentEvent.SPEECH_STARTED:
            self._tracker.speech_ended(event.speech_sample)
            return
        first = self._first_audio_s()
        if self._tracker.decider.is_echo(None if first is None else at - first):
            return
        self._feed(ev.VoiceOnsetDuringPlayback(turn_id=self._machine.turn_id, at_s=at,
                                               speech_start_s=self._backend.time_of(
                                                   event.speech_sample)))
        if self._machine.state is State.ASSISTANT_SPEAKING:
            self._tracker.start(self._machine.turn_id, event.speech_sample)

    # --- the end of a reply ----------------------------------------------------------------------

    def leave_speaking(self, target: State) -> None:
        """The reply ended or was cut: stop judging; a user still talking gets the floor."""
        onset = self._tracker.onset if not self._tracker.ended else None
        self._tracker.cancel()
        self._pipeline.set_playback(False)
        if target is not State.LISTENING:
            return
        self._restore_playback()  # a reply that ended paused or ducked leaves neither
        if onset is not None and self._mode() == "hands_free":
            # The segmenter is inside this speech and will not report its start again.
            QTimer.singleShot(0, self, lambda: self._floor_after_reply(onset))

    def _floor_after_reply(self, onset: int) -> None:
        if self._machine.state is State.LISTENING and self._pipeline.segmenter.in_speech:
            self._feed(ev.SpeechStarted(turn_id=self._machine.turn_id, at_s=time.monotonic(),
                                        speech_start_s=self._backend.time_of(onset)))

