"""One worker per engine, each on its own QThread.

Workers receive jobs through queued signals from the controller and report back with
``sig_event_reported(core event)``: the frozen event objects the turn machine consumes. Results
that carry more than an event have one frozen payload and one signal each: a partial
transcript (``AsrWorker.sig_partial_transcribed``), a synthesized chunk with its audio
(``TtsWorker.sig_chunk_synthesized``), a spoken aside (``TtsWorker.sig_aside_synthesized``).
A queued job never cancels a busy worker (it is not delivered while the worker's loop is
blocked), so cancellation is the job's ``CancelToken``, set directly from the GUI thread
and checked at every yield point. Late output of a cancelled job is still emitted and is
dropped by the turn machine by job id: it is never played. The LLM's worker is in
``runtime/llm_worker.py``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from PySide6.QtCore import QObject, QThread, Signal, Slot

from desktop_agent.audio.speech_chunk import speak_text
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.errors import AgentError
from desktop_agent.core.listening.partials import join_transcript
from desktop_agent.core.ports import AsrEngine, SpeechChunk, TtsEngine
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns.commands import RunTool
from desktop_agent.core.turns.events import AsrFinal, StageFailed, ToolResult, TtsChunkReady
from desktop_agent.core.turns.states import JobId, Stage
from desktop_agent.core.turns.tool_desk import ToolAnswer, WriteDesk, respond
from desktop_agent.runtime.payloads import (
    AsideJob,
    AsrJob,
    AsrPartialResult,
    LoadState,
    SpokenAside,
    SynthesizedChunk,
    ToolJob,
    TtsJob,
)

__all__ = ["AdjustableTts", "AsrWorker", "EngineWorker", "ToolWorker", "TtsWorker",
           "start_worker"]
_LOGGER = logging.getLogger(__name__)


class AdjustableTts(TtsEngine, Protocol):
    """A voice whose pace can change between sentences."""

    def set_speaking_rate(self, rate: float) -> None:
        """Change the pace for the next sentences (0.5 .. 2.0). Runs on: the TTS thread."""
        ...


E = TypeVar("E")


class EngineWorker(QObject, Generic[E]):
    """Base: owns one engine, created on the worker thread by ``load``.

    Runs on: its own QThread (all slots).
    """

    sig_event_reported = Signal(object)
    """A core turn event (AsrFinal, LlmToken, ToolResult, StageFailed, ...)."""
    sig_load_state_changed = Signal(object)
    """LoadState: loading / ready / failed."""

    stage_name = "engine"

    def __init__(self, factory: Callable[[], E]) -> None:
        """Keep ``factory``: ``load`` calls it on the worker thread."""
        super().__init__()
        self._factory = factory
        self.engine: E | None = None

    @Slot()
    def load(self) -> None:
        """Create the engine. Runs on: the worker thread."""
        self.sig_load_state_changed.emit(LoadState(self.stage_name, "loading"))
        t0 = time.perf_counter()
        try:
            self.engine = self._factory()
        except AgentError as exc:
            self.sig_load_state_changed.emit(LoadState(self.stage_name, "failed",
                                                       exc.describe(), error=exc))
            return
        except Exception as exc:  # a load must report, never kill the thread
            err = AgentError(f"{self.stage_name}_load_failed", f"{exc.__class__.__name__}: {exc}",
                             "Run `desktop-agent doctor`.")
            self.sig_load_state_changed.emit(LoadState(self.stage_name, "failed",
                                                       err.describe(), error=err))
            return
        self._after_load()
        self.sig_load_state_changed.emit(LoadState(self.stage_name, "ready", "",
                                                   (time.perf_counter() - t0) * 1000))

    def _after_load(self) -> None:
        """Finish loading (nothing by default); the engine is reported ready after it.

        A subclass extends the load here, never by overriding ``load``: PySide6 would deliver
        ``QThread.started`` to an overriding slot on the GUI thread, not the worker's.
        Runs on: the worker thread.
        """

    def _fail(self, turn_id: TurnId, job: JobId | None, stage: Stage, exc: BaseException) -> None:
        if isinstance(exc, AgentError):
            code, message = exc.code, exc.message
        else:
            code, message = f"{stage.value}_failed", f"{exc.__class__.__name__}: {exc}"
        _LOGGER.warning("turn=%d job=%s %s failed: %s", turn_id, job, stage.value, message)
        self.sig_event_reported.emit(StageFailed(turn_id=turn_id, at_s=time.monotonic(),
                                                 job=job, stage=stage, code=code,
                                                 message=message))


class AsrWorker(EngineWorker[AsrEngine]):
    """faster-whisper on its thread."""

    sig_partial_transcribed = Signal(object)
    """AsrPartialResult: a partial job's transcript (never sent for a cancelled job)."""

    stage_name = "asr"

    def __init__(self, factory: Callable[[], AsrEngine],
                 is_hallucination: Callable[[str, float, float], bool]) -> None:
        """``is_hallucination(text, no_speech_prob, speech_ratio)`` voids a transcript."""
        super().__init__(factory)
        self._is_hallucination = is_hallucination
        self.submitted = 0
        """Jobs handed to this worker (counted by the GUI thread, in ``note_submitted``)."""
        self.finished = 0
        """Jobs it finished (counted by the ASR thread). Each counter has one writer."""

    @property
    def busy(self) -> bool:
        """True while a job is queued or running. Runs on: GUI thread.

        Queued counts: on a busy machine the ASR thread may take a while to pick a job up,
        and a job that is merely waiting must not be taken for one the worker dropped.
        """
        return self.submitted != self.finished

    def note_submitted(self) -> None:
        """Count one job about to be queued. Runs on: GUI thread."""
        self.submitted += 1

    @Slot(object)
    def run(self, job: AsrJob) -> None:
        """Transcribe one buffer. Runs on: the ASR thread."""
        try:
            if self.engine is None:
                raise AgentError("asr_not_ready", "Speech recognition is still loading.")
            if job.context:
                result = self.engine.transcribe(job.audio, job.cancel, context=job.context)
            else:
                result = self.engine.transcribe(job.audio, job.cancel)
            text = result.text.strip()
            no_speech = (not text) or self._is_hallucination(text, result.no_speech_prob,
                                                                job.speech_ratio)
            if job.context:  # the audio after committed words: heard silence adds nothing
                text = join_transcript(job.context, "" if no_speech else text)
                no_speech = not text
            now = time.monotonic()
            if job.partial:
                # Partials go to the controller as a result: it decides whether one already
                # is the final transcript, and what the machine gets to see.
                if not job.cancel.cancelled:
                    self.sig_partial_transcribed.emit(AsrPartialResult(job, text, no_speech))
            else:
                self.sig_event_reported.emit(AsrFinal(
                    turn_id=job.turn_id, at_s=now, job=job.job, text="" if no_speech else text,
                    no_speech=no_speech))
        except Exception as exc:
            if not job.partial:
                self._fail(job.turn_id, job.job, Stage.ASR, exc)
            elif not job.cancel.cancelled:
                # A failed partial heard nothing: the recorder may be waiting for it.
                _LOGGER.warning("turn=%d partial transcript failed: %s", job.turn_id, exc)
                self.sig_partial_transcribed.emit(AsrPartialResult(job, "", True))
        finally:
            self.finished += 1



