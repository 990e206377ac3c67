"""The GUI thread's side of the engine workers: jobs out, results in, loading state.

Jobs go to each worker by a queued signal, with the job's cancel token from the job table.
What comes back arrives on slots of this GUI-thread object (queued connections): core events
go to ``feed``; a partial transcript to the recorder; a synthesized chunk's audio to the
playback driver, then its ``TtsChunkReady`` to ``feed``; load progress to the GUI.

An LLM that stops in the middle of its answer (no token for ``llm_stall_s`` after its first
output) fails its job here: the machine's own timer only guards the first token, and a reply
whose words stopped coming would otherwise stay in ASSISTANT_SPEAKING, silent, for as long
as the engine stays stuck. One that still writes, but so slowly (a starved machine) that it
is still at it ``llm_reply_budget_s`` after its first output, is stopped there: the reply
ends with what it said (a shorter reply), instead of dribbling on for minutes.

Runs on: GUI thread.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from PySide6.QtCore import QObject, QThread, QTimer, Signal

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns.events import (
    Event,
    LlmFinished,
    LlmStarted,
    LlmToken,
    LlmToolCall,
    StageFailed,
)
from desktop_agent.core.turns.states import JobId, Stage
from desktop_agent.runtime.controller_ports import Feed
from desktop_agent.runtime.jobs import JobTable
from desktop_agent.runtime.llm_worker import LlmWorker
from desktop_agent.runtime.payloads import (
    AsrJob,
    AsrPartialResult,
    LlmJob,
    LoadState,
    PrefillGate,
    PrefillJob,
    ReflectJob,
    SynthesizedChunk,
    ToolJob,
    TtsJob,
)
from desktop_agent.runtime.view_api import LOAD_STAGES, ErrorNotice, LoadProgress
from desktop_agent.runtime.workers import AsrWorker, ToolWorker, TtsWorker

_LOGGER = logging.getLogger(__name__)
STOP_WAIT_MS: Final = 120_000
"""How long shutdown waits for a worker still busy with an uninterruptible job."""
_STUCK: list[QThread] = []
"""Threads that never stopped: kept referenced so that they are never destroyed running."""

NEEDED: Final = ("asr", "llm", "tts")
"""The engines a turn needs loaded."""
LLM_STALL_S: Final = 10.0
"""Seconds without output, after an LLM job's first output, before the job is failed."""
LLM_REPLY_BUDGET_S: Final = 30.0
"""Seconds an LLM job may write after its first output; then the reply ends there. A
healthy 200-token reply takes about 10 s on two cores (and plays for a minute)."""


@dataclass
class Engines:
    """The workers the controller drives (built by the composition root)."""

    asr: AsrWorker
    llm: LlmWorker
    tts: TtsWorker
    tool: ToolWorker
    threads: list[QThread] = field(default_factory=list)
    """Their threads, already started (quit at shutdown)."""


