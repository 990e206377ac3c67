"""Plumbing of the turn machine: jobs, timers, transitions, the stale-event gate, errors.

``TurnStateMachine`` (machine.py) builds on this through ``ReplyHandlers`` (reply.py).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from desktop_agent.core.cancel import NO_TURN, TurnId
from desktop_agent.core.conversation.history import History
from desktop_agent.core.errors import AgentError
from desktop_agent.core.turns.chunking import Chunker
from desktop_agent.core.turns.commands import (
    CancelAsr,
    CancelLlm,
    CancelTimer,
    CancelTool,
    CancelTts,
    Command,
    FlushPlayback,
    SpeakApology,
    StartTimer,
)
from desktop_agent.core.turns.context import TurnContext
from desktop_agent.core.turns.events import CONTROL_EVENTS, Event, event_job
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.states import JobId, Stage, State, Transition
from desktop_agent.core.turns.telemetry import TurnSpan

_LOGGER = logging.getLogger(__name__)

DROPPED_KEPT = 64
"""How many dropped events ``dropped_events`` keeps (the newest)."""

SPANS_KEPT = 64
"""How many latency spans ``completed_spans`` keeps (the newest)."""


@dataclass(frozen=True, slots=True)
class Step:
    """The machine's answer to one event: the edge it took (if any) and what to do, in order."""

    transition: Transition | None
    commands: tuple[Command, ...]


class UndeclaredTransitionError(AgentError):
    """A handler tried an edge that is not in the declared table (a bug in the machine)."""

    default_code = "undeclared_transition"


class _Abort(Exception):
    """Unwinds a handler after the machine went to ERROR on an undeclared edge."""