class ToolWorker(EngineWorker[ToolRegistry]):
    """Runs tools off the GUI thread: reads, and the write path's prepare/revise/execute."""

    stage_name = "tool"

    def __init__(self, tools: ToolRegistry, desk: WriteDesk | None = None) -> None:
        """Run the tools of ``tools``; writes go to ``desk`` (None: unavailable)."""
        super().__init__(lambda: tools)
        self._desk = desk

    @Slot(object)
    def run(self, job: ToolJob) -> None:
        """Answer one tool job. Runs on: the tool thread."""
        if job.cancel.cancelled:  # queued behind a slow tool, then the turn gave up on it:
            _LOGGER.info("turn=%d job=%s tool %s: cancelled before it ran, not run",
                         job.turn_id, job.job, job.call.name)
            return  # an action nobody waits for any more never runs late and silently
        command = job.command or RunTool(turn_id=job.turn_id, job=job.job, call=job.call)
        if self.engine is None:
            answer = ToolAnswer("Sorry, the tools are still loading.", True)
        else:
            try:
                answer = respond(self.engine, self._desk, command)
            except Exception as exc:  # a failing store or tool path: an answer, not a hang
                # Escaping this slot would leave the turn waiting for a result until the tool
                # timeout, then apologise; the failure said as the tool's answer lets the
                # reply say what went wrong at once.
                message = exc.message if isinstance(exc, AgentError) else (
                    f"{exc.__class__.__name__}: {exc}")
                _LOGGER.warning("turn=%d job=%s tool %s failed: %s", job.turn_id, job.job,
                                job.call.name, message)
                answer = ToolAnswer(f"Sorry, the {job.call.name.replace('_', ' ')} tool "
                                    f"failed: {message}", True)
        if not job.cancel.cancelled:
            self.sig_event_reported.emit(ToolResult(
                turn_id=job.turn_id, at_s=time.monotonic(), job=job.job,
                call_id=job.call.call_id, content=answer.content, is_error=answer.is_error,
                action=answer.action, final=answer.final))


