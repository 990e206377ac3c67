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
"""

from __future__ import annotations

import logging

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
from desktop_agent.core.turns.commands import CancelLlm, PublishAction, PublishUserText, RunTool
from desktop_agent.core.turns.context import Reply
from desktop_agent.core.turns.events import ActionButtonPressed, LlmToolCall, ToolResult
from desktop_agent.core.turns.reflect import ReflectHandlers
from desktop_agent.core.turns.states import State, ToolMode

_LOGGER = logging.getLogger(__name__)

PRESSED_CONFIRM = "[pressed Confirm]"
PRESSED_CANCEL = "[pressed Cancel]"
"""The user's side of the exchange in history when the card's button answered."""


class WriteHandlers(ReflectHandlers):
    """Handlers of the write path. Not used on its own (``TurnStateMachine`` builds on it)."""

    _gate: ConfirmGate
    _write_tools: frozenset[str]

    # --- public read-only view ----------------------------------------------------------------

    def pending_action(self, at_s: float) -> Pending | None:
        """The action waiting for a confirmation at ``at_s`` (None: none, or expired)."""
        return self._gate.current(at_s)

    # --- the model proposes ---------------------------------------------------------------------

    def _on_llm_tool_call(self, event: LlmToolCall, at_s: float | None = None) -> None:
        if event.call.name not in self._write_tools:
            super()._on_llm_tool_call(event, at_s)
            return
        reply = self._reply_for(event)
        if reply is None:
            return
        when = event.at_s if at_s is None else at_s
        self._first_output(reply, when)
        reply.chunker.flush()  # the model's own words around a write are not spoken
        reply.text = ""
        if not self._tool_call_allowed(reply, when):
            return
        self._stop_llm_run(reply)
        self._run_tool(reply, RunTool(turn_id=self._turn_id, job=self._job(), call=event.call,
                                      mode=ToolMode.PREPARE), when)

    def _on_tool_result(self, event: ToolResult) -> None:
        reply = self._ctx.reply
        mode = reply.tool_modes.get(event.job) if reply is not None else None
        if reply is None or mode in (None, ToolMode.RUN) or event.job not in reply.tools:
            super()._on_tool_result(event)
            return
        call = self._end_tool_job(reply, event.job)
        if mode is ToolMode.EXECUTE:
            last = self._gate.last
            if last is not None and last.pending.key == call.call_id:
                self._emit(PublishAction(turn_id=self._turn_id,
                                         kind="failed" if event.is_error else "executed",
                                         action=last.pending.action, key=last.pending.key,
                                         result=event.content))
            self._say(reply, event.content, event.at_s)  # what the tool actually reported
            return
        if event.action is None:  # the proposal did not validate
            if mode is ToolMode.REVISE:
                self._start_llm_run()  # not a change after all: an ordinary turn
                return
            self._back_to_model(reply, call, event.content, event.at_s)  # the model is told why
            return
        old = self._gate.propose(event.action, f"{self._turn_id}.{event.job}", event.at_s)
        if old is not None:
            self._emit(PublishAction(turn_id=self._turn_id, kind="cleared", action=old.action,
                                     key=old.key, outcome="replaced"))
        pending = self._gate.pending
        assert pending is not None
        self._emit(PublishAction(turn_id=self._turn_id, kind="pending", action=pending.action,
                                 key=pending.key,
                                 expires_in_s=pending.expires_in_s(event.at_s)))
        replaced = REPLACED if old is not None and mode is ToolMode.PREPARE else ""
        self._say(reply, replaced + event.action.read_back, event.at_s)

    # --- the user answers -------------------------------------------------------------------------

    def _start_reply(self, at_s: float) -> None:
        """The user's text is final: an answer to a pending action, or an ordinary turn."""
        text = self._ctx.user_text()
        pending = self._gate.current(at_s)
        self._publish_expired()
        answer = classify(text)
        if pending is None:
            if answer in (Answer.YES, Answer.NO) and self._gate.late(at_s) is not None:
                self._gate.mark_late_answered()
                self._say(self._fresh_reply(), late_answer(answer), at_s)
                return
            super()._start_reply(at_s)
            return
        if answer is Answer.OTHER:
            if not is_change(text):
                super()._start_reply(at_s)  # not an answer: no authority over the action
                return
            reply = self._fresh_reply()
            call = ToolCall(name=pending.action.tool, arguments=dict(pending.action.args))
            self._run_tool(reply, RunTool(turn_id=self._turn_id, job=self._job(), call=call,
                                          mode=ToolMode.REVISE, action=pending.action,
                                          text=text), at_s)
            return
        self._answer(pending, answer, at_s)

    def _answer(self, pending: Pending, answer: Answer, at_s: float) -> None:
        """Act on a plain answer to ``pending`` (PROCESSING: a reply or the execution)."""
        reply = self._fresh_reply()
        if answer is Answer.YES:
            self._gate.take(at_s)
            call = ToolCall(name=pending.action.tool, arguments=dict(pending.action.args),
                            call_id=pending.key)
            self._run_tool(reply, RunTool(turn_id=self._turn_id, job=self._job(), call=call,
                                          mode=ToolMode.EXECUTE, action=pending.action,
                                          key=pending.key), at_s)
        elif answer is Answer.NO:
            self._gate.cancel(at_s)
            self._publish_cleared(pending, "cancelled")
            self._say(reply, CANCELLED, at_s)
        elif not pending.asked_again:
            self._gate.ask_again()
            self._say(reply, second_question(pending.action), at_s)
        else:
            self._gate.cancel(at_s, "dropped")
            self._publish_cleared(pending, "dropped")
            self._say(reply, DROPPED, at_s)

    def _on_action_button_pressed(self, event: ActionButtonPressed) -> None:
        """Confirm / Cancel on the card: answered at once, even over the read-back."""
        at_s = event.at_s
        pending = self._gate.current(at_s)
        self._publish_expired()
        if self._state is State.ASSISTANT_SPEAKING and self._ctx.reply is not None:
            cancels = self._cancel_work()
            self._record_exchange(self._heard(interrupted=True), at_s)
            source_ok = True
        elif self._state is State.LISTENING:
            cancels, source_ok = (), True
        else:
            source_ok = False
        if not source_ok:
            self._ignore(event)
            return
        ctx = self._new_turn()
        ctx.segments.append(PRESSED_CONFIRM if event.confirm else PRESSED_CANCEL)
        self._emit(PublishUserText(turn_id=self._turn_id, text=ctx.user_text()))
        runs = pending is not None and event.confirm  # straight to the execution
        self._go(State.WAITING_FOR_TOOL if runs else State.PROCESSING, "action_pressed", at_s,
                 cancels)
        if pending is None:
            if self._gate.late(at_s) is not None:
                self._gate.mark_late_answered()
                text = late_answer(Answer.YES if event.confirm else Answer.NO)
            else:
                text = "There's nothing waiting to be confirmed."
            self._say(self._fresh_reply(), text, at_s)
            return
        self._answer(pending, Answer.YES if event.confirm else Answer.NO, at_s)

    # --- helpers ----------------------------------------------------------------------------------

    def _fresh_reply(self) -> Reply:
        """A new reply for this turn; a speculative LLM run is dropped (it is not needed)."""
        ctx = self._ctx
        spec, ctx.speculation = ctx.speculation, None
        if spec is not None:
            self._emit(CancelLlm(turn_id=self._turn_id, job=spec.job))
            self._end_job(spec.job)
        return self._new_reply()

    def _publish_expired(self) -> None:
        """Clear the card of an action that expired since the last look."""
        expired = self._gate.pop_expired()
        if expired is not None:
            self._publish_cleared(expired, "expired")

    def _publish_cleared(self, pending: Pending, outcome: str) -> None:
        self._emit(PublishAction(turn_id=self._turn_id, kind="cleared", action=pending.action,
                                 key=pending.key, outcome=outcome))
