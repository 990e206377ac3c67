"""The controller: owns the turn machine on the GUI thread and runs its commands.

Events come in from the GUI (push-to-talk), the capture worker (speech onsets/ends) and
the engine workers (as core events); each goes through ``TurnStateMachine.handle`` and
the resulting commands are executed here: jobs are sent to workers with a CancelToken,
cancels set the token, playback goes through the feeder into the Player, timers become
QTimers. The GUI sees only the AgentViewModel signals.

Runs on: GUI thread (everything in this class).
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QThread, QTimer, Signal

from desktop_agent.audio.capture import CapturePipeline, playback_onset_s
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.errors import AgentError
from desktop_agent.core.history import History
from desktop_agent.core.policy.bargein import BargeInDecider
from desktop_agent.core.policy.endpointing import Endpointer
from desktop_agent.core.prompts import SYSTEM_PROMPT
from desktop_agent.core.settings import Settings
from desktop_agent.core.telemetry import TurnSpan
from desktop_agent.core.text.chunker import first_clause_chunker
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.machine import TurnStateMachine
from desktop_agent.core.turns.model import Stage, State
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.runtime.audio_workers import CaptureWorker, PlaybackFeeder
from desktop_agent.runtime.bargein_tracker import BargeInTracker
from desktop_agent.runtime.capture_routing import (
    CaptureRouting,
    barge_settings,
    endpoint_settings,
    error_text,
)
from desktop_agent.runtime.extras import Extras
from desktop_agent.runtime.playback_commands import PlaybackCommands
from desktop_agent.runtime.playback_monitor import PlaybackMonitor
from desktop_agent.runtime.recorder import Recorder
from desktop_agent.runtime.view_api import AgentViewModel, ErrorNotice, LevelReading, LoadProgress
from desktop_agent.runtime.workers import EngineWorker, LlmJob, ToolJob, TtsJob

_LOGGER = logging.getLogger(__name__)


@dataclass
class Engines:
    """The workers the controller drives (built by the composition root)."""

    asr: EngineWorker
    llm: EngineWorker
    tts: EngineWorker
    tool: EngineWorker
    threads: list[QThread] = field(default_factory=list)


class AgentController(CaptureRouting, PlaybackCommands, AgentViewModel):
    """The real view model: turn machine + workers + audio."""

    sig_asr_job = Signal(object)
    """Queued to the ASR worker."""
    sig_llm_job = Signal(object)
    """Queued to the LLM worker."""
    sig_tts_job = Signal(object)
    """Queued to the TTS worker."""
    sig_tool_job = Signal(object)
    """Queued to the tool worker."""
    sig_tts_rate = Signal(float)
    """Queued to the TTS worker: a new speaking rate."""
    sig_state = Signal(object)
    """The machine's State after every event (tests and the bench wait on it)."""

    def __init__(self, engines: Engines, backend: Any, pipeline: CapturePipeline,
                 settings: Settings | None = None, policy: TurnPolicy | None = None,
                 span_sink: Callable[[TurnSpan], None] | None = None,
                 count_tokens: Callable[[str], int] | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        history = History(SYSTEM_PROMPT, **({"count_tokens": count_tokens} if count_tokens else {}))
        barge = barge_settings(self.settings)
        policy = policy or TurnPolicy(duck_gain_db=barge.duck_gain_db)
        self.machine = TurnStateMachine(history, policy=policy,
                                        chunker_factory=first_clause_chunker)
        self.engines = engines
        self.backend = backend
        self.pipeline = pipeline
        self.mode = self.settings.interaction.mode
        self._span_sink = span_sink
        self._tokens: dict[int, CancelToken] = {}
        self._timers: dict[int, QTimer] = {}
        self._audio: dict[tuple[int, int], Any] = {}
        self._assistant_text: dict[int, str] = {}
        self._spans_done = 0
        self._loading: dict[str, str] = {}
        self.transitions: list[Any] = []
        self._closed = False
        self.barge = BargeInDecider(barge)
        pipeline.playback_onset_s = playback_onset_s(self.settings.barge_in.sensitivity)
        self._wire_workers()
        self.barge_tracker = BargeInTracker(
            self.barge, pipeline.history, backend.rate, self._feed, self.sig_asr_job.emit,
            lambda: bool(getattr(engines.asr, "busy", True)), backend.time_of, parent=self,
            reply_text=lambda: self._assistant_text.get(self.machine.turn_id, ""))
        self.feeder = PlaybackFeeder(backend.player)
        self.monitor = PlaybackMonitor(backend.player, self._feed, self)
        self.monitor.attach_feeder(self.feeder)
        self.capture = CaptureWorker(backend, pipeline)
        self._capture_thread = QThread()
        self._capture_thread.setObjectName("capture")
        self.capture.moveToThread(self._capture_thread)
        self._capture_thread.started.connect(self.capture.run)
        self.capture.sig_capture.connect(self._on_capture_sig_capture)
        self.capture.sig_levels.connect(self._on_capture_sig_levels)
        self.capture.sig_failed.connect(self._on_capture_sig_failed)
        self.recorder = Recorder(self, backend, pipeline, self._feed, self.sig_asr_job.emit,
                                 lambda: bool(getattr(engines.asr, "busy", True)), self._token,
                                 endpoint_settings(self.settings))
        self.extras = Extras(self)

    # --- life cycle ------------------------------------------------------------------------------

    def _wire_workers(self) -> None:
        e = self.engines
        self.sig_asr_job.connect(e.asr.run)
        self.sig_llm_job.connect(e.llm.run)
        self.sig_tts_job.connect(e.tts.run)
        self.sig_tool_job.connect(e.tool.run)
        if hasattr(e.tts, "set_rate"):
            self.sig_tts_rate.connect(e.tts.set_rate)
        for worker in (e.asr, e.llm, e.tts, e.tool):
            worker.sig_event.connect(self._feed)
            worker.sig_load_state.connect(self._on_worker_sig_load_state)
        e.tts.sig_result.connect(self._on_tts_sig_result)
        # A bound method of this GUI-thread object, never a lambda: a lambda has no thread
        # affinity, so Qt would call it directly on the ASR thread.
        e.asr.sig_result.connect(self._on_asr_sig_result)

    def start(self) -> None:
        """Start audio and capture. Workers were started by the composition root."""
        self.backend.start()
        self._capture_thread.start()
        self.monitor.start()

    def shutdown(self) -> None:
        """Stop in phases: input, processing, output. Later events are ignored."""
        self._closed = True
        for timer in self._timers.values():
            timer.stop()
        self._timers.clear()
        self.barge_tracker.cancel()
        self.capture.stop()
        self._capture_thread.quit()
        self._capture_thread.wait(2000)
        for token in self._tokens.values():
            token.cancel("shutdown")
        for thread in self.engines.threads:
            thread.quit()
            thread.wait(5000)
        self.monitor.stop()
        self.feeder.close()
        self.backend.stop()

    # --- view-model requests (GUI) ---------------------------------------------------------------

    def ptt_press(self) -> None:
        """Push-to-talk pressed. Runs on: GUI thread."""
        if self.machine.state is State.LISTENING:
            self.monitor.stop_apology()  # a repeated answer or the speaker test stops here
        self._feed(ev.PttPressed(turn_id=self.machine.turn_id, at_s=time.monotonic()))

    def ptt_release(self) -> None:
        """Push-to-talk released. Runs on: GUI thread."""
        self._feed(ev.PttReleased(turn_id=self.machine.turn_id, at_s=time.monotonic()))

    def set_mode(self, mode: str) -> None:
        """'push_to_talk' or 'hands_free'."""
        self.mode = mode

    def apply_settings(self, settings: Settings) -> None:
        """Apply what can change live (mode, barge-in, endpointing, speaking rate).

        Devices, models and echo cancellation need a restart: a notice says so.
        """
        old, self.settings = self.settings, settings
        self.mode = settings.interaction.mode
        self.barge = self.barge_tracker.decider = BargeInDecider(barge_settings(settings))
        self.pipeline.playback_onset_s = playback_onset_s(settings.barge_in.sensitivity)
        self.recorder.endpointer = Endpointer(endpoint_settings(settings))
        if settings.voice.speaking_rate != old.voice.speaking_rate:
            self.sig_tts_rate.emit(settings.voice.speaking_rate)
        later = [name for name, a, b in (
            ("the audio devices", old.audio.input_device + old.audio.output_device,
             settings.audio.input_device + settings.audio.output_device),
            ("echo cancellation", old.audio.echo_cancellation, settings.audio.echo_cancellation),
            ("the models", old.models, settings.models)) if a != b]
        if later:
            self.sig_error.emit(ErrorNotice(
                "restart_needed", f"Saved. Changes to {' and '.join(later)} apply after a "
                "restart.", "Quit and start desktop_agent again."))

    def repeat_last_answer(self) -> None:
        """Say the last answer again, as it was heard."""
        self.extras.repeat()

    def rephrase_last_answer(self) -> None:
        """Ask for the last answer in simpler words (a real, typed turn)."""
        self.extras.rephrase()

    def run_first_run_check(self) -> None:
        """Mic level, speaker test and echo calibration."""
        self.extras.first_run_check()

    def ask_text(self, text: str) -> None:
        """A typed question: a turn like a spoken one, with ``text`` as its transcript."""
        if self.machine.state is not State.LISTENING:
            return
        self.recorder.typed_text = text
        self.ptt_press()
        self.ptt_release()

    # --- the one entry point into the machine -----------------------------------------------------

    def _feed(self, event: Any) -> None:
        if self._closed:
            return  # shut down: workers and their threads are gone
        if isinstance(event, ev.AsrPartial) and self.barge_tracker.take_partial(event):
            return  # a transcript of barge-in audio: the tracker's, not the machine's
        if isinstance(event, ev.AsrPartial) and event.turn_id == self.machine.turn_id:
            self.recorder.note_partial(event.job, event.text)
            self.sig_partial_transcript.emit(int(event.turn_id), event.text)
        step = self.machine.handle(event)
        if step.transition is not None:
            self.transitions.append(step.transition)
            self.sig_transition.emit(step.transition)
            self._on_transition(step.transition)
        for command in step.commands:
            try:
                self._run(command)
            except Exception as exc:  # a command that cannot run fails its turn, not the app
                _LOGGER.exception("turn=%d command %s failed", command.turn_id, command)
                err = exc if isinstance(exc, AgentError) else AgentError("internal_error", str(exc))
                self._feed(ev.StageFailed(turn_id=self.machine.turn_id, at_s=time.monotonic(),
                                          job=None, stage=command.stage, code=err.code,
                                          message=err.message))
        self._publish_spans()
        self.sig_state.emit(self.machine.state)

    def _on_transition(self, t: Any) -> None:
        _LOGGER.info("turn=%d %s -> %s (%s)", t.turn_id, t.source.name, t.target.name, t.cause)
        self.recorder.on_transition(t)
        if t.target is State.ERROR:
            self.sig_error.emit(ErrorNotice(t.cause, error_text(t.cause),
                                            "Say it again, or press and hold Space."))
        elif t.source is State.ERROR:
            self.sig_error_cleared.emit()
        if t.target in (State.LISTENING, State.INTERRUPTED):
            self.sig_caption.emit("")  # the caption shows only what is being said now
        if t.target is State.LISTENING:
            self.pipeline.silence_s = None
        if t.target is State.ASSISTANT_SPEAKING:
            self.pipeline.set_playback(True)
        if t.source is State.ASSISTANT_SPEAKING:
            self._leave_speaking(t.target)

    def _publish_spans(self) -> None:
        spans = self.machine.completed_spans
        while self._spans_done < len(spans):
            span = spans[self._spans_done]
            self._spans_done += 1
            self.sig_span.emit(copy.deepcopy(span))
            if self._span_sink is not None:
                try:
                    self._span_sink(span)
                except OSError as exc:
                    _LOGGER.warning("turn=%d cannot write telemetry: %s", span.turn_id, exc)

    # --- commands --------------------------------------------------------------------------------

    def _token(self, job: int, turn_id: TurnId) -> CancelToken:
        token = self._tokens.get(job)
        if token is None:
            token = self._tokens[job] = CancelToken(turn_id)
        return token

    def _cancel(self, job: int, reason: str) -> None:
        token = self._tokens.pop(job, None)
        if token is not None:
            token.cancel(reason)

    def _run(self, c: Any) -> None:
        handler = getattr(self, "_cmd_" + type(c).__name__, None)
        if handler is None:
            raise AgentError("unknown_command", f"No handler for {type(c).__name__}.")
        handler(c)

    def _cmd_StartRecording(self, c: cmd.StartRecording) -> None:
        self.recorder.start(c)

    def _cmd_StopRecording(self, c: cmd.StopRecording) -> None:
        self.recorder.stop(c)

    def _cmd_Transcribe(self, c: cmd.Transcribe) -> None:
        self.recorder.transcribe(c)

    def _cmd_CancelAsr(self, c: cmd.CancelAsr) -> None:
        self._cancel(c.job, "asr cancelled")

    def _cmd_StartLlm(self, c: cmd.StartLlm) -> None:
        self.sig_llm_job.emit(LlmJob(c.turn_id, c.job, c.messages, self._token(c.job, c.turn_id)))

    def _cmd_CancelLlm(self, c: cmd.CancelLlm) -> None:
        self._cancel(c.job, "llm cancelled")

    def _cmd_RunTool(self, c: cmd.RunTool) -> None:
        self.sig_tool_job.emit(ToolJob(c.turn_id, c.job, c.call, self._token(c.job, c.turn_id)))

    def _cmd_CancelTool(self, c: cmd.CancelTool) -> None:
        self._cancel(c.job, "tool cancelled")

    def _cmd_Synthesize(self, c: cmd.Synthesize) -> None:
        self.sig_tts_job.emit(TtsJob(c.turn_id, c.job, c.chunk_index, c.text,
                                     self._token(c.job, c.turn_id)))

    def _cmd_CancelTts(self, c: cmd.CancelTts) -> None:
        for job in c.jobs:
            self._cancel(job, "tts cancelled")

    def _on_asr_sig_result(self, result: Any) -> None:
        self.recorder.on_asr_result(result)

    def _cmd_StartTimer(self, c: cmd.StartTimer) -> None:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(lambda: self._on_timer(c))
        self._timers[c.job] = timer
        timer.start(int(c.seconds * 1000))

    def _on_timer(self, c: cmd.StartTimer) -> None:
        if self._timers.pop(c.job, None) is not None:
            self._feed(ev.StageTimedOut(turn_id=c.turn_id, at_s=time.monotonic(), job=c.job,
                                        stage=c.stage))

    def _cmd_CancelTimer(self, c: cmd.CancelTimer) -> None:
        timer = self._timers.pop(c.job, None)
        if timer is not None:
            timer.stop()
            timer.deleteLater()

    def _cmd_PublishUserText(self, c: cmd.PublishUserText) -> None:
        self.sig_user_final.emit(int(c.turn_id), c.text)

    def _cmd_PublishHeard(self, c: cmd.PublishHeard) -> None:
        self.sig_heard.emit(c.report)

    def _on_capture_sig_levels(self, mic_db: float, speaker_db: float, erle: Any) -> None:
        self.sig_levels.emit(LevelReading(mic_db, speaker_db, erle))
        self.extras.on_levels(mic_db, speaker_db, erle)

    def _on_capture_sig_failed(self, exc: Any) -> None:
        err = exc if isinstance(exc, AgentError) else AgentError("device_error", str(exc))
        self.sig_error.emit(ErrorNotice.from_error(err))
        state = self.machine.state
        if state not in (State.LISTENING, State.ERROR):
            # A turn cannot go on without its devices: fail it (ERROR, an apology, then
            # LISTENING) rather than wait for audio that will never be played or heard.
            speaking = state in (State.ASSISTANT_SPEAKING, State.INTERRUPTED)
            self._feed(ev.StageFailed(
                turn_id=self.machine.turn_id, job=None, code=err.code, message=err.message,
                stage=Stage.PLAYBACK if speaking else Stage.RECORDING, at_s=time.monotonic()))

    def _on_worker_sig_load_state(self, state: Any) -> None:
        stage = state.stage if state.stage in ("asr", "llm", "tts", "vad", "aec") else None
        self._loading[state.stage] = state.status
        if stage is not None:
            self.sig_loading.emit(LoadProgress(stage, state.status, state.detail))
        if state.status == "failed" and state.error is not None:
            self.sig_error.emit(ErrorNotice.from_error(state.error))

    def loaded(self) -> bool:
        """True when ASR, LLM and TTS are ready."""
        return all(self._loading.get(s) == "ready" for s in ("asr", "llm", "tts"))
