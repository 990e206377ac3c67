"""Failures, timers, the apology, and reset.

A failed stage or a timeout fails the turn (``stopping.enter_error``: stop everything,
apologise, ERROR); the filler's and the flush's timers are not failures (they say the filler,
and hand the floor over with the last progress). The apology ends by itself or by its timer;
a reset stops whatever is happening.
"""

from __future__ import annotations

from desktop_agent.core.turns.barge_in import BargeIn
from desktop_agent.core.turns.base import TurnCore
from desktop_agent.core.turns.commands import StopApology
from desktop_agent.core.turns.events import ApologyFinished, Reset, StageFailed, StageTimedOut
from desktop_agent.core.turns.reply import ReplyRuns
from desktop_agent.core.turns.states import State
from desktop_agent.core.turns.stopping import cancel_work, enter_error


class Failures:
    """Stage failures, timeouts, the end of the apology, and reset.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(self, core: TurnCore, runs: ReplyRuns, barge_in: BargeIn) -> None:
        """Work through ``core``; the filler is ``runs``'s, the floor ``barge_in``'s."""
        self._core = core
        self._runs = runs
        self._barge_in = barge_in

    def on_stage_failed(self, event: StageFailed) -> None:
        """A stage reported a failure: the turn fails (a failed speculation costs nothing)."""
        core = self._core
        spec = core.ctx.speculation
        if spec is not None and event.job == spec.job:
            core.end_job(spec.job)  # a failed guess costs nothing: the final starts afresh
            core.ctx.speculation = None
            return
        if core.state in (State.LISTENING, State.ERROR):
            core.ignore(event)
            return
        enter_error(core, event.at_s, f"{event.stage.value}_failed", event.code)

    def on_stage_timed_out(self, event: StageTimedOut) -> None:
        """A timer fired: the filler, the lost PlaybackStopped, the apology, or a failure."""
        core, ctx = self._core, self._core.ctx
        ctx.timers.pop(event.job, None)
        core.end_job(event.job)
        if event.job == ctx.filler_timer:
            self._runs.play_filler(event.at_s)
        elif core.state is State.INTERRUPTED and event.job == ctx.flush_timer:
            ctx.flush_timer = None
            self._barge_in.hand_floor(event.at_s)  # the last PlaybackProgress says what was heard
        elif core.state is State.ERROR:
            core.clean_context()
            core.go(State.LISTENING, "apology_timeout", event.at_s)
        else:
            cause = f"{event.stage.value}_timeout"
            enter_error(core, event.at_s, cause, cause)

    def on_apology_finished(self, event: ApologyFinished) -> None:
        """The apology was said: listen again."""
        core = self._core
        if core.state is not State.ERROR:
            core.ignore(event)
            return
        core.cancel_timer(core.ctx.apology_timer)
        core.clean_context()
        core.go(State.LISTENING, "apology_done", event.at_s)

    def on_reset(self, event: Reset) -> None:
        """Stop whatever is happening and listen."""
        core = self._core
        if core.state is State.ERROR:
            core.emit(StopApology(turn_id=core.turn_id))
        cancels = cancel_work(core)
        core.finish_span()
        core.clean_context()
        if core.state is not State.LISTENING:
            core.go(State.LISTENING, "reset", event.at_s, cancels)
