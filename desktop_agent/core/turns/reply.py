"""The reply half of the turn machine: speculation, LLM runs, tools, the filler.

Its speech (units, synthesis, playback, what was heard) is in reply_output.py.
"""

from __future__ import annotations

import logging

from desktop_agent.core.conversation.history import tool_call_message, tool_result_message
from desktop_agent.core.ports import ChatMessage, ToolCall
from desktop_agent.core.turns.commands import (
    CancelLlm,
    RunTool,
    StartLlm,
)
from desktop_agent.core.turns.context import Reply, Speculation, normalise_for_compare
from desktop_agent.core.turns.events import (
    AsrPartial,
    LlmFinished,
    LlmToken,
    LlmToolCall,
    ToolResult,
)
from desktop_agent.core.turns.reply_output import ReplyOutput
from desktop_agent.core.turns.states import JobId, Stage, State

_LOGGER = logging.getLogger(__name__)
NOT_CAUGHT = "Sorry, I didn't catch that. Could you say it another way?"
"""Said when a reply would otherwise be silent (the model produced nothing speakable)."""


def _speakable(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


class ReplyHandlers(ReplyOutput):
    """Handlers for the events of a reply. Not used on its own."""

    # --- speculative start ------------------------------------------------------------------------

    def _on_asr_partial(self, event: AsrPartial) -> None:
        ctx, policy = self._ctx, self._policy
        if self._state is not State.USER_SPEAKING or not ctx.segments_resolved():
            self._ignore(event)
            return
        candidate = " ".join(p for p in (ctx.user_text(), event.text.strip()) if p)
        spec = ctx.speculation
        if spec is not None and normalise_for_compare(spec.text) != normalise_for_compare(
            candidate
        ):
            self._emit(CancelLlm(turn_id=self._turn_id, job=spec.job))
            self._end_job(spec.job)
            ctx.speculation = spec = None
        if (
            spec is None
            and policy.speculative_start
            and event.stable
            and event.trailing_silence_s >= policy.speculative_min_silence_s
            and normalise_for_compare(candidate)
        ):
            job = self._job()
            messages = self._history.prompt(self._current_messages(candidate))
            self._emit(
                StartLlm(turn_id=self._turn_id, job=job, messages=messages, speculative=True)
            )
            ctx.speculation = Speculation(job=job, text=candidate)

    def _on_speculative_output(self, event: LlmToken | LlmToolCall | LlmFinished) -> bool:
        """Hold output of a speculative run that is not adopted yet. True when held."""
        spec = self._ctx.speculation
        if spec is None or event.job != spec.job:
            return False
        spec.held.append(event)
        if isinstance(event, LlmFinished):
            self._end_job(event.job)
        return True

    # --- starting the reply -----------------------------------------------------------------------

    def _start_reply(self, at_s: float) -> None:
        """The user's text is final: adopt the speculative run if it matches, else start one."""
        ctx = self._ctx
        reply = self._new_reply()
        spec, ctx.speculation = ctx.speculation, None
        text = ctx.user_text()
        if spec is not None and normalise_for_compare(spec.text) == normalise_for_compare(text):
            _LOGGER.info("turn %d: speculative LLM job %d adopted", self._turn_id, spec.job)
            reply.llm_job = spec.job
            if not spec.held:
                ctx.llm_timer = self._start_timer(Stage.LLM, self._policy.llm_first_token_timeout_s)
            for held in spec.held:
                self._replay(held, at_s)
            return
        if spec is not None:
            self._emit(CancelLlm(turn_id=self._turn_id, job=spec.job))
            self._end_job(spec.job)
        self._start_llm_run()

    def _new_reply(self) -> Reply:
        """A fresh reply attempt for this turn (chunk indices go on from the last one)."""
        ctx = self._ctx
        reply = ctx.reply = Reply(chunker=self._chunker_factory(),
                                  next_play_index=ctx.next_chunk_index)
        return reply

    def _replay(self, event: LlmToken | LlmToolCall | LlmFinished, at_s: float) -> None:
        # Held output is used now: it counts as produced at adoption time, not before.
        if isinstance(event, LlmToken):
            self._on_llm_token(event, at_s)
        elif isinstance(event, LlmToolCall):
            self._on_llm_tool_call(event, at_s)
        else:
            self._live.add(event.job)  # ended when held; the handler ends it again
            self._on_llm_finished(event, at_s)

    def _current_messages(self, user_text: str) -> list[ChatMessage]:
        """This turn's messages: the user text, then finished tool calls and results."""
        reply = self._ctx.reply
        tools = reply.tool_messages if reply is not None else []
        return [ChatMessage(role="user", content=user_text), *tools]

    def _start_llm_run(self) -> None:
        reply = self._ctx.reply
        assert reply is not None
        job = reply.llm_job = self._job()
        reply.llm_first_output = False
        reply.continuation_due = False
        messages = self._history.prompt(self._current_messages(self._ctx.user_text()))
        self._emit(StartLlm(turn_id=self._turn_id, job=job, messages=messages))
        self._ctx.llm_timer = self._start_timer(Stage.LLM, self._policy.llm_first_token_timeout_s)
        self._arm_filler()

    # --- LLM output -------------------------------------------------------------------------------

    # --- the filler -------------------------------------------------------------------------------

    def _arm_filler(self) -> None:
        """Wait ``filler_after_s`` for output before saying the filler (once per turn)."""
        ctx, after = self._ctx, self._policy.filler_after_s
        reply = ctx.reply
        if (after > 0 and not ctx.filler_done and ctx.filler_timer is None
                and reply is not None and not reply.synth and not reply.queued):
            ctx.filler_timer = self._start_timer(Stage.LLM, after)

    def _disarm_filler(self) -> None:
        self._cancel_timer(self._ctx.filler_timer)
        self._ctx.filler_timer = None

    def _play_filler(self, at_s: float) -> None:
        """The wait ran long: say the filler as the reply's first chunk."""
        ctx = self._ctx
        ctx.filler_timer = None
        reply = ctx.reply
        if (reply is None or ctx.filler_done or reply.synth or reply.queued
                or self._state not in (State.PROCESSING, State.WAITING_FOR_TOOL)):
            return
        ctx.filler_done = True
        reply.filler_index = ctx.next_chunk_index
        ctx.span.mark("filler", at_s)
        self._synthesize(reply, self._policy.filler_text)

    def _first_output(self, reply: Reply, at_s: float) -> None:
        self._disarm_filler()
        if not reply.llm_first_output:
            reply.llm_first_output = True
            self._cancel_timer(self._ctx.llm_timer)
            self._ctx.llm_timer = None
            self._ctx.span.mark("llm_first_token", at_s)

    def _reply_for(self, event: LlmToken | LlmToolCall | LlmFinished) -> Reply | None:
        """The reply ``event`` feeds; None when it was held (speculative) or is stale."""
        if self._on_speculative_output(event):
            return None
        reply = self._ctx.reply
        if reply is None or event.job != reply.llm_job:
            self._ignore(event)
            return None
        return reply

    def _on_llm_token(self, event: LlmToken, at_s: float | None = None) -> None:
        reply = self._reply_for(event)
        if reply is None:
            return
        when = event.at_s if at_s is None else at_s
        self._first_output(reply, when)
        if event.unit is not None:
            self._speak_unit(reply, event, when)
            return
        reply.text += event.text
        for clause in reply.chunker.push(event.text):
            if _speakable(clause):
                self._synthesize(reply, clause)

    def _on_llm_tool_call(self, event: LlmToolCall, at_s: float | None = None) -> None:
        reply = self._reply_for(event)
        if reply is None:
            return
        when = event.at_s if at_s is None else at_s
        self._first_output(reply, when)
        for clause in reply.chunker.flush():  # speak what came before the call
            self._synthesize(reply, clause)
        if not self._tool_call_allowed(reply, when):
            return
        if self._policy.speak_tool_results:
            self._stop_llm_run(reply)  # the call is the answer; the result will be spoken
        self._run_tool(reply, RunTool(turn_id=self._turn_id, job=self._job(), call=event.call),
                       when)

    def _tool_call_allowed(self, reply: Reply, at_s: float) -> bool:
        """Count one more tool call; past ``max_tool_calls`` the turn fails (False)."""
        reply.tool_calls += 1
        if reply.tool_calls > self._policy.max_tool_calls:
            self._enter_error(at_s, "too_many_tool_calls", "too_many_tool_calls")
            return False
        return True

    def _stop_llm_run(self, reply: Reply) -> None:
        """Cancel the LLM run now streaming (its later output is dropped)."""
        if reply.llm_job is not None:
            self._emit(CancelLlm(turn_id=self._turn_id, job=reply.llm_job))
            self._end_job(reply.llm_job)
            reply.llm_job = None
            self._cancel_timer(self._ctx.llm_timer)
            self._ctx.llm_timer = None

    def _run_tool(self, reply: Reply, command: RunTool, at_s: float) -> None:
        """Emit ``command``, guard it with a timer, and wait for it (WAITING_FOR_TOOL)."""
        reply.tools[command.job] = command.call
        reply.tool_modes[command.job] = command.mode
        self._emit(command)
        self._ctx.tool_timers[command.job] = self._start_timer(
            Stage.TOOL, self._policy.tool_timeout_s)
        self._arm_filler()
        if self._state is State.PROCESSING:
            self._go(State.WAITING_FOR_TOOL, "tool_call", at_s)

    def _say(self, reply: Reply, text: str, at_s: float) -> None:
        """Speak ``text`` as the rest of the reply, without the LLM (it ends the reply)."""
        self._stop_llm_run(reply)
        self._disarm_filler()
        reply.text = f"{reply.text} {text}".strip()
        for clause in [*reply.chunker.push(text), *reply.chunker.flush()]:
            self._synthesize(reply, clause)
        reply.llm_done = True
        reply.continuation_due = False
        self._maybe_finish(at_s)

    def _on_llm_finished(self, event: LlmFinished, at_s: float | None = None) -> None:
        reply = self._reply_for(event)
        if reply is None:
            return
        when = event.at_s if at_s is None else at_s
        self._end_job(event.job)
        reply.llm_job = None
        self._cancel_timer(self._ctx.llm_timer)
        self._ctx.llm_timer = None
        if reply.tools or reply.continuation_due:
            self._maybe_continue(when)
            return
        self._ctx.span.mark("llm_done", when)
        if not _speakable(reply.text):
            # Never end a turn in silence: the model said nothing speakable.
            self._say(reply, NOT_CAUGHT, when)
            return
        for clause in reply.chunker.flush():
            self._synthesize(reply, clause)
        if self._run_ended(reply, when):
            return  # reflection takes it from here (reflect.py)
        reply.llm_done = True
        self._maybe_finish(when)

    def _run_ended(self, reply: Reply, at_s: float) -> bool:
        """Hook: the reply's LLM run ended with text. True when a subclass takes over."""
        return False

    def _on_tool_result(self, event: ToolResult) -> None:
        reply = self._ctx.reply
        if reply is None or event.job not in reply.tools:
            self._ignore(event)
            return
        call = self._end_tool_job(reply, event.job)
        if self._policy.speak_tool_results and not event.is_error and not reply.tools:
            self._record_tool(reply, call, event.content)
            self._say(reply, event.content, event.at_s)  # a read tool's own sentence
            return
        self._back_to_model(reply, call, event.content, event.at_s)

    def _end_tool_job(self, reply: Reply, job: JobId) -> ToolCall:
        """The tool job answered: forget it and its timer; returns its call."""
        call = reply.tools.pop(job)
        reply.tool_modes.pop(job, None)
        self._end_job(job)
        self._cancel_timer(self._ctx.tool_timers.pop(job, None))
        return call

    def _record_tool(self, reply: Reply, call: ToolCall, content: str) -> None:
        reply.tool_messages.append(tool_call_message(call))
        reply.tool_messages.append(tool_result_message(call.name, content))

    def _back_to_model(self, reply: Reply, call: ToolCall, content: str, at_s: float) -> None:
        """Hand the call and its result (or why it failed) to the model for the answer."""
        self._record_tool(reply, call, content)
        reply.continuation_due = True
        self._maybe_continue(at_s)

    def _maybe_continue(self, at_s: float) -> None:
        """All tools answered and the run that asked is over: run the LLM on the results."""
        reply = self._ctx.reply
        if reply is None or reply.tools or reply.llm_job is not None or not reply.continuation_due:
            return
        self._start_llm_run()
        if self._state is State.WAITING_FOR_TOOL:
            self._go(State.PROCESSING, "tool_result", at_s)
