"""The turn-taking state machine: a pure reducer from events to (transition, commands).

How the runtime drives it (GUI thread):

1. Build one ``TurnStateMachine(history, policy=..., chunker_factory=...)``.
2. For every fact, build an event stamped with the clock (``at_s``), the machine's current
   ``turn_id`` for user input, or the ``turn_id``/``job`` copied from the command for
   engine output, and call ``step = machine.handle(event)``.
3. Emit ``step.transition`` (if any) to the GUI, then execute ``step.commands`` in order.

The machine never sleeps, reads a clock or does I/O. Stale events (another turn, or a job
that was cancelled, superseded or already finished) are dropped in one place
(``TurnCore.accept``) and counted in ``dropped_count``.

Inside, it is composed, not inherited: one shared ``TurnCore`` (base.py: state, turn id, the
turn's context, the step's output, and the verbs ``go``/``emit``/``job``/``start_timer``)
and one handler per concern, each holding the core and the few handlers it calls:

    UserInput (user_input.py)      keys, speech onsets and ends, final transcripts
      -> Recording (recording.py)  start, endpoint, false endpoint
      -> BargeIn (barge_in.py)     duck, barge in, hand the floor over
      -> WritePath (write_path.py) the reply's outer layer: writes, confirmations
           -> ReplyRuns (reply.py) speculation, LLM runs, read tools, the filler
                -> Reflection (reflect.py)  verdict-gated speech
                -> ReplyOutput (reply_output.py)  units, synthesis, playback, heard
    Failures (failures.py)         stage failures, timers, the apology, reset

``stopping.py`` holds what several of them stop with (cancel the turn's work, fail it).
``handle`` below is the only place that knows every handler: one table, event type ->
handler.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Container, Mapping
from typing import Any

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.history import History
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.tools.confirm import ConfirmGate, Pending
from desktop_agent.core.tools.specs import WRITE_TOOLS
from desktop_agent.core.turns.barge_in import BargeIn
from desktop_agent.core.turns.base import Step, TurnCore
from desktop_agent.core.turns.chunking import Chunker, PunctuationChunker
from desktop_agent.core.turns.events import (
    ActionButtonPressed,
    ApologyFinished,
    AsrFinal,
    AsrPartial,
    BargeInDecided,
    Event,
    LlmFinished,
    LlmStarted,
    LlmToken,
    LlmToolCall,
    PlaybackFinished,
    PlaybackProgress,
    PlaybackStarted,
    PlaybackStopped,
    PttPressed,
    PttReleased,
    Reflected,
    Reset,
    SpeechEnded,
    SpeechStarted,
    StageFailed,
    StageTimedOut,
    ToolResult,
    TtsChunkReady,
    VoiceOnsetDuringPlayback,
)
from desktop_agent.core.turns.failures import Failures
from desktop_agent.core.turns.policy import DECLARED_TRANSITIONS, TurnPolicy
from desktop_agent.core.turns.recording import Recording
from desktop_agent.core.turns.reflect import Reflection
from desktop_agent.core.turns.reply import ReplyRuns
from desktop_agent.core.turns.reply_output import ReplyOutput
from desktop_agent.core.turns.states import State
from desktop_agent.core.turns.stopping import enter_error
from desktop_agent.core.turns.telemetry import TurnSpan
from desktop_agent.core.turns.user_input import UserInput
from desktop_agent.core.turns.write_path import WritePath


class TurnStateMachine:
    """Owns the current turn id, its state, the history, and the per-turn latency spans.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(
        self,
        history: History,
        *,
        policy: TurnPolicy | None = None,
        chunker_factory: Callable[[], Chunker] = PunctuationChunker,
        strict: bool = False,
        transitions: frozenset[tuple[State, State]] = DECLARED_TRANSITIONS,
        write_tools: Container[str] = WRITE_TOOLS,
        session: str = "s",
        tools: frozenset[str] | None = None,
        tool_limits_s: Mapping[str, float] | None = None,
    ) -> None:
        """Create a machine in LISTENING with no turn yet.

        Args:
            history: Where finished exchanges are recorded; prompts are built from it.
            policy: Timeouts and turn-taking knobs (defaults when None).
            chunker_factory: Makes a fresh clause chunker for each reply attempt.
            strict: Raise ``UndeclaredTransitionError`` on an undeclared edge (tests);
                otherwise go to ERROR with code 'undeclared_transition'.
            transitions: The declared (source, target) edges.
            write_tools: Names of the tools that change things (the app's grows when your
                own tools' servers have listed theirs): a call to one is read
                back and runs only after a confirmation (see ``write_path``).
            session: Prefix of the idempotency keys; unique per app start, so a key is
                never reused after a restart.
            tools: Names of the tools this app has (None: every catalog tool); a reply
                that claims an action no tool took says whether one exists for it.
            tool_limits_s: Seconds the turn waits for each tool that names its own limit
                (``ToolSpec.timeout_s``: your own tools' servers; the app's grows with
                them); any other tool gets ``policy.tool_timeout_s``.
        """
        policy = policy or TurnPolicy()
        core = self._core = TurnCore(history, policy=policy, chunker_factory=chunker_factory,
                                     strict=strict, transitions=transitions)
        output = self._output = ReplyOutput(core, tools=tools)
        reflection = Reflection(core, output)
        runs = ReplyRuns(core, output, reflection, tool_limits_s=tool_limits_s)
        self._write = WritePath(core, output, runs, write_tools=write_tools,
                                gate=ConfirmGate(session, policy.confirm_expiry_s))
        recording = Recording(core)
        barge_in = BargeIn(core, recording, output)
        user = UserInput(core, recording, barge_in, self._write)
        failures = Failures(core, runs, barge_in)
        self._handlers: dict[type[Any], Callable[[Any], None]] = {
            ActionButtonPressed: self._write.on_action_button_pressed,
            PttPressed: user.on_ptt_pressed,
            PttReleased: user.on_ptt_released,
            SpeechStarted: user.on_speech_started,
            SpeechEnded: user.on_speech_ended,
            Reset: failures.on_reset,
            AsrPartial: runs.on_asr_partial,
            AsrFinal: user.on_asr_final,
            LlmStarted: lambda event: None,
            LlmToken: runs.on_llm_token,
            LlmToolCall: self._write.on_llm_tool_call,
            LlmFinished: runs.on_llm_finished,
            ToolResult: self._write.on_tool_result,
            TtsChunkReady: output.on_tts_chunk_ready,
            PlaybackStarted: output.on_playback_started,
            PlaybackProgress: output.on_playback_progress,
            PlaybackFinished: output.on_playback_progress,
            PlaybackStopped: barge_in.on_playback_stopped,
            VoiceOnsetDuringPlayback: barge_in.on_voice_onset,
            BargeInDecided: barge_in.on_barge_in_decided,
            StageFailed: failures.on_stage_failed,
            StageTimedOut: failures.on_stage_timed_out,
            ApologyFinished: failures.on_apology_finished,
            Reflected: reflection.on_reflected,
        }
        """Event type -> the handler it goes to (every event type has one)."""

    def handle(self, event: Event) -> Step:
        """Apply one event.

        Args:
            event: What happened, stamped with its clock time.

        Returns:
            The edge taken (or None) and the commands to execute, in order.

        Raises:
            UndeclaredTransitionError: In strict mode, when a handler takes an undeclared edge.
        """
        core = self._core
        if not core.accept(event):
            return Step(None, ())
        core.begin_step()
        self._handlers[type(event)](event)
        refused_at = core.take_refusal()
        if refused_at is not None:  # the handler stopped at an undeclared edge: fail the turn
            enter_error(core, refused_at, "undeclared_transition", "undeclared_transition",
                        force=True)
        return core.end_step()

    # --- settings -----------------------------------------------------------------------------

    def set_reflection(self, mode: str) -> None:
        """Change the policy's ``reflection`` ('off', 'on', 'checkable'); the next reply uses it.

        Runs on: GUI thread (the settings dialog applied).
        """
        self._core.policy = dataclasses.replace(self._core.policy, reflection=mode)

    # --- public read-only view ------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The current state."""
        return self._core.state

    @property
    def turn_id(self) -> TurnId:
        """The current turn (NO_TURN before the first one). Stamp control events with it."""
        return self._core.turn_id

    def prompt_if_heard_whole(self) -> tuple[ChatMessage, ...] | None:
        """The next turn's prompt start if the reply playing now is heard whole.

        Known once the reply is (``ReplyOutput.prompt_if_heard_whole``); None before that.
        """
        return self._output.prompt_if_heard_whole()

    @property
    def history(self) -> History:
        """The conversation history the machine records into."""
        return self._core.history

    @property
    def policy(self) -> TurnPolicy:
        """Timeouts and knobs in force."""
        return self._core.policy

    @property
    def dropped_count(self) -> int:
        """Events dropped as stale (old turn, or a job no longer live) since creation."""
        return self._core.dropped_count

    @property
    def dropped_events(self) -> tuple[Event, ...]:
        """The newest dropped events (at most ``DROPPED_KEPT``), oldest first."""
        return self._core.dropped_events

    @property
    def ignored_count(self) -> int:
        """Current events that meant nothing in the state they arrived in (e.g. a double press)."""
        return self._core.ignored_count

    @property
    def completed_spans(self) -> tuple[TurnSpan, ...]:
        """Latency spans of the newest turns that ended (at most ``SPANS_KEPT``), oldest first.

        Bounded, so its length stops growing: tell new spans by ``spans_completed`` (or take
        them with ``spans_since``), never by ``len(completed_spans)``.
        """
        return self._core.completed_spans

    @property
    def spans_completed(self) -> int:
        """How many spans ever completed (monotonic; ``completed_spans`` keeps the newest)."""
        return self._core.spans_completed

    def spans_since(self, seen: int) -> tuple[TurnSpan, ...]:
        """The spans completed after the first ``seen`` ones, oldest first.

        A consumer keeps ``seen = machine.spans_completed`` after each call. If more than
        ``SPANS_KEPT`` completed in between, only the newest ``SPANS_KEPT`` are left to return.

        Args:
            seen: A value ``spans_completed`` had earlier (0 for all that are kept).
        """
        new = self._core.spans_completed - seen
        if new <= 0:
            return ()
        return self._core.completed_spans[-new:]

    @property
    def reply_played_s(self) -> float:
        """Seconds of the current reply's answer the speaker has played (the filler not counted).

        0.0 before any audio.
        """
        reply = self._core.ctx.reply
        if reply is None or not reply.queued:
            return 0.0
        filler = sum(c.n_samples for c in reply.queued if c.chunk_index == reply.filler_index)
        return max(0, reply.played_samples - filler) / reply.queued[0].sample_rate

    @property
    def current_span(self) -> TurnSpan:
        """The span of the turn in progress (marks so far)."""
        return self._core.ctx.span

    def pending_action(self, at_s: float) -> Pending | None:
        """The action waiting for a confirmation at ``at_s`` (None: none, or expired)."""
        return self._write.pending_action(at_s)
