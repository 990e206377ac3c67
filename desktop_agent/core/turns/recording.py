"""The user's recording: a new user turn, the endpoint, a false endpoint.

``Recording`` is the user side's lowest layer: ``UserInput`` (keys, speech, transcripts) and
``BargeIn`` (the floor handed back to the user) both start and close recordings through it.
"""

from __future__ import annotations

from desktop_agent.core.turns.base import TurnCore
from desktop_agent.core.turns.commands import StartRecording, StopRecording, Transcribe
from desktop_agent.core.turns.states import Stage, State
from desktop_agent.core.turns.stopping import cancel_work

_FALSE_ENDPOINT_MARKS = ("asr_final", "llm_first_token", "first_chunk", "first_audio", "llm_done")
"""Span marks of a reply that a false endpoint cancelled (the next reply sets them again)."""


class Recording:
    """Starts, closes and resumes the user's recording of the current turn.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(self, core: TurnCore) -> None:
        """Work through ``core``, the machine's shared core."""
        self._core = core

    def begin_user_turn(self, from_s: float, cause: str, at_s: float | None = None) -> bool:
        """A new turn id, a new recording, USER_SPEAKING (False: the edge was refused)."""
        self._core.new_turn()
        self.start_recording(from_s)
        return self._core.go(State.USER_SPEAKING, cause, from_s if at_s is None else at_s)

    def start_recording(self, from_s: float) -> None:
        """Record the user from ``from_s`` (clock seconds) on."""
        core = self._core
        job = core.ctx.recording_job = core.job()
        core.emit(StartRecording(turn_id=core.turn_id, job=job, from_s=from_s,
                                 partials=core.policy.partials))

    def endpoint(self, at_s: float, until_s: float, cause: str) -> bool:
        """The user stopped: close the recording, transcribe it, PROCESSING."""
        core, ctx = self._core, self._core.ctx
        recording = ctx.recording_job
        assert recording is not None
        core.emit(StopRecording(turn_id=core.turn_id, job=recording, until_s=until_s))
        core.end_job(recording)
        ctx.recording_job = None
        job = core.job()
        ctx.asr_segment[job] = len(ctx.segments)
        ctx.segments.append(None)
        core.emit(Transcribe(turn_id=core.turn_id, job=job, recording=recording))
        ctx.asr_timers[job] = core.start_timer(Stage.ASR, core.policy.asr_timeout_s)
        for name in ("endpoint", "speech_end"):  # after a false endpoint, the last one counts
            ctx.span.marks.pop(name, None)
        ctx.span.mark("endpoint", at_s)
        if cause == "speech_ended":  # hands-free: the endpointer knows when the speech ended
            ctx.span.mark("speech_end", until_s)
        return core.go(State.PROCESSING, cause, at_s)

    def resume_user(self, at_s: float, from_s: float) -> bool:
        """False endpoint: the user spoke again before the assistant did. Same turn, merged."""
        core, ctx = self._core, self._core.ctx
        cancels = cancel_work(core, keep_asr=True)
        ctx.reply = None
        for name in _FALSE_ENDPOINT_MARKS:
            ctx.span.marks.pop(name, None)
        self.start_recording(from_s)
        return core.go(State.USER_SPEAKING, "speech_resumed", at_s, cancels)
