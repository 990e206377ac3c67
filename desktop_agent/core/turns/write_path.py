"""The write path of the turn machine: propose, read back, confirm, execute once.

The model proposes a write (a tool call whose spec ``writes``); the machine never runs it.
It asks the tool executor to validate it (``ToolMode.PREPARE``), stores the validated action
in the ``ConfirmGate`` with an idempotency key and an expiry, and speaks the read-back the
executor generated from the structured action. The next user turn (or the card's Confirm /
Cancel button) is classified by ``core.tools.confirm.classify``:

* YES and unexpired -> ``ToolMode.EXECUTE`` of the stored action under its key, and the
  result the tool actually reported is spoken;
* NO -> dropped; UNCLEAR -> asked once more in a plainer form, then dropped;
* a change ("make it 6 pm") -> ``ToolMode.REVISE``: a new pending action, read back again;
* anything else -> an ordinary turn: it has no authority over the action. A new write
  request replaces the pending action and says so.

Nothing here reads a clock: expiry is judged against the events' ``at_s``.

``WritePath`` is the outermost layer of the reply: the machine hands it every tool call, tool
result and reply start, and it passes on to ``ReplyRuns`` (reply.py) what is not the write
path's (a read tool, an ordinary turn), replaying an adopted speculative run's held output
through itself.
"""

from __future__ import annotations

import logging
from collections.abc import Container

from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.confirm import (
    CANCELLED,
    DROPPED,
    REPLACED,
    Answer,
    ConfirmGate,
    Pending,
    classify,
    is_change,
    late_answer,
    second_question,
)
from desktop_agent.core.turns.base import TurnCore
from desktop_agent.core.turns.commands import CancelLlm, RunTool
from desktop_agent.core.turns.context import Reply
from desktop_agent.core.turns.events import (
    ActionButtonPressed,
    LlmFinished,
    LlmToken,
    LlmToolCall,
    ToolResult,
)
from desktop_agent.core.turns.reply import LlmOutput, ReplyRuns
from desktop_agent.core.turns.reply_output import ReplyOutput
from desktop_agent.core.turns.reports import PublishAction, PublishUserText
from desktop_agent.core.turns.states import State, ToolMode
from desktop_agent.core.turns.stopping import cancel_work, stop_llm_run

_LOGGER = logging.getLogger(__name__)

PRESSED_CONFIRM = "[pressed Confirm]"
PRESSED_CANCEL = "[pressed Cancel]"
"""The user's side of the exchange in history when the card's button answered."""