class MachineBase:
    """Jobs, timers, transitions and the stale-event gate. Not used on its own.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(
        self,
        history: History,
        *,
        policy: TurnPolicy,
        chunker_factory: Callable[[], Chunker],
        strict: bool,
        transitions: frozenset[tuple[State, State]],
    ) -> None:
        """Set up an idle machine; see ``TurnStateMachine.__init__`` for the arguments."""
        self._history = history
        self._policy = policy
        self._chunker_factory = chunker_factory
        self._strict = strict
        self._transitions = transitions
        self._state = State.LISTENING
        self._turn_id: TurnId = NO_TURN
        self._next_job = 0
        self._live: set[JobId] = set()
        self._ctx = TurnContext(turn_id=NO_TURN, span=TurnSpan(NO_TURN))
        self._out: list[Command] = []
        self._taken: Transition | None = None
        self._spans: deque[TurnSpan] = deque(maxlen=SPANS_KEPT)
        self._spans_completed = 0
        self._dropped: deque[Event] = deque(maxlen=DROPPED_KEPT)
        self._dropped_count = 0
        self._ignored_count = 0

    # --- public read-only view ---------------------------------------------------------------

    @property
    def state(self) -> State:
        """The current state."""
        return self._state

    @property
    def turn_id(self) -> TurnId:
        """The current turn (NO_TURN before the first one). Stamp control events with it."""
        return self._turn_id

    @property
    def history(self) -> History:
        """The conversation history the machine records into."""
        return self._history

    @property
    def policy(self) -> TurnPolicy:
        """Timeouts and knobs in force."""
        return self._policy

    @property
    def dropped_count(self) -> int:
        """Events dropped as stale (old turn, or a job no longer live) since creation."""
        return self._dropped_count

    @property
    def dropped_events(self) -> tuple[Event, ...]:
        """The newest dropped events (at most ``DROPPED_KEPT``), oldest first."""
        return tuple(self._dropped)

    @property
    def ignored_count(self) -> int:
        """Current events that meant nothing in the state they arrived in (e.g. a double press)."""
        return self._ignored_count

    @property
    def completed_spans(self) -> tuple[TurnSpan, ...]:
        """Latency spans of the newest turns that ended (at most ``SPANS_KEPT``), oldest first.

        Bounded, so its length stops growing: tell new spans by ``spans_completed`` (or take
        them with ``spans_since``), never by ``len(completed_spans)``.
        """
        return tuple(self._spans)

    @property
    def spans_completed(self) -> int:
        """How many spans ever completed (monotonic; ``completed_spans`` keeps the newest)."""
        return self._spans_completed

    def spans_since(self, seen: int) -> tuple[TurnSpan, ...]:
        """The spans completed after the first ``seen`` ones, oldest first.

        A consumer keeps ``seen = machine.spans_completed`` after each call. If more than
        ``SPANS_KEPT`` completed in between, only the newest ``SPANS_KEPT`` are left to return.

        Args:
            seen: A value ``spans_completed`` had earlier (0 for all that are kept).
        """
        new = self._spans_completed - seen
        if new <= 0:
            return ()
        return tuple(self._spans)[-new:]

    @property
    def reply_played_s(self) -> float:
        """Seconds of the current reply's answer the speaker has played (the filler not counted).

        0.0 before any audio.
        """
        reply = self._ctx.reply
        if reply is None or not reply.queued:
            return 0.0
        filler = sum(c.n_samples for c in reply.queued if c.chunk_index == reply.filler_index)
        return max(0, reply.played_samples - filler) / reply.queued[0].sample_rate

    @property
    def current_span(self) -> TurnSpan:
        """The span of the turn in progress (marks so far)."""
        return self._ctx.span

    # --- the stale-event gate: the ONE place stale events are dropped -----------------------------

    def _accept(self, event: Event) -> bool:
        if isinstance(event, CONTROL_EVENTS):
            return True
        if event.turn_id == self._turn_id:
            job = event_job(event)
            if job is None or job in self._live:
                return True
        self._dropped_count += 1
        self._dropped.append(event)
        _LOGGER.debug("turn %d: dropped stale %r", self._turn_id, event)
        return False

    # --- jobs, commands, transitions -------------------------------------------------------------

    def _job(self) -> JobId:
        self._next_job += 1
        job = JobId(self._next_job)
        self._live.add(job)
        return job

    def _end_job(self, job: JobId | None) -> None:
        if job is not None:
            self._live.discard(job)

    def _emit(self, command: Command) -> None:
        self._out.append(command)

    def _ignore(self, event: Event) -> None:
        self._ignored_count += 1
        _LOGGER.debug("turn %d: %s ignores %r", self._turn_id, self._state.name, event)

    def _go(self, target: State, cause: str, at_s: float, cancels: tuple[str, ...] = ()) -> None:
        if (self._state, target) not in self._transitions:
            message = f"{self._state.name} -> {target.name} ({cause}) is not declared"
            if self._strict:
                raise UndeclaredTransitionError(None, message)
            _LOGGER.error("turn %d: %s", self._turn_id, message)
            self._enter_error(at_s, "undeclared_transition", "undeclared_transition", force=True)
            raise _Abort
        self._record(target, cause, at_s, cancels)

    def _record(self, target: State, cause: str, at_s: float, cancels: tuple[str, ...]) -> None:
        if self._taken is not None:
            raise RuntimeError(f"second transition in one step: {self._taken} then {target}")
        self._taken = Transition(self._turn_id, self._state, target, cause, at_s, cancels)
        _LOGGER.info("turn %d: %s -> %s (%s)", self._turn_id, self._state.name, target.name, cause)
        self._state = target

    # --- turns, timers, spans ---------------------------------------------------------------------

    def _new_turn(self) -> TurnContext:
        """Start the next turn id with a clean context. Jobs of the old turn are forgotten."""
        self._turn_id = TurnId(self._turn_id + 1)
        self._live.clear()
        self._ctx = TurnContext(turn_id=self._turn_id, span=TurnSpan(self._turn_id))
        return self._ctx

    def _clean_context(self) -> None:
        """Keep the turn id, drop everything else (after an error, a reset, a finished reply)."""
        self._live.clear()
        self._ctx = TurnContext(turn_id=self._turn_id, span=TurnSpan(self._turn_id))

    def _finish_span(self) -> None:
        if self._ctx.span.marks and (not self._spans or self._spans[-1] is not self._ctx.span):
            self._spans.append(self._ctx.span)
            self._spans_completed += 1

    def _start_timer(self, stage: Stage, seconds: float) -> JobId:
        job = self._job()
        self._ctx.timers[job] = stage
        self._emit(StartTimer(turn_id=self._turn_id, job=job, stage=stage, seconds=seconds))
        return job

    def _cancel_timer(self, job: JobId | None) -> None:
        if job is not None and job in self._ctx.timers:
            del self._ctx.timers[job]
            self._end_job(job)
            self._emit(CancelTimer(turn_id=self._turn_id, job=job))

    # --- stopping -------------------------------------------------------------------------------

    def _cancel_work(self, *, keep_stream: bool = False, keep_asr: bool = False) -> tuple[str, ...]:
        """Cancel everything in flight for the turn, in barge-in order; say what was cancelled.

        Order: playback first (silence is what the user waits for), then TTS, LLM, tools,
        recording and ASR, then the timers. The reply's bookkeeping (queued chunks, pending
        synthesis texts) is kept so that what was heard can still be worked out.

        Args:
            keep_stream: Keep the playback stream live to receive its PlaybackStopped.
            keep_asr: Keep transcriptions in flight (and their timers): after a false endpoint
                the earlier segment's transcript is still wanted.
        """
        ctx, tid, cancels = self._ctx, self._turn_id, []
        reply = ctx.reply
        if reply is not None and reply.stream_job is not None and reply.stream_job in self._live:
            self._emit(
                FlushPlayback(turn_id=tid, job=reply.stream_job, fade_ms=self._policy.fade_ms)
            )
            cancels.append("playback")
            if not keep_stream:
                self._end_job(reply.stream_job)
        synth = [job for job in reply.synth if job in self._live] if reply is not None else []
        if synth:
            self._emit(CancelTts(turn_id=tid, jobs=tuple(synth)))
            for job in synth:
                self._end_job(job)
            cancels.append("tts")
        llm_jobs = [reply.llm_job] if reply is not None and reply.llm_job is not None else []
        if reply is not None and reply.reflect is not None and reply.reflect.job is not None:
            llm_jobs.append(reply.reflect.job)  # a barge-in cancels the whole reflection loop
            reply.reflect.job = None
        if ctx.speculation is not None:
            llm_jobs.append(ctx.speculation.job)
            ctx.speculation = None
        for job in llm_jobs:
            self._emit(CancelLlm(turn_id=tid, job=job))
            self._end_job(job)
        if llm_jobs:
            cancels.append("llm")
        if reply is not None:
            reply.llm_job = None
            for job in reply.tools:
                self._emit(CancelTool(turn_id=tid, job=job))
                self._end_job(job)
            if reply.tools:
                cancels.append("tool")
            reply.tools.clear()
        asr_jobs = [] if keep_asr else list(ctx.asr_segment)
        if ctx.recording_job is not None:
            asr_jobs.insert(0, ctx.recording_job)
        for job in asr_jobs:
            self._emit(CancelAsr(turn_id=tid, job=job))
            self._end_job(job)
        if asr_jobs:
            cancels.append("asr")
        ctx.recording_job = None
        kept_timers = set(ctx.asr_timers.values()) if keep_asr else set()
        if not keep_asr:
            ctx.asr_segment.clear()
            ctx.asr_timers.clear()
        for job in list(ctx.timers):
            if job not in kept_timers:
                self._cancel_timer(job)
        ctx.llm_timer = ctx.tts_timer = ctx.flush_timer = ctx.filler_timer = None
        ctx.tool_timers.clear()
        return tuple(cancels)

    def _enter_error(self, at_s: float, cause: str, code: str, *, force: bool = False) -> None:
        """Stop everything, apologise, and go to ERROR. Nothing of the turn is recorded."""
        _LOGGER.warning("turn %d: failed in %s: %s", self._turn_id, self._state.name, code)
        cancels = self._cancel_work()
        self._finish_span()
        self._clean_context()
        self._emit(SpeakApology(turn_id=self._turn_id, text=self._policy.apology_text))
        self._ctx.apology_timer = self._start_timer(Stage.APOLOGY, self._policy.apology_timeout_s)
        if force:
            self._record(State.ERROR, cause, at_s, cancels)
        else:
            self._go(State.ERROR, cause, at_s, cancels)
