"""The headless executor: the app's turn machine, run synchronously on the real engines.

``desktop-agent ask`` answers one question here. It builds the same ``TurnStateMachine``
as the app (runtime/controller.py), feeds it the user's input events, and executes its
commands the way the scenario simulator does (tests/core/turns/scenario_fakes.py), but with
engines behind the core ports instead of fakes on a fake clock. So tools, the guard after
a tool, clause chunking, speech normalisation, heard-so-far and the history exist once:
in the machine and the functions the app's workers share.

Threads: the machine and everything in ``HeadlessExecutor`` are owned by the calling
thread. Each engine runs its jobs in order on its own lane (a thread with a job queue,
as each Qt worker has its QThread): ASR, LLM, tool and TTS, so Piper synthesises beside
the streaming LLM and the timings mean what the app's mean. Lanes only post events (with
their clock time) into one queue; the calling thread consumes it, feeds the machine and
runs the commands. Cancellation is the job's ``CancelToken``; late output of a cancelled
job is still posted and dropped by the machine, as in the app.

Playback goes to a ``VirtualSpeaker``: it consumes each queued chunk at once into an
output buffer and reports PlaybackStarted/Progress/Finished with the real sample counts,
so a reply is "heard" when its last chunk is synthesised and ``ask`` takes as long as the
engines take, not as long as the reply lasts. Timers are deadlines on the clock: a
``StageTimedOut`` is delivered when a stage really ran past its limit.
"""

from __future__ import annotations

import datetime as dt
import logging
import queue
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import numpy as np

from desktop_agent.audio.speech_chunk import speak_text
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.conversation.history import History
from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT, dated_system_prompt
from desktop_agent.core.errors import AgentError
from desktop_agent.core.knowledge.index import KnowledgeIndex
from desktop_agent.core.knowledge.records import AnswerPlan, ClaimProposer
from desktop_agent.core.listening.endpointing import is_hallucination
from desktop_agent.core.ports import AsrEngine, LlmEngine, SpeechChunk, TtsEngine
from desktop_agent.core.reflection.reflector import reflect
from desktop_agent.core.reflection.verdict import VerdictJudge
from desktop_agent.core.text.chunker import first_clause_chunker
from desktop_agent.core.tools.answer import guard_llm_run
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.machine import TurnStateMachine
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.states import Stage, State, Transition
from desktop_agent.core.turns.tool_desk import WriteDesk, respond
from desktop_agent.runtime.headless_io import Lane, Posted, VirtualSpeaker
from desktop_agent.runtime.headless_units import Interrupt, UnitLog, UnitRecord

_LOGGER = logging.getLogger(__name__)

STALL_S: Final = 120.0
"""Seconds without any event while no timer is armed before a turn is declared stuck."""
DOCTOR_FIX: Final = "Run `desktop-agent doctor` to check the models and engines."

Mode = Literal["push_to_talk", "hands_free"]


@dataclass(frozen=True)
class HeadlessTurn:
    """What one turn produced: the fields of ``ask --json`` and the machine's record."""

    transcript: str
    """The user's text as the machine published it ('' when no speech was heard)."""
    reply: str
    """What was said: the heard text of a reply that played to the end ('' otherwise)."""
    audio: Any
    """The reply audio the speaker consumed, int16 mono at ``sample_rate``."""
    sample_rate: int
    tool_calls: tuple[str, ...]
    """Names of the tools the machine ran, in order."""
    timings_ms: dict[str, float]
    """Milliseconds from the endpoint: asr, filler, llm_first_token, tts_first_chunk, first_audio,
    llm_total, tts_total, turn_total (only the stages the turn reached)."""
    transitions: tuple[Transition, ...]
    heard: HeardReport | None = None
    error: AgentError | None = None
    """Why the turn went to ERROR (with a fix), or None."""
    tool_commands: tuple[cmd.RunTool, ...] = ()
    """Every RunTool of the turn (read runs, write proposals, executions), in order."""
    actions: tuple[cmd.PublishAction, ...] = ()
    """The write path's moves in this turn (pending, executed, cleared), in order."""
    units: tuple[UnitRecord, ...] = ()
    """A grounded answer's spoken units, each with its sources and what became of it."""
    earlier_units: tuple[UnitRecord, ...] = ()
    """After a scripted interruption: the units of the question that was cut off."""
    plan: AnswerPlan | None = None
    """The grounded answer's plan (claims, refused claims, passages), None for other turns."""
    reflections: tuple[cmd.PublishReflection, ...] = ()
    """Verdict-gated speech: each reflection, verdict and continuation, in order."""

    @property
    def reply_audio_s(self) -> float:
        """Seconds of reply audio."""
        return len(self.audio) / self.sample_rate if self.sample_rate else 0.0

    def transition_lines(self) -> list[str]:
        """Every transition as 'SOURCE->TARGET (cause)'."""
        return [f"{t.source.name}->{t.target.name} ({t.cause})" for t in self.transitions]


