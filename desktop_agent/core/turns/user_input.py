"""The user's side of a turn: push-to-talk, speech onsets and ends, final transcripts.

Each event is read against the state it arrives in: in LISTENING it starts a turn, while the
user speaks it ends one, before the assistant was heard it is a false endpoint, over the
assistant it is a barge-in (``BargeIn``), over the apology it cuts the apology. A final
transcript resolves the turn's text and starts the reply (through ``WritePath``).
"""

from __future__ import annotations

from desktop_agent.core.turns.barge_in import BargeIn
from desktop_agent.core.turns.base import TurnCore
from desktop_agent.core.turns.commands import StopApology
from desktop_agent.core.turns.events import (
    AsrFinal,
    PttPressed,
    PttReleased,
    SpeechEnded,
    SpeechStarted,
)
from desktop_agent.core.turns.recording import Recording
from desktop_agent.core.turns.reports import PublishUserText
from desktop_agent.core.turns.states import State
from desktop_agent.core.turns.stopping import cancel_work
from desktop_agent.core.turns.write_path import WritePath

_BEFORE_SPEECH = (State.PROCESSING, State.WAITING_FOR_TOOL)
"""States where the assistant has not been heard yet: user speech there is a false endpoint."""


class UserInput:
    """Push-to-talk, speech onsets and ends, and final transcripts.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(self, core: TurnCore, recording: Recording, barge_in: BargeIn,
                 reply: WritePath) -> None:
        """Work through ``core``; record, barge in and start the reply through the rest."""
        self._core = core
        self._recording = recording
        self._barge_in = barge_in
        self._reply = reply

    def on_ptt_pressed(self, event: PttPressed) -> None:
        """The key went down."""
        core = self._core
        if core.state is State.LISTENING:
            self._recording.begin_user_turn(event.at_s, "ptt_pressed")
        elif core.state in _BEFORE_SPEECH:
            self._recording.resume_user(event.at_s, event.at_s)
        elif core.state is State.ASSISTANT_SPEAKING:
            self._barge_in.barge_in(event.at_s, event.at_s, "barge_in_ptt")
        elif core.state is State.ERROR:
            self._cut_apology()
            self._recording.begin_user_turn(event.at_s, "ptt_pressed")
        elif core.state is State.INTERRUPTED and core.ctx.released_early:
            core.ctx.released_early = False
        else:
            core.ignore(event)

    def on_ptt_released(self, event: PttReleased) -> None:
        """The key came up."""
        core = self._core
        if core.state is State.USER_SPEAKING:
            self._recording.endpoint(event.at_s, event.at_s, "ptt_released")
        elif core.state is State.INTERRUPTED:
            core.ctx.released_early = True
        else:
            core.ignore(event)

    def on_speech_started(self, event: SpeechStarted) -> None:
        """The segmenter heard speech begin (hands-free)."""
        core = self._core
        if core.state is State.LISTENING:
            self._recording.begin_user_turn(event.speech_start_s, "speech_started", event.at_s)
        elif core.state is State.ERROR:
            # Speech over the apology: the user wins, as a key press does (the segmenter
            # will not report this onset again, so ignoring it would lose the words).
            self._cut_apology()
            self._recording.begin_user_turn(event.speech_start_s, "speech_started", event.at_s)
        elif core.state in _BEFORE_SPEECH:
            self._recording.resume_user(event.at_s, event.speech_start_s)
        else:
            core.ignore(event)

    def on_speech_ended(self, event: SpeechEnded) -> None:
        """The endpointer says the speech ended (hands-free)."""
        core = self._core
        if core.state is State.USER_SPEAKING:
            self._recording.endpoint(event.at_s, event.speech_end_s, "speech_ended")
        elif core.state is State.INTERRUPTED:
            core.ctx.ended_early_s = event.speech_end_s
        else:
            core.ignore(event)

    def _cut_apology(self) -> None:
        core = self._core
        core.emit(StopApology(turn_id=core.turn_id))
        core.cancel_timer(core.ctx.apology_timer)

    def on_asr_final(self, event: AsrFinal) -> None:
        """A recording's final transcript: once all are in, the reply starts (or no speech)."""
        core, ctx = self._core, self._core.ctx
        index = ctx.asr_segment.pop(event.job, None)
        if index is None:
            core.ignore(event)
            return
        core.end_job(event.job)
        core.cancel_timer(ctx.asr_timers.pop(event.job, None))
        ctx.segments[index] = "" if event.no_speech else event.text.strip()
        if core.state is not State.PROCESSING or not ctx.segments_resolved():
            return  # the user is still speaking (false endpoint) or another segment is due
        ctx.span.mark("asr_final", event.at_s)
        text = ctx.user_text()
        if not text:
            cancel_work(core)
            core.finish_span()
            core.clean_context()
            core.go(State.LISTENING, "no_speech", event.at_s)
            return
        core.emit(PublishUserText(turn_id=core.turn_id, text=text))
        self._reply.start_reply(event.at_s)