class WorkerLink(QObject):
    """Queues jobs to the workers and routes what they report.

    Args:
        engines: The workers.
        feed: The controller's single entry into the machine.
        jobs: Cancel tokens of the jobs.
        on_partial: Takes a partial transcript (the recorder).
        keep_audio: Takes a synthesized chunk's audio (the playback driver).
        show_loading: Emits load progress.
        show_error: Emits an error notice.
        parent: The owning QObject.
        on_llm_ready: Called once the LLM has loaded and warmed up.
    """

    sig_asr_job_queued = Signal(object)
    """AsrJob: queued to the ASR worker."""
    sig_llm_job_queued = Signal(object)
    """LlmJob: queued to the LLM worker."""
    sig_tts_job_queued = Signal(object)
    """TtsJob: queued to the TTS worker."""
    sig_tool_job_queued = Signal(object)
    """ToolJob: queued to the tool worker."""
    sig_tts_rate_changed = Signal(float)
    """A new speaking rate: queued to the TTS worker."""
    sig_llm_prefill_queued = Signal(object)
    """PrefillJob: the next prompt's start, queued to the LLM worker."""
    sig_reflect_job_queued = Signal(object)
    """ReflectJob: a reflection, queued to the LLM worker (it runs where the LLM runs)."""

    def __init__(self, engines: Engines, *, feed: Feed, jobs: JobTable,
                 on_partial: Callable[[AsrPartialResult], None],
                 keep_audio: Callable[[SynthesizedChunk], None],
                 show_loading: Callable[[LoadProgress], None],
                 show_error: Callable[[ErrorNotice], None],
                 parent: QObject | None = None,
                 on_llm_ready: Callable[[], None] | None = None) -> None:
        """Wire it up; the class docstring describes the arguments."""
        super().__init__(parent)
        self._on_llm_ready = on_llm_ready
        self.engines = engines
        self._feed = feed
        self._jobs = jobs
        self._on_partial = on_partial
        self._keep_audio = keep_audio
        self._show_loading = show_loading
        self._show_error = show_error
        self._loading: dict[str, str] = {}
        self._prefill_gate = PrefillGate()
        self._prefilled_turn: TurnId | None = None
        """The turn whose reply, heard whole, was prefilled while it played (``prefill_once``)."""
        self.llm_stall_s = LLM_STALL_S
        """Seconds an LLM job may go without output after its first (see the module doc)."""
        self.llm_reply_budget_s = LLM_REPLY_BUDGET_S
        """Seconds an LLM job may write after its first output (see the module doc)."""
        self._llm_watch: dict[JobId, tuple[TurnId, float, float | None]] = {}
        """Running LLM jobs: (turn, when it last reported, when its first output came)."""
        self._stall_timer = QTimer(self)  # runs only while an LLM job runs: no idle wake-ups
        self._stall_timer.setInterval(500)
        self._stall_timer.timeout.connect(self._on_stall_timer_timeout)
        e = engines
        self.sig_asr_job_queued.connect(e.asr.run)
        self.sig_llm_job_queued.connect(e.llm.run)
        self.sig_tts_job_queued.connect(e.tts.run)
        self.sig_tool_job_queued.connect(e.tool.run)
        self.sig_tts_rate_changed.connect(e.tts.set_rate)
        self.sig_llm_prefill_queued.connect(e.llm.prefill)
        self.sig_reflect_job_queued.connect(e.llm.reflect)
        # Bound methods of this GUI-thread object, never lambdas: a lambda has no thread
        # affinity, so Qt would call it directly on the worker's thread.
        for worker in (e.asr, e.llm, e.tts, e.tool):
            worker.sig_event_reported.connect(self._on_worker_sig_event_reported)
            worker.sig_load_state_changed.connect(self._on_worker_sig_load_state_changed)
        e.asr.sig_partial_transcribed.connect(self._on_asr_sig_partial_transcribed)
        e.tts.sig_chunk_synthesized.connect(self._on_tts_sig_chunk_synthesized)

    def loaded(self) -> bool:
        """True when ASR, LLM and TTS are ready."""
        return all(self._loading.get(s) == "ready" for s in NEEDED)

    def asr_busy(self) -> bool:
        """Whether the ASR worker is running a job now."""
        return self.engines.asr.busy

    def submit_asr(self, job: AsrJob) -> None:
        """Queue ``job`` to the ASR worker."""
        self.engines.asr.note_submitted()
        self.sig_asr_job_queued.emit(job)

    def start_llm(self, c: cmd.StartLlm) -> None:
        """Queue the LLM job of ``c``."""
        token = self._jobs.token(c.job, c.turn_id)
        self._prefill_gate.supersede()  # the run evaluates what it needs itself
        self._llm_watch[c.job] = (c.turn_id, time.monotonic(), None)
        if not self._stall_timer.isActive():
            self._stall_timer.start()
        self.sig_llm_job_queued.emit(LlmJob(c.turn_id, c.job, c.messages, token,
                                            no_tools=not c.tools))

    def reflect(self, c: cmd.Reflect) -> None:
        """Queue the reflection of ``c`` to the LLM worker."""
        token = self._jobs.token(c.job, c.turn_id)
        self.sig_reflect_job_queued.emit(ReflectJob(c.turn_id, c.job, c.question, c.utterance,
                                                    token))

    def run_tool(self, c: cmd.RunTool) -> None:
        """Queue the tool job of ``c``."""
        token = self._jobs.token(c.job, c.turn_id)
        self.sig_tool_job_queued.emit(ToolJob(c.turn_id, c.job, c.call, token, c))

    def synthesize(self, c: cmd.Synthesize) -> None:
        """Queue the TTS job of ``c``."""
        token = self._jobs.token(c.job, c.turn_id)
        self.sig_tts_job_queued.emit(TtsJob(c.turn_id, c.job, c.chunk_index, c.text, token))

    def prefill_llm(self, messages: tuple[ChatMessage, ...], user_prefix: str = "") -> None:
        """Queue the start of the next prompt to the LLM worker (see ``LlmWorker.prefill``)."""
        if self._loading.get("llm") == "ready":
            self.sig_llm_prefill_queued.emit(PrefillJob(
                messages, user_prefix, self._prefill_gate, self._prefill_gate.issue()))

    def prefill_once(self, turn: TurnId,
                     prompt: Callable[[], tuple[ChatMessage, ...] | None]) -> None:
        """Queue the prefill of ``prompt()`` once for ``turn``, as soon as it is not None.

        The next turn's prompt start if the reply playing now is heard whole
        (``TurnStateMachine.prompt_if_heard_whole``): the LLM is idle while it plays.
        """
        if self._prefilled_turn != turn and (start := prompt()) is not None:
            self._prefilled_turn = turn
            self.prefill_llm(start)

    def llm_token_counter(self) -> Callable[[str], int] | None:
        """The loaded model's token counter (None until the LLM is ready).

        It only reads the model's vocabulary, so the GUI thread may call it while the LLM
        thread generates.
        """
        if self._loading.get("llm") != "ready":
            return None
        counter = getattr(self.engines.llm.engine, "count_tokens", None)
        return counter if callable(counter) else None

    def set_speaking_rate(self, rate: float) -> None:
        """Speak the next sentences at ``rate``."""
        self.sig_tts_rate_changed.emit(rate)

    def stop(self) -> None:
        """Quit the worker threads and wait for them (shutdown, processing phase)."""
        for thread in self.engines.threads:
            thread.quit()
        for thread in self.engines.threads:
            if not thread.wait(5000):
                # A llama.cpp prefill cannot be interrupted and runs long on a starved
                # machine; a QThread destroyed while it runs aborts the process, so wait.
                _LOGGER.warning("turn=0 waiting for the %s thread to finish its job",
                                thread.objectName())
                if not thread.wait(STOP_WAIT_MS):
                    _LOGGER.error("turn=0 the %s thread did not stop", thread.objectName())
                    _STUCK.append(thread)

    def _on_worker_sig_event_reported(self, event: Event) -> None:
        job = getattr(event, "job", None)
        if job is not None and job in self._llm_watch:
            if isinstance(event, LlmStarted | LlmToken | LlmToolCall):
                turn, _at, first = self._llm_watch[job]
                now = time.monotonic()
                if first is None and not isinstance(event, LlmStarted):
                    first = now
                self._llm_watch[job] = (turn, now, first)
            elif isinstance(event, LlmFinished | StageFailed):
                del self._llm_watch[job]
        self._feed(event)

    def _on_stall_timer_timeout(self) -> None:
        """Fail a stalled LLM job, end one past its budget; forget ended or cancelled ones."""
        now = time.monotonic()
        for job, (turn, at, first) in list(self._llm_watch.items()):
            if not self._jobs.live(job):
                del self._llm_watch[job]
            elif first is not None and now - at > self.llm_stall_s:
                del self._llm_watch[job]
                self._jobs.cancel(job, "llm stalled")
                self._feed(StageFailed(
                    turn_id=turn, at_s=now, job=job, stage=Stage.LLM, code="llm_stalled",
                    message=f"The language model stopped answering for {self.llm_stall_s:.0f} s."))
            elif first is not None and now - first > self.llm_reply_budget_s:
                # Its later words are dropped by job id; what it said is the reply.
                del self._llm_watch[job]
                self._jobs.cancel(job, "llm over its budget")
                self._feed(LlmFinished(turn_id=turn, at_s=now, job=job))
        if not self._llm_watch:
            self._stall_timer.stop()

    def _on_asr_sig_partial_transcribed(self, result: AsrPartialResult) -> None:
        self._on_partial(result)

    def _on_tts_sig_chunk_synthesized(self, chunk: SynthesizedChunk) -> None:
        self._keep_audio(chunk)  # the audio waits for PlayChunk; the machine gets the facts
        self._feed(chunk.ready)

    def _on_worker_sig_load_state_changed(self, state: LoadState) -> None:
        self._loading[state.stage] = state.status
        if state.stage == "llm" and state.status == "ready" and self._on_llm_ready is not None:
            self._on_llm_ready()
        if state.stage in LOAD_STAGES:
            self._show_loading(LoadProgress(state.stage, state.status, state.detail))
        if state.status == "failed" and state.error is not None:
            self._show_error(ErrorNotice.from_error(state.error))
