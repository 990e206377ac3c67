"""The reply half of the turn machine: speculation, LLM runs, tools, synthesis and playback."""

from __future__ import annotations

import logging

from desktop_agent.core.grounded.model import Disposition
from desktop_agent.core.heard import HeardReport, heard_so_far
from desktop_agent.core.history import tool_call_message, tool_result_message
from desktop_agent.core.ports import ChatMessage, ToolCall
from desktop_agent.core.turns.base import MachineBase
from desktop_agent.core.turns.commands import (
    CancelLlm,
    PlayChunk,
    PublishHeard,
    PublishUnit,
    RunTool,
    StartLlm,
    Synthesize,
)
from desktop_agent.core.turns.context import Reply, Speculation, normalise_for_compare
from desktop_agent.core.turns.events import (
    AsrPartial,
    LlmFinished,
    LlmToken,
    LlmToolCall,
    PlaybackFinished,
    PlaybackProgress,
    PlaybackStarted,
    ToolResult,
    TtsChunkReady,
)
from desktop_agent.core.turns.model import JobId, Stage, State
from desktop_agent.core.turns.spoken_units import UnitSlot

_LOGGER = logging.getLogger(__name__)
_REPLYING = (State.PROCESSING, State.WAITING_FOR_TOOL, State.ASSISTANT_SPEAKING)
NOT_CAUGHT = "Sorry, I didn't catch that. Could you say it another way?"
"""Said when a reply would otherwise be silent (the model produced nothing speakable)."""


