"""Barge-in: the user speaks over the assistant; silence first, then the floor to the user.

A voice onset during playback ducks (or pauses) the reply while the barge-in is judged; a
real one (or a push-to-talk press, via ``UserInput``) silences the assistant and cancels the
rest of the turn; when the player reports what it played (or the flush timer fires, see
``Failures``), what was heard is recorded and the floor goes to the user: a new turn.
"""

from __future__ import annotations

from desktop_agent.core.turns.base import TurnCore
from desktop_agent.core.turns.commands import DuckPlayback, ResumePlayback
from desktop_agent.core.turns.events import (
    BargeInDecided,
    PlaybackStopped,
    VoiceOnsetDuringPlayback,
)
from desktop_agent.core.turns.recording import Recording
from desktop_agent.core.turns.reply_output import ReplyOutput
from desktop_agent.core.turns.states import Stage, State
from desktop_agent.core.turns.stopping import cancel_work


class BargeIn:
    """Ducking, the barge-in itself, and handing the floor to the user.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(self, core: TurnCore, recording: Recording, output: ReplyOutput) -> None:
        """Work through ``core``, record through ``recording``, ask ``output`` what was heard."""
        self._core = core
        self._recording = recording
        self._output = output

    def on_voice_onset(self, event: VoiceOnsetDuringPlayback) -> None:
        """The user may be speaking over the reply: duck it while that is judged."""
        core = self._core
        reply = core.ctx.reply
        if core.state is not State.ASSISTANT_SPEAKING or reply is None or reply.ducked:
            core.ignore(event)
            return
        reply.ducked = True
        core.ctx.floor_from_s = event.speech_start_s
        if reply.stream_job is not None:
            core.emit(DuckPlayback(turn_id=core.turn_id, job=reply.stream_job,
                                   gain_db=core.policy.duck_gain_db))

    def on_barge_in_decided(self, event: BargeInDecided) -> None:
        """The judgement: a real barge-in stops the assistant; otherwise the reply resumes."""
        core = self._core
        reply = core.ctx.reply
        if core.state is not State.ASSISTANT_SPEAKING or reply is None:
            core.ignore(event)
            return
        if event.real:
            from_s = core.ctx.floor_from_s
            self.barge_in(event.at_s, event.at_s if from_s is None else from_s, "barge_in_voice")
        elif reply.ducked:
            reply.ducked = False
            core.ctx.floor_from_s = None
            if reply.stream_job is not None:
                core.emit(ResumePlayback(turn_id=core.turn_id, job=reply.stream_job))

    def barge_in(self, at_s: float, from_s: float, cause: str) -> bool:
        """Silence the assistant first, then cancel the rest; the floor goes to the user later."""
        core, ctx = self._core, self._core.ctx
        ctx.span.mark("barge_in", at_s)
        ctx.floor_from_s = from_s
        cancels = cancel_work(core, keep_stream=True)
        ctx.flush_timer = core.start_timer(Stage.PLAYBACK, core.policy.flush_timeout_s)
        return core.go(State.INTERRUPTED, cause, at_s, cancels)

    def on_playback_stopped(self, event: PlaybackStopped) -> None:
        """The player stopped and says how much it played: hand the floor over."""
        core = self._core
        reply = core.ctx.reply
        if core.state is not State.INTERRUPTED or reply is None:
            core.ignore(event)
            return
        reply.played_samples = event.played_samples
        core.ctx.span.mark("playback_stopped", event.at_s)
        self.hand_floor(event.at_s)

    def hand_floor(self, at_s: float) -> bool:
        """Record what was heard, then give the floor to the user (a new turn)."""
        core, ctx = self._core, self._core.ctx
        core.cancel_timer(ctx.flush_timer)
        self._output.record_exchange(self._output.heard(interrupted=True), at_s)
        from_s = at_s if ctx.floor_from_s is None else ctx.floor_from_s
        if ctx.released_early:
            core.clean_context()
            return core.go(State.LISTENING, "ptt_tap", at_s)
        ended_s = ctx.ended_early_s
        core.new_turn()
        self._recording.start_recording(from_s)
        if ended_s is None:
            return core.go(State.USER_SPEAKING, "floor_to_user", at_s)
        return self._recording.endpoint(at_s, ended_s, "speech_ended")
