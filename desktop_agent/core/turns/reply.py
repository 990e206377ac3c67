"""The LLM side of a reply: speculation, LLM runs, read tools, the filler.

``ReplyRuns`` streams the model's output into speech through ``ReplyOutput``
(reply_output.py) and lets ``Reflection`` (reflect.py) gate it. The write path
(write_path.py) sits above it: it sees every tool call, tool result and reply start first and
passes on what is not a write.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from desktop_agent.core.conversation.history import tool_call_message, tool_result_message
from desktop_agent.core.ports import ChatMessage, ToolCall
from desktop_agent.core.turns.base import TurnCore
from desktop_agent.core.turns.commands import CancelLlm, RunTool, StartLlm
from desktop_agent.core.turns.context import Reply, Speculation, normalise_for_compare
from desktop_agent.core.turns.events import (
    AsrPartial,
    LlmFinished,
    LlmToken,
    LlmToolCall,
    ToolResult,
)
from desktop_agent.core.turns.reflect import Reflection
from desktop_agent.core.turns.reply_output import ReplyOutput
from desktop_agent.core.turns.states import JobId, Stage, State
from desktop_agent.core.turns.stopping import enter_error, stop_llm_run

_LOGGER = logging.getLogger(__name__)
NOT_CAUGHT = "Sorry, I didn't catch that. Could you say it another way?"
"""Said when a reply would otherwise be silent (the model produced nothing speakable)."""

LlmOutput = LlmToken | LlmToolCall | LlmFinished
"""What an LLM run reports (held while its run is speculative)."""


def _speakable(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


class ReplyRuns:
    """Speculation, LLM runs, read tools and the filler of the current reply.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(self, core: TurnCore, output: ReplyOutput, reflection: Reflection, *,
                 tool_limits_s: Mapping[str, float] | None = None) -> None:
        """Work through ``core``; speak through ``output``; let ``reflection`` gate the runs.

        ``tool_limits_s``: seconds the turn waits for a tool that names its own limit
        (``ToolSpec.timeout_s``; read at each run, so the app's may grow); any other tool
        gets the policy's ``tool_timeout_s``.
        """
        self._core = core
        self._output = output
        self._reflection = reflection
        self._tool_limits_s: Mapping[str, float] = {} if tool_limits_s is None else tool_limits_s

    # --- speculative start ------------------------------------------------------------------

    def on_asr_partial(self, event: AsrPartial) -> None:
        """A partial transcript: start the LLM on it early when it is stable enough."""
        core, ctx, policy = self._core, self._core.ctx, self._core.policy
        if core.state is not State.USER_SPEAKING or not ctx.segments_resolved():
            core.ignore(event)
            return
        candidate = " ".join(p for p in (ctx.user_text(), event.text.strip()) if p)
        spec = ctx.speculation
        if spec is not None and normalise_for_compare(spec.text) != normalise_for_compare(
            candidate
        ):
            core.emit(CancelLlm(turn_id=core.turn_id, job=spec.job))
            core.end_job(spec.job)
            ctx.speculation = spec = None
        if (
            spec is None
            and policy.speculative_start
            and event.stable
            and event.trailing_silence_s >= policy.speculative_min_silence_s
            and normalise_for_compare(candidate)
        ):
            job = core.job()
            messages = core.history.prompt(self._current_messages(candidate))
            core.emit(StartLlm(turn_id=core.turn_id, job=job, messages=messages,
                               speculative=True))
            ctx.speculation = Speculation(job=job, text=candidate)

    def _held(self, event: LlmOutput) -> bool:
        """Hold output of a speculative run that is not adopted yet. True when held."""
        spec = self._core.ctx.speculation
        if spec is None or event.job != spec.job:
            return False
        spec.held.append(event)
        if isinstance(event, LlmFinished):
            self._core.end_job(event.job)
        return True

    # --- starting the reply -----------------------------------------------------------------

    def start_reply(self, at_s: float) -> tuple[LlmOutput, ...]:
        """The user's text is final: adopt the speculative run if it matches, else start one.

        Returns:
            The adopted run's held output, for the caller to replay now, in order, as if it
            arrived at ``at_s`` (through the write path: a held call may be a write).
        """
        core, ctx = self._core, self._core.ctx
        reply = self.new_reply()
        spec, ctx.speculation = ctx.speculation, None
        text = ctx.user_text()
        if spec is not None and normalise_for_compare(spec.text) == normalise_for_compare(text):
            _LOGGER.info("turn %d: speculative LLM job %d adopted", core.turn_id, spec.job)
            reply.llm_job = spec.job
            if not spec.held:
                ctx.llm_timer = core.start_timer(Stage.LLM, core.policy.llm_first_token_timeout_s)
            return tuple(spec.held)
        if spec is not None:
            core.emit(CancelLlm(turn_id=core.turn_id, job=spec.job))
            core.end_job(spec.job)
        self.start_llm_run()
        return ()

    def new_reply(self) -> Reply:
        """A fresh reply attempt for this turn (chunk indices go on from the last one)."""
        ctx = self._core.ctx
        reply = ctx.reply = Reply(chunker=self._core.chunker_factory(),
                                  next_play_index=ctx.next_chunk_index)
        self._reflection.arm(reply)
        return reply

    def _current_messages(self, user_text: str) -> list[ChatMessage]:
        """This turn's messages: the user text, then finished tool calls and results."""
        reply = self._core.ctx.reply
        tools = reply.tool_messages if reply is not None else []
        return [ChatMessage(role="user", content=user_text), *tools]

    def start_llm_run(self) -> None:
        """Run the LLM on the turn so far (the user text, then tool calls and results)."""
        core, ctx = self._core, self._core.ctx
        reply = ctx.reply
        assert reply is not None
        job = reply.llm_job = core.job()
        reply.llm_first_output = False
        reply.continuation_due = False
        messages = core.history.prompt(self._current_messages(ctx.user_text()))
        core.emit(StartLlm(turn_id=core.turn_id, job=job, messages=messages))
        ctx.llm_timer = core.start_timer(Stage.LLM, core.policy.llm_first_token_timeout_s)
        self._arm_filler()

    # --- the filler -------------------------------------------------------------------------

    def _arm_filler(self) -> None:
        """Wait ``filler_after_s`` for output before saying the filler (once per turn)."""
        core, ctx = self._core, self._core.ctx
        after, reply = core.policy.filler_after_s, ctx.reply
        if (after > 0 and not ctx.filler_done and ctx.filler_timer is None
                and reply is not None and not reply.synth and not reply.queued):
            ctx.filler_timer = core.start_timer(Stage.LLM, after)

    def _disarm_filler(self) -> None:
        self._core.cancel_timer(self._core.ctx.filler_timer)
        self._core.ctx.filler_timer = None

    def play_filler(self, at_s: float) -> None:
        """The wait ran long (the filler timer fired): say the filler as the first chunk."""
        core, ctx = self._core, self._core.ctx
        ctx.filler_timer = None
        reply = ctx.reply
        if (reply is None or ctx.filler_done or reply.synth or reply.queued
                or core.state not in (State.PROCESSING, State.WAITING_FOR_TOOL)):
            return
        ctx.filler_done = True
        reply.filler_index = ctx.next_chunk_index
        ctx.span.mark("filler", at_s)
        self._output.synthesize(reply, core.policy.filler_text)

    # --- LLM output -------------------------------------------------------------------------

    def first_output(self, reply: Reply, at_s: float) -> None:
        """The current run produced its first token or call: the filler is not needed."""
        ctx = self._core.ctx
        self._disarm_filler()
        if not reply.llm_first_output:
            reply.llm_first_output = True
            self._core.cancel_timer(ctx.llm_timer)
            ctx.llm_timer = None
            ctx.span.mark("llm_first_token", at_s)

    def reply_for(self, event: LlmOutput) -> Reply | None:
        """The reply ``event`` feeds; None when it was held (speculative) or is stale."""
        if self._held(event):
            return None
        reply = self._core.ctx.reply
        if reply is None or event.job != reply.llm_job:
            self._core.ignore(event)
            return None
        return reply

    def on_llm_token(self, event: LlmToken, at_s: float | None = None) -> None:
        """Streamed text (or a grounded unit): chunk it into clauses and speak them.

        Args:
            event: The token.
            at_s: When it counts as produced (held output: its adoption time).
        """
        reply = self._core.ctx.reply
        head = self._reflection.opening_head(reply, event)
        if head is None:
            self._take_token(event, at_s)
            return
        self._take_token(head, at_s)
        assert reply is not None
        if reply.claim_refused:
            return  # the opening claimed an action: the refusal ended the reply
        self._reflection.end_opening(reply, event.at_s if at_s is None else at_s)

    def _take_token(self, event: LlmToken, at_s: float | None) -> None:
        reply = self.reply_for(event)
        if reply is None:
            return
        when = event.at_s if at_s is None else at_s
        self.first_output(reply, when)
        if event.unit is not None:
            self._output.speak_unit(reply, event, when)
            return
        reply.text += event.text
        for clause in reply.chunker.push(event.text):
            if _speakable(clause):
                self._output.speak_model(reply, clause, when)

    def on_llm_tool_call(self, event: LlmToolCall, at_s: float | None = None) -> None:
        """The model called a read tool: speak what came before, run the tool."""
        core = self._core
        self._reflection.skip_for_tool(core.ctx.reply, event.job)
        reply = self.reply_for(event)
        if reply is None:
            return
        when = event.at_s if at_s is None else at_s
        self.first_output(reply, when)
        for clause in reply.chunker.flush():  # speak what came before the call
            self._output.speak_model(reply, clause, when)
        if reply.claim_refused:
            return
        if not self.tool_call_allowed(reply, when):
            return
        if core.policy.speak_tool_results:
            stop_llm_run(core, reply)  # the call is the answer; the result will be spoken
        self.run_tool(reply, RunTool(turn_id=core.turn_id, job=core.job(), call=event.call),
                      when)

    def tool_call_allowed(self, reply: Reply, at_s: float) -> bool:
        """Count one more tool call; past ``max_tool_calls`` the turn fails (False)."""
        reply.tool_calls += 1
        if reply.tool_calls > self._core.policy.max_tool_calls:
            enter_error(self._core, at_s, "too_many_tool_calls", "too_many_tool_calls")
            return False
        return True

    def run_tool(self, reply: Reply, command: RunTool, at_s: float) -> None:
        """Emit ``command``, guard it with a timer, and wait for it (WAITING_FOR_TOOL)."""
        core = self._core
        reply.tools[command.job] = command.call
        reply.tool_modes[command.job] = command.mode
        core.emit(command)
        limit_s = self._tool_limits_s.get(command.call.name, core.policy.tool_timeout_s)
        core.ctx.tool_timers[command.job] = core.start_timer(Stage.TOOL, limit_s)
        self._arm_filler()
        if core.state is State.PROCESSING:
            core.go(State.WAITING_FOR_TOOL, "tool_call", at_s)

    def say(self, reply: Reply, text: str, at_s: float) -> None:
        """Speak ``text`` as the rest of the reply, without the LLM (it ends the reply)."""
        stop_llm_run(self._core, reply)
        self._disarm_filler()
        reply.text = f"{reply.text} {text}".strip()
        for clause in [*reply.chunker.push(text), *reply.chunker.flush()]:
            self._output.synthesize(reply, clause)
        reply.llm_done = True
        reply.continuation_due = False
        self._output.maybe_finish(at_s)

    def on_llm_finished(self, event: LlmFinished, at_s: float | None = None) -> None:
        """A run ended: continue after tools, reflect, or let the reply end with its audio."""
        core = self._core
        reply = self.reply_for(event)
        if reply is None:
            return
        when = event.at_s if at_s is None else at_s
        core.end_job(event.job)
        reply.llm_job = None
        core.cancel_timer(core.ctx.llm_timer)
        core.ctx.llm_timer = None
        if reply.tools or reply.continuation_due:
            self._maybe_continue(when)
            return
        core.ctx.span.mark("llm_done", when)
        if not _speakable(reply.text):
            # Never end a turn in silence: the model said nothing speakable.
            self.say(reply, NOT_CAUGHT, when)
            return
        for clause in reply.chunker.flush():
            self._output.speak_model(reply, clause, when)
        if reply.claim_refused:
            return  # the refusal ended the reply
        if self._reflection.run_ended(reply, when):
            return  # reflection takes it from here (reflect.py)
        reply.llm_done = True
        self._output.maybe_finish(when)

    # --- tool results -----------------------------------------------------------------------

    def on_tool_result(self, event: ToolResult) -> None:
        """A read tool answered: speak its sentence, or hand it back to the model."""
        reply = self._core.ctx.reply
        if reply is None or event.job not in reply.tools:
            self._core.ignore(event)
            return
        call = self.end_tool_job(reply, event.job)
        reply.acted = reply.acted or not event.is_error
        if event.is_error:
            reply.tool_error = event.content
        if self._core.policy.speak_tool_results and not event.is_error and not reply.tools:
            self._record_tool(reply, call, event.content)
            self.say(reply, event.content, event.at_s)  # a read tool's own sentence
            self._reflection.tool_sentence_said(reply, event.at_s)
            return
        self.back_to_model(reply, call, event.content, event.at_s)

    def end_tool_job(self, reply: Reply, job: JobId) -> ToolCall:
        """The tool job answered: forget it and its timer; returns its call."""
        call = reply.tools.pop(job)
        reply.tool_modes.pop(job, None)
        self._core.end_job(job)
        self._core.cancel_timer(self._core.ctx.tool_timers.pop(job, None))
        return call

    def _record_tool(self, reply: Reply, call: ToolCall, content: str) -> None:
        reply.tool_messages.append(tool_call_message(call))
        reply.tool_messages.append(tool_result_message(call.name, content))

    def back_to_model(self, reply: Reply, call: ToolCall, content: str, at_s: float) -> None:
        """Hand the call and its result (or why it failed) to the model for the answer."""
        self._record_tool(reply, call, content)
        reply.continuation_due = True
        self._maybe_continue(at_s)

    def _maybe_continue(self, at_s: float) -> None:
        """All tools answered and the run that asked is over: run the LLM on the results."""
        core = self._core
        reply = core.ctx.reply
        if reply is None or reply.tools or reply.llm_job is not None or not reply.continuation_due:
            return
        self.start_llm_run()
        if core.state is State.WAITING_FOR_TOOL:
            core.go(State.PROCESSING, "tool_result", at_s)