def _speakable(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


class ReplyHandlers(MachineBase):
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
        reply.llm_done = True
        for clause in reply.chunker.flush():
            self._synthesize(reply, clause)
        self._maybe_finish(when)

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

    # --- a grounded answer's spoken units ---------------------------------------------------------

    def _speak_unit(self, reply: Reply, event: LlmToken, at_s: float) -> None:
        """Admit a unit as it arrives and synthesise it as one chunk of its own."""
        unit = event.unit
        assert unit is not None
        for clause in reply.chunker.flush():  # text streamed before the unit goes first
            self._synthesize(reply, clause)
        verdict = reply.units.judge(unit, at_s, at_s, canceled=False,
                                    max_age_s=self._policy.unit_max_age_s)
        if verdict is not Disposition.READY:
            _LOGGER.info("turn %d: unit %s dropped on arrival (%s)", self._turn_id, unit.key,
                         verdict.value)
            self._emit(PublishUnit(turn_id=self._turn_id, unit=unit, disposition=verdict.value,
                                   at_s=at_s))
            return
        reply.text = f"{reply.text} {unit.text}".strip()
        index = self._synthesize(reply, unit.text)
        reply.units.slots[index] = UnitSlot(unit=unit, arrived_s=at_s)

    def _unit_admitted(self, reply: Reply, chunk_index: int, at_s: float, *,
                       queueing: bool) -> bool:
        """False when the chunk is a unit that must not play now (its drop is published).

        Called after synthesis (``queueing`` False) and right before the chunk is queued to
        the speaker (True: an admitted unit is published as 'ready' then).
        """
        slot = reply.units.slots.get(chunk_index)
        if slot is None:
            return True
        if slot.disposition != Disposition.READY.value:
            return False
        verdict = reply.units.judge(slot.unit, slot.arrived_s, at_s, canceled=False,
                                    max_age_s=self._policy.unit_max_age_s)
        if verdict is Disposition.READY and not queueing:
            return True
        slot.disposition = verdict.value
        if verdict is not Disposition.READY:
            _LOGGER.info("turn %d: unit %s dropped (%s)", self._turn_id, slot.unit.key,
                         verdict.value)
        self._emit(PublishUnit(turn_id=self._turn_id, unit=slot.unit,
                               disposition=verdict.value, at_s=at_s))
        return verdict is Disposition.READY

    def _settle_units(self, reply: Reply, played_samples: int, at_s: float) -> None:
        """The reply is over: publish what became of each unit (heard, unheard, canceled)."""
        if not reply.units.slots:
            return
        queued = {c.chunk_index for c in reply.queued}
        for slot, final in [*reply.units.settle(reply.queued, played_samples),
                            *reply.units.cancel_pending(queued)]:
            self._emit(PublishUnit(turn_id=self._turn_id, unit=slot.unit, disposition=final,
                                   at_s=at_s))

    # --- synthesis and playback -------------------------------------------------------------------

    def _synthesize(self, reply: Reply, text: str) -> int:
        """Ask for ``text`` as the reply's next chunk; returns the chunk index."""
        job = self._job()
        index = self._ctx.next_chunk_index
        self._ctx.next_chunk_index += 1
        reply.synth[job] = (index, text)
        self._emit(Synthesize(turn_id=self._turn_id, job=job, chunk_index=index, text=text))
        if self._ctx.tts_timer is None:
            self._ctx.tts_timer = self._start_timer(Stage.TTS, self._policy.tts_timeout_s)
        return index

    def _on_tts_chunk_ready(self, event: TtsChunkReady) -> None:
        reply = self._ctx.reply
        if reply is None or event.job not in reply.synth:
            self._ignore(event)
            return
        del reply.synth[event.job]
        self._end_job(event.job)
        self._cancel_timer(self._ctx.tts_timer)
        self._ctx.tts_timer = None
        if reply.synth:  # progress was made: give the next chunk a fresh timeout
            self._ctx.tts_timer = self._start_timer(Stage.TTS, self._policy.tts_timeout_s)
        self._ctx.span.mark("first_chunk", event.at_s)
        reply.ready[event.chunk_index] = event
        self._unit_admitted(reply, event.chunk_index, event.at_s, queueing=False)
        while reply.next_play_index in reply.ready:
            chunk = reply.ready.pop(reply.next_play_index)
            reply.next_play_index += 1
            if chunk.n_samples <= 0:
                continue
            if not self._unit_admitted(reply, chunk.chunk_index, event.at_s, queueing=True):
                continue
            if reply.stream_job is None:
                reply.stream_job = self._job()
            reply.queued.append(chunk)
            reply.queued_samples += chunk.n_samples
            reply.playback_idle = False
            self._emit(
                PlayChunk(
                    turn_id=self._turn_id, job=reply.stream_job, chunk_index=chunk.chunk_index
                )
            )
        self._maybe_finish(event.at_s)

    def _on_playback_started(self, event: PlaybackStarted) -> None:
        reply = self._ctx.reply
        if reply is None or self._state not in _REPLYING:
            self._ignore(event)
            return
        reply.playback_started = True
        self._ctx.span.mark("first_audio", event.at_s)
        if self._state is not State.ASSISTANT_SPEAKING:
            self._go(State.ASSISTANT_SPEAKING, "playback_started", event.at_s)

    def _on_playback_progress(self, event: PlaybackProgress | PlaybackFinished) -> None:
        reply = self._ctx.reply
        if reply is None:
            self._ignore(event)
            return
        reply.played_samples = max(reply.played_samples, event.played_samples)
        if isinstance(event, PlaybackFinished) and reply.played_samples >= reply.queued_samples:
            reply.playback_idle = True
            self._maybe_finish(event.at_s)

    def _maybe_finish(self, at_s: float) -> None:
        """End the turn when the reply is complete and every queued sample was played."""
        reply = self._ctx.reply
        if (
            reply is None
            or self._state not in _REPLYING
            or not reply.llm_done
            or reply.llm_job is not None
            or reply.tools
            or reply.synth
            or reply.ready
        ):
            return
        if self._state is State.ASSISTANT_SPEAKING and reply.playback_idle:
            report = self._heard(interrupted=False)
            self._record_exchange(report, at_s)
            self._clean_context()
            self._go(State.LISTENING, "reply_done", at_s)
        elif self._state is State.PROCESSING and not reply.queued:
            self._record_exchange(None, at_s)
            self._clean_context()
            self._go(State.LISTENING, "empty_reply", at_s)

    # --- what was heard ---------------------------------------------------------------------------

    def _heard(self, *, interrupted: bool) -> HeardReport:
        reply = self._ctx.reply
        assert reply is not None
        pending = [text for _, text in sorted(reply.synth.values())]
        pending += [c.text for _, c in sorted(reply.ready.items())]
        pending += reply.chunker.flush()
        played = reply.played_samples if interrupted else reply.queued_samples
        chunks = reply.queued
        if reply.filler_index is not None:  # the filler is not part of the answer
            filler = [c for c in chunks if c.chunk_index == reply.filler_index]
            chunks = [c for c in chunks if c.chunk_index != reply.filler_index]
            played = max(0, played - sum(c.n_samples for c in filler))
        return heard_so_far(
            self._turn_id,
            chunks,
            played,
            unsynthesised_text=" ".join(pending),
            interrupted=interrupted,
        )

    def _record_exchange(self, report: HeardReport | None, at_s: float) -> None:
        """Record the turn in history and publish what was heard; ends the turn's span."""
        reply = self._ctx.reply
        if reply is not None:
            played = (reply.played_samples if report is not None and report.interrupted
                      else reply.queued_samples)
            self._settle_units(reply, played, at_s)
        tools = reply.tool_messages if reply is not None else []
        heard = report.heard_text if report is not None else ""
        interrupted = report.interrupted if report is not None else False
        self._history.record_turn(
            self._ctx.user_text(),
            tool_messages=tools,
            assistant_text=heard,
            interrupted=interrupted,
        )
        if report is not None:
            self._emit(PublishHeard(turn_id=self._turn_id, report=report))
        self._finish_span()