class WritePath:
    """Propose, read back, confirm, execute once; everything else goes on to ``ReplyRuns``.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(self, core: TurnCore, output: ReplyOutput, runs: ReplyRuns, *,
                 write_tools: Container[str], gate: ConfirmGate) -> None:
        """Wire the write path.

        Args:
            core: The machine's shared core.
            output: The reply's speech (what was heard when the card cuts a read-back).
            runs: The LLM side of the reply (what is not a write goes there).
            write_tools: Names of the tools that change things.
            gate: Where the pending action waits for its confirmation.
        """
        self._core = core
        self._output = output
        self._runs = runs
        self._write_tools = write_tools
        self._gate = gate

    def pending_action(self, at_s: float) -> Pending | None:
        """The action waiting for a confirmation at ``at_s`` (None: none, or expired)."""
        return self._gate.current(at_s)

    # --- the model proposes -----------------------------------------------------------------

    def on_llm_tool_call(self, event: LlmToolCall, at_s: float | None = None) -> None:
        """A call to a write tool is validated (PREPARE), never run; others go to the runs."""
        if event.call.name not in self._write_tools:
            self._runs.on_llm_tool_call(event, at_s)
            return
        core, runs = self._core, self._runs
        reply = runs.reply_for(event)
        if reply is None:
            return
        when = event.at_s if at_s is None else at_s
        runs.first_output(reply, when)
        reply.chunker.flush()  # the model's own words around a write are not spoken
        reply.text = ""
        if not runs.tool_call_allowed(reply, when):
            return
        stop_llm_run(core, reply)
        runs.run_tool(reply, RunTool(turn_id=core.turn_id, job=core.job(), call=event.call,
                                     mode=ToolMode.PREPARE), when)

    def on_tool_result(self, event: ToolResult) -> None:
        """A write step answered: read back, say what the tool did, or tell the model why."""
        core, runs = self._core, self._runs
        reply = core.ctx.reply
        mode = reply.tool_modes.get(event.job) if reply is not None else None
        if reply is None or mode in (None, ToolMode.RUN) or event.job not in reply.tools:
            runs.on_tool_result(event)
            return
        call = runs.end_tool_job(reply, event.job)
        if mode is ToolMode.EXECUTE:
            last = self._gate.last
            if last is not None and last.pending.key == call.call_id:
                core.emit(PublishAction(turn_id=core.turn_id,
                                        kind="failed" if event.is_error else "executed",
                                        action=last.pending.action, key=last.pending.key,
                                        result=event.content))
            runs.say(reply, event.content, event.at_s)  # what the tool actually reported
            return
        if event.action is None:  # the proposal did not validate
            if mode is ToolMode.REVISE:
                runs.start_llm_run()  # not a change after all: an ordinary turn
                return
            if event.final:  # nothing to fix ("no application called X"): said as it is
                runs.say(reply, event.content, event.at_s)
                return
            runs.back_to_model(reply, call, event.content, event.at_s)  # the model is told why
            return
        old = self._gate.propose(event.action, f"{core.turn_id}.{event.job}", event.at_s)
        if old is not None:
            core.emit(PublishAction(turn_id=core.turn_id, kind="cleared", action=old.action,
                                    key=old.key, outcome="replaced"))
        pending = self._gate.pending
        assert pending is not None
        core.emit(PublishAction(turn_id=core.turn_id, kind="pending", action=pending.action,
                                key=pending.key, expires_in_s=pending.expires_in_s(event.at_s)))
        replaced = REPLACED if old is not None and mode is ToolMode.PREPARE else ""
        runs.say(reply, replaced + event.action.read_back, event.at_s)

    # --- the user answers -------------------------------------------------------------------

    def start_reply(self, at_s: float) -> None:
        """The user's text is final: an answer to a pending action, or an ordinary turn."""
        core = self._core
        text = core.ctx.user_text()
        pending = self._gate.current(at_s)
        self._publish_expired()
        answer = classify(text)
        if pending is None:
            if answer in (Answer.YES, Answer.NO) and self._gate.late(at_s) is not None:
                self._gate.mark_late_answered()
                self._runs.say(self._fresh_reply(), late_answer(answer), at_s)
                return
            self._ordinary_reply(at_s)
            return
        if answer is Answer.OTHER:
            if not is_change(text):
                self._ordinary_reply(at_s)  # not an answer: no authority over the action
                return
            reply = self._fresh_reply()
            call = ToolCall(name=pending.action.tool, arguments=dict(pending.action.args))
            self._runs.run_tool(reply, RunTool(turn_id=core.turn_id, job=core.job(), call=call,
                                               mode=ToolMode.REVISE, action=pending.action,
                                               text=text), at_s)
            return
        self._answer(pending, answer, at_s)

    def _ordinary_reply(self, at_s: float) -> None:
        """Start the reply; an adopted speculative run's held output is replayed now."""
        for held in self._runs.start_reply(at_s):
            if self._core.stopped:
                return  # an edge was refused: the machine fails the turn
            self._replay(held, at_s)

    def _replay(self, event: LlmOutput, at_s: float) -> None:
        # Held output is used now: it counts as produced at adoption time, not before.
        if isinstance(event, LlmToken):
            self._runs.on_llm_token(event, at_s)
        elif isinstance(event, LlmToolCall):
            self.on_llm_tool_call(event, at_s)
        else:
            assert isinstance(event, LlmFinished)
            self._core.revive(event.job)  # ended when held; the handler ends it again
            self._runs.on_llm_finished(event, at_s)

    def _answer(self, pending: Pending, answer: Answer, at_s: float) -> None:
        """Act on a plain answer to ``pending`` (PROCESSING: a reply or the execution)."""
        core, runs = self._core, self._runs
        reply = self._fresh_reply()
        if answer is Answer.YES:
            self._gate.take(at_s)
            call = ToolCall(name=pending.action.tool, arguments=dict(pending.action.args),
                            call_id=pending.key)
            runs.run_tool(reply, RunTool(turn_id=core.turn_id, job=core.job(), call=call,
                                         mode=ToolMode.EXECUTE, action=pending.action,
                                         key=pending.key), at_s)
        elif answer is Answer.NO:
            self._gate.cancel(at_s)
            self._publish_cleared(pending, "cancelled")
            runs.say(reply, CANCELLED, at_s)
        elif not pending.asked_again:
            self._gate.ask_again()
            runs.say(reply, second_question(pending.action), at_s)
        else:
            self._gate.cancel(at_s, "dropped")
            self._publish_cleared(pending, "dropped")
            runs.say(reply, DROPPED, at_s)

    def on_action_button_pressed(self, event: ActionButtonPressed) -> None:
        """Confirm / Cancel on the card: answered at once, even over the read-back."""
        core, at_s = self._core, event.at_s
        pending = self._gate.current(at_s)
        self._publish_expired()
        if core.state is State.ASSISTANT_SPEAKING and core.ctx.reply is not None:
            cancels = cancel_work(core)
            self._output.record_exchange(self._output.heard(interrupted=True), at_s)
        elif core.state is State.LISTENING:
            cancels = ()
        else:
            core.ignore(event)
            return
        ctx = core.new_turn()
        ctx.segments.append(PRESSED_CONFIRM if event.confirm else PRESSED_CANCEL)
        core.emit(PublishUserText(turn_id=core.turn_id, text=ctx.user_text()))
        runs = pending is not None and event.confirm  # straight to the execution
        if not core.go(State.WAITING_FOR_TOOL if runs else State.PROCESSING, "action_pressed",
                       at_s, cancels):
            return
        if pending is None:
            if self._gate.late(at_s) is not None:
                self._gate.mark_late_answered()
                text = late_answer(Answer.YES if event.confirm else Answer.NO)
            else:
                text = "There's nothing waiting to be confirmed."
            self._runs.say(self._fresh_reply(), text, at_s)
            return
        self._answer(pending, Answer.YES if event.confirm else Answer.NO, at_s)

    # --- helpers ----------------------------------------------------------------------------

    def _fresh_reply(self) -> Reply:
        """A new reply for this turn; a speculative LLM run is dropped (it is not needed)."""
        core, ctx = self._core, self._core.ctx
        spec, ctx.speculation = ctx.speculation, None
        if spec is not None:
            core.emit(CancelLlm(turn_id=core.turn_id, job=spec.job))
            core.end_job(spec.job)
        return self._runs.new_reply()

    def _publish_expired(self) -> None:
        """Clear the card of an action that expired since the last look."""
        expired = self._gate.pop_expired()
        if expired is not None:
            self._publish_cleared(expired, "expired")

    def _publish_cleared(self, pending: Pending, outcome: str) -> None:
        self._core.emit(PublishAction(turn_id=self._core.turn_id, kind="cleared",
                                      action=pending.action, key=pending.key, outcome=outcome))