class TtsWorker(EngineWorker[AdjustableTts]):
    """Piper on its thread: exactly one synthesized chunk per job (pieces joined)."""

    sig_chunk_synthesized = Signal(object)
    """SynthesizedChunk: a reply chunk's audio and its TtsChunkReady (not for a cancelled job)."""
    sig_aside_synthesized = Signal(object)
    """SpokenAside: the audio of an AsideJob (its chunk is None when the voice failed)."""

    stage_name = "tts"

    @Slot(object)
    def run(self, job: TtsJob) -> None:
        """Speak one clause. Runs on: the TTS thread."""
        if job.cancel.cancelled:  # cancelled while queued: nobody will play it
            return
        try:
            chunk = self.speak(job.text, job.cancel)
            if job.cancel.cancelled:
                return
            self.sig_chunk_synthesized.emit(SynthesizedChunk(TtsChunkReady(
                turn_id=job.turn_id, at_s=time.monotonic(), job=job.job,
                chunk_index=job.chunk_index, text=chunk.text if chunk else "",
                n_samples=chunk.n_samples if chunk else 0,
                sample_rate=chunk.sample_rate if chunk else self._rate(),
                words=chunk.words if chunk else (), aligned=chunk.aligned if chunk else False,
                written_text=job.text),
                None if chunk is None else chunk.audio, job.cancel))
        except Exception as exc:
            if not job.cancel.cancelled:
                self._fail(job.turn_id, job.job, Stage.TTS, exc)

    @Slot(float)
    def set_rate(self, rate: float) -> None:
        """A new speaking rate for the next sentences. Runs on: the TTS thread."""
        if self.engine is not None:
            self.engine.set_speaking_rate(rate)

    @Slot(object)
    def speak_aside(self, job: AsideJob) -> None:
        """Synthesize outside the turn machine: a SpokenAside, never an event.

        Runs on: the TTS thread.
        """
        try:
            chunk = self.speak(job.text, job.cancel)
        except Exception as exc:  # an aside is best effort: the caption still shows it
            _LOGGER.warning("turn=%d aside not spoken: %s", job.turn_id, exc)
            chunk = None
        self.sig_aside_synthesized.emit(SpokenAside(job, chunk))

    def _rate(self) -> int:
        return int(self.engine.sample_rate) if self.engine is not None else 22050

    def speak(self, text: str, cancel: CancelToken) -> SpeechChunk | None:
        """Normalise and synthesise ``text`` into one chunk (None if nothing to say)."""
        if self.engine is None:
            raise AgentError("tts_not_ready", "The voice is still loading.")
        return speak_text(self.engine, text, cancel)


def start_worker(worker: EngineWorker[Any], name: str) -> QThread:
    """Move ``worker`` to a new QThread, start it, and queue its ``load``."""
    thread = QThread()
    thread.setObjectName(name)
    worker.moveToThread(thread)
    thread.finished.connect(worker.deleteLater)
    thread.started.connect(worker.load)
    thread.start()
    return thread
