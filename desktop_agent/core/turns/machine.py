"""The turn-taking state machine: a pure reducer from events to (transition, commands).

How the runtime drives it (GUI thread):

1. Build one ``TurnStateMachine(history, policy=..., chunker_factory=...)``.
2. For every fact, build an event stamped with the clock (``at_s``), the machine's current
   ``turn_id`` for user input, or the ``turn_id``/``job`` copied from the command for
   engine output, and call ``step = machine.handle(event)``.
3. Emit ``step.transition`` (if any) to the GUI, then execute ``step.commands`` in order.

The machine never sleeps, reads a clock or does I/O. Stale events (another turn, or a job
that was cancelled, superseded or already finished) are dropped in one place
(``MachineBase._accept``) and counted in ``dropped_count``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from desktop_agent.core.conversation.history import History
from desktop_agent.core.tools.confirm import ConfirmGate
from desktop_agent.core.tools.specs import WRITE_TOOLS
from desktop_agent.core.turns.base import Step, _Abort
from desktop_agent.core.turns.chunking import Chunker, PunctuationChunker
from desktop_agent.core.turns.commands import (
    DuckPlayback,
    PublishUserText,
    ResumePlayback,
    StartRecording,
    StopApology,
    StopRecording,
    Transcribe,
)
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
from desktop_agent.core.turns.policy import DECLARED_TRANSITIONS, TurnPolicy
from desktop_agent.core.turns.states import Stage, State
from desktop_agent.core.turns.write_path import WriteHandlers

_BEFORE_SPEECH = (State.PROCESSING, State.WAITING_FOR_TOOL)
"""States where the assistant has not been heard yet: user speech there is a false endpoint."""


class TurnStateMachine(WriteHandlers):
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
        write_tools: frozenset[str] = WRITE_TOOLS,
        session: str = "s",
    ) -> None:
        """Create a machine in LISTENING with no turn yet.

        Args:
            history: Where finished exchanges are recorded; prompts are built from it.
            policy: Timeouts and turn-taking knobs (defaults when None).
            chunker_factory: Makes a fresh clause chunker for each reply attempt.
            strict: Raise ``UndeclaredTransitionError`` on an undeclared edge (tests);
                otherwise go to ERROR with code 'undeclared_transition'.
            transitions: The declared (source, target) edges.
            write_tools: Names of the tools that change things: a call to one is read
                back and runs only after a confirmation (see ``write_path``).
            session: Prefix of the idempotency keys; unique per app start, so a key is
                never reused after a restart.
        """
        super().__init__(
            history,
            policy=policy or TurnPolicy(),
            chunker_factory=chunker_factory,
            strict=strict,
            transitions=transitions,
        )
        self._write_tools = write_tools
        self._gate = ConfirmGate(session, self._policy.confirm_expiry_s)
        self._handlers: dict[type[Any], Callable[[Any], None]] = {
            ActionButtonPressed: self._on_action_button_pressed,
            PttPressed: self._on_ptt_pressed,
            PttReleased: self._on_ptt_released,
            SpeechStarted: self._on_speech_started,
            SpeechEnded: self._on_speech_ended,
            Reset: self._on_reset,
            AsrPartial: self._on_asr_partial,
            AsrFinal: self._on_asr_final,
            LlmStarted: lambda event: None,
            LlmToken: self._on_llm_token,
            LlmToolCall: self._on_llm_tool_call,
            LlmFinished: self._on_llm_finished,
            ToolResult: self._on_tool_result,
            TtsChunkReady: self._on_tts_chunk_ready,
            PlaybackStarted: self._on_playback_started,
            PlaybackProgress: self._on_playback_progress,
            PlaybackFinished: self._on_playback_progress,
            PlaybackStopped: self._on_playback_stopped,
            VoiceOnsetDuringPlayback: self._on_voice_onset,
            BargeInDecided: self._on_barge_in_decided,
            StageFailed: self._on_stage_failed,
            StageTimedOut: self._on_stage_timed_out,
            ApologyFinished: self._on_apology_finished,
            Reflected: self._on_reflected,
        }

    def handle(self, event: Event) -> Step:
        """Apply one event.

        Args:
            event: What happened, stamped with its clock time.

        Returns:
            The edge taken (or None) and the commands to execute, in order.

        Raises:
            UndeclaredTransitionError: In strict mode, when a handler takes an undeclared edge.
        """
        if not self._accept(event):
            return Step(None, ())
        self._out, self._taken = [], None
        try:
            self._handlers[type(event)](event)
        except _Abort:
            pass
        return Step(self._taken, tuple(self._out))

    # --- user input -------------------------------------------------------------------------------

    def _on_ptt_pressed(self, event: PttPressed) -> None:
        if self._state is State.LISTENING:
            self._begin_user_turn(event.at_s, "ptt_pressed")
        elif self._state in _BEFORE_SPEECH:
            self._resume_user(event.at_s, event.at_s)
        elif self._state is State.ASSISTANT_SPEAKING:
            self._barge_in(event.at_s, event.at_s, "barge_in_ptt")
        elif self._state is State.ERROR:
            self._emit(StopApology(turn_id=self._turn_id))
            self._cancel_timer(self._ctx.apology_timer)
            self._begin_user_turn(event.at_s, "ptt_pressed")
        elif self._state is State.INTERRUPTED and self._ctx.released_early:
            self._ctx.released_early = False
        else:
            self._ignore(event)

    def _on_ptt_released(self, event: PttReleased) -> None:
        if self._state is State.USER_SPEAKING:
            self._endpoint(event.at_s, event.at_s, "ptt_released")
        elif self._state is State.INTERRUPTED:
            self._ctx.released_early = True
        else:
            self._ignore(event)

    def _on_speech_started(self, event: SpeechStarted) -> None:
        if self._state is State.LISTENING:
            self._begin_user_turn(event.speech_start_s, "speech_started", event.at_s)
        elif self._state is State.ERROR:
            # Speech over the apology: the user wins, as a key press does (the segmenter
            # will not report this onset again, so ignoring it would lose the words).
            self._emit(StopApology(turn_id=self._turn_id))
            self._cancel_timer(self._ctx.apology_timer)
            self._begin_user_turn(event.speech_start_s, "speech_started", event.at_s)
        elif self._state in _BEFORE_SPEECH:
            self._resume_user(event.at_s, event.speech_start_s)
        else:
            self._ignore(event)

    def _on_speech_ended(self, event: SpeechEnded) -> None:
        if self._state is State.USER_SPEAKING:
            self._endpoint(event.at_s, event.speech_end_s, "speech_ended")
        elif self._state is State.INTERRUPTED:
            self._ctx.ended_early_s = event.speech_end_s
        else:
            self._ignore(event)

    def _begin_user_turn(self, from_s: float, cause: str, at_s: float | None = None) -> None:
        """A new turn id, a new recording, USER_SPEAKING."""
        self._new_turn()
        self._start_recording(from_s)
        self._go(State.USER_SPEAKING, cause, from_s if at_s is None else at_s)

    def _start_recording(self, from_s: float) -> None:
        job = self._ctx.recording_job = self._job()
        self._emit(
            StartRecording(
                turn_id=self._turn_id, job=job, from_s=from_s, partials=self._policy.partials
            )
        )

    def _endpoint(self, at_s: float, until_s: float, cause: str) -> None:
        """The user stopped: close the recording, transcribe it, PROCESSING."""
        ctx = self._ctx
        recording = ctx.recording_job
        assert recording is not None
        self._emit(StopRecording(turn_id=self._turn_id, job=recording, until_s=until_s))
        self._end_job(recording)
        ctx.recording_job = None
        job = self._job()
        ctx.asr_segment[job] = len(ctx.segments)
        ctx.segments.append(None)
        self._emit(Transcribe(turn_id=self._turn_id, job=job, recording=recording))
        ctx.asr_timers[job] = self._start_timer(Stage.ASR, self._policy.asr_timeout_s)
        for name in ("endpoint", "speech_end"):  # after a false endpoint, the last one counts
            ctx.span.marks.pop(name, None)
        ctx.span.mark("endpoint", at_s)
        if cause == "speech_ended":  # hands-free: the endpointer knows when the speech ended
            ctx.span.mark("speech_end", until_s)
        self._go(State.PROCESSING, cause, at_s)

    def _resume_user(self, at_s: float, from_s: float) -> None:
        """False endpoint: the user spoke again before the assistant did. Same turn, merged."""
        ctx = self._ctx
        cancels = self._cancel_work(keep_asr=True)
        ctx.reply = None
        for name in ("asr_final", "llm_first_token", "first_chunk", "first_audio", "llm_done"):
            ctx.span.marks.pop(name, None)
        self._start_recording(from_s)
        self._go(State.USER_SPEAKING, "speech_resumed", at_s, cancels)

    # --- ASR --------------------------------------------------------------------------------------

    def _on_asr_final(self, event: AsrFinal) -> None:
        ctx = self._ctx
        index = ctx.asr_segment.pop(event.job, None)
        if index is None:
            self._ignore(event)
            return
        self._end_job(event.job)
        self._cancel_timer(ctx.asr_timers.pop(event.job, None))
        ctx.segments[index] = "" if event.no_speech else event.text.strip()
        if self._state is not State.PROCESSING or not ctx.segments_resolved():
            return  # the user is still speaking (false endpoint) or another segment is due
        ctx.span.mark("asr_final", event.at_s)
        text = ctx.user_text()
        if not text:
            self._cancel_work()
            self._finish_span()
            self._clean_context()
            self._go(State.LISTENING, "no_speech", event.at_s)
            return
        self._emit(PublishUserText(turn_id=self._turn_id, text=text))
        self._start_reply(event.at_s)

    # --- barge-in ---------------------------------------------------------------------------------

    def _on_voice_onset(self, event: VoiceOnsetDuringPlayback) -> None:
        reply = self._ctx.reply
        if self._state is not State.ASSISTANT_SPEAKING or reply is None or reply.ducked:
            self._ignore(event)
            return
        reply.ducked = True
        self._ctx.floor_from_s = event.speech_start_s
        if reply.stream_job is not None:
            self._emit(
                DuckPlayback(
                    turn_id=self._turn_id, job=reply.stream_job, gain_db=self._policy.duck_gain_db
                )
            )

    def _on_barge_in_decided(self, event: BargeInDecided) -> None:
        reply = self._ctx.reply
        if self._state is not State.ASSISTANT_SPEAKING or reply is None:
            self._ignore(event)
            return
        if event.real:
            from_s = self._ctx.floor_from_s
            self._barge_in(event.at_s, event.at_s if from_s is None else from_s, "barge_in_voice")
        elif reply.ducked:
            reply.ducked = False
            self._ctx.floor_from_s = None
            if reply.stream_job is not None:
                self._emit(ResumePlayback(turn_id=self._turn_id, job=reply.stream_job))

    def _barge_in(self, at_s: float, from_s: float, cause: str) -> None:
        """Silence the assistant first, then cancel the rest; the floor goes to the user later."""
        ctx = self._ctx
        ctx.span.mark("barge_in", at_s)
        ctx.floor_from_s = from_s
        cancels = self._cancel_work(keep_stream=True)
        ctx.flush_timer = self._start_timer(Stage.PLAYBACK, self._policy.flush_timeout_s)
        self._go(State.INTERRUPTED, cause, at_s, cancels)

    def _on_playback_stopped(self, event: PlaybackStopped) -> None:
        reply = self._ctx.reply
        if self._state is not State.INTERRUPTED or reply is None:
            self._ignore(event)
            return
        reply.played_samples = event.played_samples
        self._ctx.span.mark("playback_stopped", event.at_s)
        self._hand_floor(event.at_s)

    def _hand_floor(self, at_s: float) -> None:
        """Record what was heard, then give the floor to the user (a new turn)."""
        ctx = self._ctx
        self._cancel_timer(ctx.flush_timer)
        self._record_exchange(self._heard(interrupted=True), at_s)
        from_s = at_s if ctx.floor_from_s is None else ctx.floor_from_s
        if ctx.released_early:
            self._clean_context()
            self._go(State.LISTENING, "ptt_tap", at_s)
            return
        ended_s = ctx.ended_early_s
        self._new_turn()
        self._start_recording(from_s)
        if ended_s is None:
            self._go(State.USER_SPEAKING, "floor_to_user", at_s)
        else:
            self._endpoint(at_s, ended_s, "speech_ended")

    # --- failures, timers, apology, reset ---------------------------------------------------------

    def _on_stage_failed(self, event: StageFailed) -> None:
        spec = self._ctx.speculation
        if spec is not None and event.job == spec.job:
            self._end_job(spec.job)  # a failed guess costs nothing: the final starts afresh
            self._ctx.speculation = None
            return
        if self._state in (State.LISTENING, State.ERROR):
            self._ignore(event)
            return
        self._enter_error(event.at_s, f"{event.stage.value}_failed", event.code)

    def _on_stage_timed_out(self, event: StageTimedOut) -> None:
        ctx = self._ctx
        ctx.timers.pop(event.job, None)
        self._end_job(event.job)
        if event.job == ctx.filler_timer:
            self._play_filler(event.at_s)
        elif self._state is State.INTERRUPTED and event.job == ctx.flush_timer:
            ctx.flush_timer = None
            self._hand_floor(event.at_s)  # the last PlaybackProgress says what was heard
        elif self._state is State.ERROR:
            self._clean_context()
            self._go(State.LISTENING, "apology_timeout", event.at_s)
        else:
            cause = f"{event.stage.value}_timeout"
            self._enter_error(event.at_s, cause, cause)

    def _on_apology_finished(self, event: ApologyFinished) -> None:
        if self._state is not State.ERROR:
            self._ignore(event)
            return
        self._cancel_timer(self._ctx.apology_timer)
        self._clean_context()
        self._go(State.LISTENING, "apology_done", event.at_s)

    def _on_reset(self, event: Reset) -> None:
        if self._state is State.ERROR:
            self._emit(StopApology(turn_id=self._turn_id))
        cancels = self._cancel_work()
        self._finish_span()
        self._clean_context()
        if self._state is not State.LISTENING:
            self._go(State.LISTENING, "reset", event.at_s, cancels)