@dataclass
class _TurnLog:
    """Bookkeeping of the turn in progress. Owned by the calling thread."""

    audio: Any = None
    text: str | None = None
    transitions: list[Transition] = field(default_factory=list)
    user_text: str = ""
    heard: HeardReport | None = None
    tool_calls: list[str] = field(default_factory=list)
    tool_commands: list[cmd.RunTool] = field(default_factory=list)
    actions: list[cmd.PublishAction] = field(default_factory=list)
    tts_done_s: float | None = None
    error: AgentError | None = None
    over: bool = False
    reflections: list[cmd.PublishReflection] = field(default_factory=list)
    chunks_played: int = 0


class HeadlessExecutor:
    """Runs the turn machine's commands synchronously with real (or fake) engines.

    Args:
        llm: Streams replies (``StartLlm``).
        tts: Speaks clauses (``Synthesize``).
        tools: Runs the LLM's tool calls (``RunTool``).
        asr: Transcribes recordings; may be None when only ``ask_text`` is used.
        desk: The write path (validate, revise, execute once); None: writes unavailable.
        wall: The local time (aware): today's date goes into each turn's prompt.
        session: Prefix of the write path's idempotency keys (unique per store).
        policy: Timeouts and knobs of the machine (the app's defaults when None).
        max_tokens: Per LLM run.
        clock: Monotonic seconds; stamps every event and drives the timers.
        stall_s: See ``STALL_S``.
        knowledge: The user's documents; with ``proposer``, questions about them get
            grounded answers (``core.conversation.knowledge_llm``).
        proposer: Proposes claims from passages (the local model).
        judge: The model reflector for questions no literal check understands (policy
            ``reflection`` 'on'); None: such replies stand as said.

    Runs on: the calling thread (every public method); engines run on the lanes.
    """

    def __init__(self, llm: LlmEngine, tts: TtsEngine, tools: ToolRegistry,
                 asr: AsrEngine | None = None, *, policy: TurnPolicy | None = None,
                 max_tokens: int = 200, clock: Callable[[], float] = time.monotonic,
                 stall_s: float = STALL_S, desk: WriteDesk | None = None,
                 session: str = "headless",
                 wall: Callable[[], dt.datetime] = lambda: dt.datetime.now().astimezone(),
                 knowledge: KnowledgeIndex | None = None, proposer: ClaimProposer | None = None,
                 judge: VerdictJudge | None = None,
                 ) -> None:
        """Start the lanes; the class docstring describes the arguments."""
        self._grounded = None
        if knowledge is not None and proposer is not None:
            from desktop_agent.core.conversation.knowledge_llm import KnowledgeLlm

            llm = self._grounded = KnowledgeLlm(llm, knowledge, proposer)
        self._llm, self._tts, self._tools, self._asr = llm, tts, tools, asr
        self._judge = judge
        self._units = UnitLog()
        self._interrupt: Interrupt | None = None
        self._release_pending = False
        self._desk = desk
        self._wall = wall
        self._max_tokens = max_tokens
        self._clock = clock
        self._stall_s = stall_s
        self.machine = TurnStateMachine(History(SYSTEM_PROMPT), policy=policy or TurnPolicy(),
                                        chunker_factory=first_clause_chunker,
                                        write_tools=frozenset(
                                            s.name for s in tools.specs if s.writes),
                                        session=session)
        self._events: queue.Queue[Posted] = queue.Queue()
        self._lanes = {name: Lane(name) for name in ("asr", "llm", "tool", "tts")}
        self._tokens: dict[int, CancelToken] = {}
        self._timers: dict[int, tuple[float, cmd.StartTimer]] = {}
        self._recordings: dict[int, Any] = {}
        self._chunks: dict[tuple[TurnId, int], Any] = {}
        self._speaker = VirtualSpeaker(self._post, clock)
        self._turn = _TurnLog()
        self._handlers: dict[type[Any], Callable[[Any], None]] = {
            cmd.StartRecording: self._start_recording,
            cmd.StopRecording: lambda c: None,  # the recording is the whole input
            cmd.Transcribe: self._transcribe,
            cmd.CancelAsr: self._cancel,
            cmd.StartLlm: self._start_llm,
            cmd.CancelLlm: self._cancel,
            cmd.RunTool: self._run_tool,
            cmd.CancelTool: self._cancel,
            cmd.Synthesize: self._synthesize,
            cmd.CancelTts: self._cancel_tts,
            cmd.PlayChunk: self._play_chunk,
            cmd.FlushPlayback: lambda c: self._speaker.flush(c.turn_id, c.job),
            cmd.DuckPlayback: lambda c: None,  # no barge-in without a microphone
            cmd.ResumePlayback: lambda c: None,
            cmd.SpeakApology: self._apologise,
            cmd.StopApology: lambda c: None,
            cmd.StartTimer: self._start_timer,
            cmd.CancelTimer: self._cancel_timer,
            cmd.PublishUserText: self._publish_user_text,
            cmd.PublishHeard: self._publish_heard,
            cmd.PublishAction: self._turn_actions,
            cmd.PublishUnit: lambda c: self._units.record(c),
            cmd.Reflect: self._reflect,
            cmd.PublishReflection: lambda c: self._turn.reflections.append(c),
        }

    # --- public --------------------------------------------------------------------------------

    def ask_text(self, text: str, interrupt: Interrupt | None = None) -> HeadlessTurn:
        """One turn whose transcript is ``text`` (typed): no ASR, the same machine after it.

        With ``interrupt``, the user cuts in with ``interrupt.text`` once that many units of
        a grounded answer were queued to play (or asks it next, if the answer ended first);
        the result is then the second question's turn, the first one's units in
        ``earlier_units``.
        """
        self._units = UnitLog()
        self._interrupt, self._release_pending = interrupt, False
        turn = self._run(_TurnLog(text=text), "push_to_talk")
        if self._interrupt is not None:  # the answer ended before the cut: ask it next
            follow, self._interrupt = self._interrupt.text, None
            turn = self._run(_TurnLog(text=follow), "push_to_talk")
        return turn

    def ask_audio(self, audio_16k: Any, mode: Mode = "push_to_talk") -> HeadlessTurn:
        """One turn on a recorded question (float32 mono 16 kHz), pressed or hands-free."""
        self._units, self._interrupt = UnitLog(), None
        return self._run(_TurnLog(audio=audio_16k), mode)

    def machine_time(self) -> float:
        """The executor's clock now (what the machine's ``at_s`` values are measured on)."""
        return self._clock()

    def press(self, confirm: bool) -> HeadlessTurn:
        """The confirmation card's Confirm (True) or Cancel (False), as the window sends it."""
        return self._run(_TurnLog(), "button", confirm)

    def close(self) -> None:
        """Cancel what still runs and stop the lanes (a hung engine is left behind)."""
        for token in self._tokens.values():
            token.cancel("closed")
        for lane in self._lanes.values():
            lane.close()

    def __enter__(self) -> HeadlessExecutor:
        """The executor itself; ``close`` runs on exit."""
        return self

    def __exit__(self, *_exc: object) -> None:
        """Close the lanes."""
        self.close()

    # --- the loop: the one place the machine is touched ----------------------------------------

    def _run(self, turn: _TurnLog, mode: Mode | Literal["button"],
             confirm: bool = False) -> HeadlessTurn:
        if self.machine.state is not State.LISTENING:
            raise AgentError("headless_busy", "A turn is still in progress.")
        self._turn = turn
        self.machine.history.set_system(dated_system_prompt(self._wall()))
        self._tokens.clear()  # the last turn's jobs are finished or cancelled
        self._chunks.clear()
        self._speaker.reset()
        now = self._clock()
        tid = self.machine.turn_id
        if mode == "button":
            self._feed(ev.ActionButtonPressed(turn_id=tid, at_s=now, confirm=confirm))
            turn.over = turn.over or not turn.transitions  # ignored: nothing to wait for
        elif mode == "hands_free":
            self._feed(ev.SpeechStarted(turn_id=tid, at_s=now, speech_start_s=now))
            self._feed(ev.SpeechEnded(turn_id=self.machine.turn_id, at_s=self._clock(),
                                      speech_end_s=self._clock()))
        else:
            self._feed(ev.PttPressed(turn_id=tid, at_s=now))
            self._feed(ev.PttReleased(turn_id=self.machine.turn_id, at_s=self._clock()))
        while not self._turn.over:
            self._pump()
            self._maybe_interrupt()
        return self._result(self._turn)

    def _maybe_interrupt(self) -> None:
        """The scripted barge-in: press once enough units were queued, release when heard."""
        cut, machine = self._interrupt, self.machine
        if cut is None:
            return
        if self._release_pending:
            if machine.state is State.USER_SPEAKING:  # the floor is the user's: say it
                self._interrupt, self._release_pending = None, False
                self._feed(ev.PttReleased(turn_id=machine.turn_id, at_s=self._clock()))
            return
        reached = (self._turn.chunks_played >= cut.after_chunks if cut.after_chunks
                   else self._units.queued.get(machine.turn_id, 0) >= cut.after_units)
        before_audio = (not cut.after_chunks and cut.after_units == 0
                        and machine.state in (State.PROCESSING, State.WAITING_FOR_TOOL))
        if before_audio or (machine.state is State.ASSISTANT_SPEAKING and reached):
            self._turn = _TurnLog(text=cut.text)  # what happens from here is the new question's
            self._release_pending = True
            self._feed(ev.PttPressed(turn_id=machine.turn_id, at_s=self._clock()))

    def _pump(self) -> None:
        """Wait for the next event or the next deadline, whichever comes first."""
        due = min((d for d, _ in self._timers.values()), default=None)
        wait = self._stall_s if due is None else max(0.0, due - self._clock())
        try:
            posted: Posted | None = self._events.get(timeout=wait)
        except queue.Empty:
            posted = None
        if posted is None and due is None:
            self._stalled()
            return
        # Timers that expired before this event happened fire first, as they would have.
        cutoff = self._clock() if posted is None else posted.event.at_s
        for job, (deadline, start) in sorted(self._timers.items(), key=lambda kv: kv[1][0]):
            if deadline <= cutoff and job in self._timers:
                del self._timers[job]
                self._feed(ev.StageTimedOut(turn_id=start.turn_id, at_s=deadline, job=start.job,
                                            stage=start.stage))
        if posted is not None:
            if posted.chunk is not None and isinstance(posted.event, ev.TtsChunkReady):
                self._chunks[(posted.event.turn_id, posted.event.chunk_index)] = posted.chunk
            self._feed(posted.event, posted.error)

    def _feed(self, event: ev.Event, error: AgentError | None = None) -> None:
        dropped = self.machine.dropped_count
        step = self.machine.handle(event)
        if isinstance(event, ev.TtsChunkReady) and self.machine.dropped_count == dropped:
            self._turn.tts_done_s = event.at_s
        if step.transition is not None:
            self._on_transition(step.transition, error)
        for command in step.commands:
            try:
                self._handlers[type(command)](command)
            except Exception as exc:  # a command that cannot run fails its turn, not ask
                _LOGGER.warning("turn=%d command %s failed: %s", command.turn_id,
                                type(command).__name__, exc)
                self._fail(self.machine.turn_id, None, command.stage, exc)

    def _on_transition(self, t: Transition, error: AgentError | None) -> None:
        _LOGGER.info("turn=%d %s -> %s (%s)", t.turn_id, t.source.name, t.target.name, t.cause)
        self._turn.transitions.append(t)
        if t.target is State.ERROR and self._turn.error is None:
            self._turn.error = _with_fix(error) if error is not None else _error_for(t.cause)
        if t.target is State.LISTENING:
            self._turn.over = True

    def _stalled(self) -> None:
        tid = self.machine.turn_id
        _LOGGER.warning("turn=%d stalled in %s", tid, self.machine.state.name)
        self._turn.error = AgentError(
            "turn_stalled", f"Nothing happened for {self._stall_s:.0f} s in "
            f"{self.machine.state.name}.", DOCTOR_FIX)
        self._feed(ev.Reset(turn_id=tid, at_s=self._clock()))
        self._turn.over = True

    def _result(self, turn: _TurnLog) -> HeadlessTurn:
        spans = [s for s in self.machine.completed_spans if s.turn_id == self.machine.turn_id]
        timings: dict[str, float] = {}
        if spans:
            span = spans[-1]
            for key, mark in (("asr", "asr_final"), ("filler", "filler"),
                              ("llm_first_token", "llm_first_token"),
                              ("tts_first_chunk", "first_chunk"), ("first_audio", "first_audio"),
                              ("llm_total", "llm_done")):
                if (ms := span.since_endpoint_ms(mark)) is not None:
                    timings[key] = round(ms, 1)
            endpoint = span.marks.get("endpoint")
            if endpoint is not None and turn.tts_done_s is not None:
                timings["tts_total"] = round((turn.tts_done_s - endpoint) * 1000, 1)
            if endpoint is not None and turn.transitions:
                timings["turn_total"] = round((turn.transitions[-1].at_s - endpoint) * 1000, 1)
        heard = turn.heard
        said = heard is not None and not heard.interrupted and turn.error is None
        return HeadlessTurn(
            transcript=turn.user_text, reply=heard.heard_text if said and heard else "",
            audio=self._speaker.audio() if said else np.zeros(0, dtype=np.int16),
            sample_rate=self._tts.sample_rate, tool_calls=tuple(turn.tool_calls),
            timings_ms=timings, transitions=tuple(turn.transitions), heard=heard,
            error=turn.error, tool_commands=tuple(turn.tool_commands),
            actions=tuple(turn.actions), units=self._units.records(self.machine.turn_id),
            earlier_units=self._units.records(self.machine.turn_id, before=True),
            plan=self._plan_of(self.machine.turn_id), reflections=tuple(turn.reflections))

    def _plan_of(self, turn_id: TurnId) -> AnswerPlan | None:
        """The grounded plan behind this turn's units (None when the turn had none)."""
        units = self._units.records(turn_id)
        plan = self._grounded.last_plan if self._grounded is not None else None
        if plan is None or not units or units[0].generation != plan.generation:
            return None
        return plan

    # --- posting from the lanes ----------------------------------------------------------------

    def _post(self, event: ev.Event, chunk: SpeechChunk | None = None,
              error: AgentError | None = None) -> None:
        """Hand an event to the calling thread. Runs on: any thread."""
        self._events.put(Posted(event, chunk, error))

    def _fail(self, turn_id: TurnId, job: Any, stage: Stage, exc: BaseException) -> None:
        """Post StageFailed for ``exc``, keeping the typed error for the report."""
        err = exc if isinstance(exc, AgentError) else AgentError(
            f"{stage.value}_failed", f"{exc.__class__.__name__}: {exc}", DOCTOR_FIX)
        self._post(ev.StageFailed(turn_id=turn_id, at_s=self._clock(), job=job, stage=stage,
                                  code=err.code, message=err.message), error=err)

    def _token(self, c: Any) -> CancelToken:
        token = self._tokens[c.job] = CancelToken(c.turn_id)
        return token

    # --- commands ------------------------------------------------------------------------------

    def _start_recording(self, c: cmd.StartRecording) -> None:
        self._recordings[c.job] = self._turn.audio

    def _cancel(self, c: cmd.CancelAsr | cmd.CancelLlm | cmd.CancelTool) -> None:
        token = self._tokens.pop(c.job, None)
        if token is not None:
            token.cancel(type(c).__name__)

    def _cancel_tts(self, c: cmd.CancelTts) -> None:
        for job in c.jobs:
            token = self._tokens.pop(job, None)
            if token is not None:
                token.cancel("tts cancelled")

    def _transcribe(self, c: cmd.Transcribe) -> None:
        typed = self._turn.text
        if typed is not None:
            self._post(ev.AsrFinal(turn_id=c.turn_id, at_s=self._clock(), job=c.job,
                                   text=typed.strip(), no_speech=not typed.strip()))
            return
        audio = self._recordings.pop(c.recording, None)
        if audio is None:
            raise AgentError("recording_missing", "The recording to transcribe was lost.")
        asr = self._asr
        if asr is None:
            raise AgentError("asr_not_loaded", "Speech recognition was not loaded.",
                             "Load the ASR model, or ask with --text.")
        token = self._token(c)

        def job() -> None:
            try:
                result = asr.transcribe(audio, token)
                text = result.text.strip()
                # No VAD runs headless: the audio counts as speech, so only text without
                # words, or a stock phrase Whisper itself doubts, is dropped.
                silent = not text or is_hallucination(text, result.no_speech_prob, 1.0)
                self._post(ev.AsrFinal(turn_id=c.turn_id, at_s=self._clock(), job=c.job,
                                       text="" if silent else text, no_speech=silent))
            except Exception as exc:
                if not token.cancelled:
                    self._fail(c.turn_id, c.job, Stage.ASR, exc)

        self._lanes["asr"].submit(job)

    def _start_llm(self, c: cmd.StartLlm) -> None:
        token = self._token(c)
        llm, specs, post, clock = self._llm, self._tools.specs, self._post, self._clock

        def job() -> None:
            try:
                post(ev.LlmStarted(turn_id=c.turn_id, at_s=clock(), job=c.job))
                deltas: Iterator[Any] = guard_llm_run(c.messages, llm.stream_chat(
                    c.messages, token, specs if c.tools else (), self._max_tokens))
                for delta in deltas:
                    if token.cancelled:
                        return
                    if delta.tool_call is not None:
                        post(ev.LlmToolCall(turn_id=c.turn_id, at_s=clock(), job=c.job,
                                            call=delta.tool_call))
                        break  # the machine runs the tool and starts a new run with the result
                    if delta.text:
                        post(ev.LlmToken(turn_id=c.turn_id, at_s=clock(), job=c.job,
                                         text=delta.text, unit=delta.unit))
                if not token.cancelled:
                    post(ev.LlmFinished(turn_id=c.turn_id, at_s=clock(), job=c.job))
            except Exception as exc:
                if not token.cancelled:
                    self._fail(c.turn_id, c.job, Stage.LLM, exc)

        self._lanes["llm"].submit(job)

    def _reflect(self, c: cmd.Reflect) -> None:
        token = self._token(c)
        judge, post, clock = self._judge, self._post, self._clock

        def job() -> None:
            try:
                if token.cancelled:
                    return
                got = reflect(c.question, c.utterance, judge, token)
                if not token.cancelled:
                    post(ev.Reflected(turn_id=c.turn_id, at_s=clock(), job=c.job,
                                      verdict=got.verdict.value, guidance=got.guidance,
                                      correction=got.correction, flagged_word=got.flagged_word,
                                      checker=got.checker))
            except Exception as exc:
                if not token.cancelled:
                    self._fail(c.turn_id, c.job, Stage.LLM, exc)

        self._lanes["llm"].submit(job)

    def _run_tool(self, c: cmd.RunTool) -> None:
        token = self._token(c)
        self._turn.tool_calls.append(c.call.name)
        self._turn.tool_commands.append(c)

        def job() -> None:
            answer = respond(self._tools, self._desk, c)  # a failure: the LLM is told
            if not token.cancelled:
                self._post(ev.ToolResult(turn_id=c.turn_id, at_s=self._clock(), job=c.job,
                                         call_id=c.call.call_id, content=answer.content,
                                         is_error=answer.is_error, action=answer.action))

        self._lanes["tool"].submit(job)

    def _synthesize(self, c: cmd.Synthesize) -> None:
        token = self._token(c)
        tts = self._tts

        def job() -> None:
            try:
                chunk = speak_text(tts, c.text, token)
                if token.cancelled:
                    return
                self._post(ev.TtsChunkReady(
                    turn_id=c.turn_id, at_s=self._clock(), job=c.job, chunk_index=c.chunk_index,
                    text=chunk.text if chunk else "", n_samples=chunk.n_samples if chunk else 0,
                    sample_rate=chunk.sample_rate if chunk else tts.sample_rate,
                    words=chunk.words if chunk else (),
                    aligned=chunk.aligned if chunk else False, written_text=c.text), chunk=chunk)
            except Exception as exc:
                if not token.cancelled:
                    self._fail(c.turn_id, c.job, Stage.TTS, exc)

        self._lanes["tts"].submit(job)

    def _play_chunk(self, c: cmd.PlayChunk) -> None:
        chunk = self._chunks.pop((c.turn_id, c.chunk_index), None)
        if chunk is None:
            raise AgentError("chunk_missing", f"No audio for chunk {c.chunk_index}.")
        if getattr(chunk, "text", "") != self.machine.policy.filler_text:
            self._turn.chunks_played += 1  # the filler is not part of the answer
        self._speaker.play(c.turn_id, c.job, chunk.audio)

    def _apologise(self, c: cmd.SpeakApology) -> None:
        # Headless, the error itself is the report: the apology is not spoken.
        self._post(ev.ApologyFinished(turn_id=c.turn_id, at_s=self._clock()))

    def _start_timer(self, c: cmd.StartTimer) -> None:
        self._timers[c.job] = (self._clock() + c.seconds, c)

    def _cancel_timer(self, c: cmd.CancelTimer) -> None:
        self._timers.pop(c.job, None)

    def _publish_user_text(self, c: cmd.PublishUserText) -> None:
        self._turn.user_text = c.text

    def _publish_heard(self, c: cmd.PublishHeard) -> None:
        self._turn.heard = c.report

    def _turn_actions(self, c: cmd.PublishAction) -> None:
        self._turn.actions.append(c)


def _with_fix(err: AgentError) -> AgentError:
    """``err`` with a fix to print (the doctor when the engine gave none)."""
    return err if err.fix else AgentError(err.code, err.message, DOCTOR_FIX)


def _error_for(cause: str) -> AgentError:
    """The error for an ERROR transition not caused by a typed failure (timeouts, limits)."""
    stage, _, kind = cause.partition("_")
    what = {"asr": "Speech recognition", "llm": "The language model", "tts": "The voice",
            "tool": "A tool", "playback": "Playback", "recording": "The recording"}.get(
        stage, "The turn")
    if kind == "timeout":
        return AgentError(cause, f"{what} took too long.", DOCTOR_FIX)
    return AgentError(cause, f"The turn failed ({cause}).", DOCTOR_FIX)
