"""The output half of a reply: spoken units, synthesis, playback, and what was heard.

``ReplyOutput`` needs only the shared core and the reply's own records, never the LLM side;
``ReplyRuns`` (reply.py), ``Reflection`` (reflect.py), the write path and the barge-in call it.
"""

from __future__ import annotations

import logging

from desktop_agent.core.conversation.heard import HeardReport, heard_so_far
from desktop_agent.core.conversation.history import render_for_prompt
from desktop_agent.core.knowledge.records import Disposition
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.privacy import said
from desktop_agent.core.reflection.gate import join_heard
from desktop_agent.core.tools.claimed import asks_action, claims_action, unbacked_reply
from desktop_agent.core.turns.base import TurnCore
from desktop_agent.core.turns.commands import CancelLlm, PlayChunk, Synthesize
from desktop_agent.core.turns.context import Reply
from desktop_agent.core.turns.events import (
    LlmToken,
    PlaybackFinished,
    PlaybackProgress,
    PlaybackStarted,
    TtsChunkReady,
)
from desktop_agent.core.turns.reports import PublishHeard, PublishUnit
from desktop_agent.core.turns.spoken_units import UnitSlot
from desktop_agent.core.turns.states import Stage, State
from desktop_agent.core.turns.stopping import stop_llm_run

_LOGGER = logging.getLogger(__name__)
REPLYING = (State.PROCESSING, State.WAITING_FOR_TOOL, State.ASSISTANT_SPEAKING)
"""The states in which a reply is being prepared or spoken."""


class ReplyOutput:
    """A reply's speech: units, synthesis, playback, the end of the reply, what was heard.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(self, core: TurnCore, *, tools: frozenset[str] | None = None) -> None:
        """Work through ``core``, the machine's shared core.

        Args:
            core: The machine's shared core.
            tools: Names of the tools this app has (None: every catalog tool), for what a
                refused action claim says (``core.tools.claimed.unbacked_reply``).
        """
        self._core = core
        self._tools = tools

    # --- a grounded answer's spoken units ---------------------------------------------------

    def speak_unit(self, reply: Reply, event: LlmToken, at_s: float) -> None:
        """Admit a unit as it arrives and synthesise it clause by clause (one slot)."""
        core, unit = self._core, event.unit
        assert unit is not None
        for clause in reply.chunker.flush():  # text streamed before the unit goes first
            self.synthesize(reply, clause)
        verdict = reply.units.judge(unit, at_s, at_s, canceled=False,
                                    max_age_s=core.policy.unit_max_age_s)
        if verdict is not Disposition.READY:
            _LOGGER.info("turn %d: unit %s dropped on arrival (%s)", core.turn_id, unit.key,
                         verdict.value)
            core.emit(PublishUnit(turn_id=core.turn_id, unit=unit, disposition=verdict.value,
                                  at_s=at_s))
            return
        reply.text = f"{reply.text} {unit.text}".strip()
        slot = UnitSlot(unit=unit, arrived_s=at_s)
        chunker = core.chunker_factory()  # the first clause plays while the rest is made
        for clause in [*chunker.push(unit.text), *chunker.flush()]:
            reply.units.slots[self.synthesize(reply, clause)] = slot

    def _unit_admitted(self, reply: Reply, chunk_index: int, at_s: float, *,
                       queueing: bool) -> bool:
        """False when the chunk is a unit that must not play now (its drop is published).

        Called after synthesis (``queueing`` False) and right before the chunk is queued to
        the speaker (True: an admitted unit is published as 'ready' then).
        """
        core = self._core
        slot = reply.units.slots.get(chunk_index)
        if slot is None:
            return True
        if slot.disposition != Disposition.READY.value:
            return False
        verdict = reply.units.judge(slot.unit, slot.arrived_s, at_s, canceled=False,
                                    max_age_s=core.policy.unit_max_age_s)
        if verdict is Disposition.READY and (not queueing or slot.queued):
            return True  # 'ready' is published once, with the unit's first queued clause
        slot.queued = slot.queued or queueing
        slot.disposition = verdict.value
        if verdict is not Disposition.READY:
            _LOGGER.info("turn %d: unit %s dropped (%s)", core.turn_id, slot.unit.key,
                         verdict.value)
        core.emit(PublishUnit(turn_id=core.turn_id, unit=slot.unit,
                              disposition=verdict.value, at_s=at_s))
        return verdict is Disposition.READY

    def _settle_units(self, reply: Reply, played_samples: int, at_s: float) -> None:
        """The reply is over: publish what became of each unit (heard, unheard, canceled)."""
        if not reply.units.slots:
            return
        queued = {c.chunk_index for c in reply.queued}
        for slot, final in [*reply.units.settle(reply.queued, played_samples),
                            *reply.units.cancel_pending(queued)]:
            self._core.emit(PublishUnit(turn_id=self._core.turn_id, unit=slot.unit,
                                        disposition=final, at_s=at_s))

    # --- the model's own words: never an action no tool took ------------------------------

    def speak_model(self, reply: Reply, clause: str, at_s: float) -> None:
        """Speak a clause of the model's own text, unless it claims an action no tool took.

        Every clause the model streams (runs, continuations, the reflected opening) comes
        through here, whatever tools exist: when the request could ask for an action
        (``core.tools.claimed.asks_action``), a clause that says it did, is doing or will now
        do something (``claims_action``) while no tool of this turn has answered without an
        error is never spoken; the run is stopped and the reply says
        what the app cannot do instead (``unbacked_reply``). Text the app itself speaks (a
        tool's sentence, a read-back, the filler) does not come through here.
        """
        if reply.claim_refused:
            return
        request = self._core.ctx.user_text()
        if not reply.acted and asks_action(request) and claims_action(clause, request):
            self._refuse_claim(reply, clause, request, at_s)
            return
        self.synthesize(reply, clause)

    def _refuse_claim(self, reply: Reply, clause: str, request: str, at_s: float) -> None:
        core = self._core
        _LOGGER.info("turn %d: not spoken, an action claimed with no tool run: %s",
                     core.turn_id, said(clause))
        reply.claim_refused = True
        stop_llm_run(core, reply)
        r = reply.reflect
        if r is not None and r.job is not None:
            core.emit(CancelLlm(turn_id=core.turn_id, job=r.job))
            core.end_job(r.job)
        reply.reflect = None  # nothing more is said, so nothing more is reflected
        reply.chunker = core.chunker_factory()  # the rest of the claim is dropped
        sentence = unbacked_reply(request, available=self._tools)
        if reply.tool_error:  # the tool ran and failed: its own words say why
            error = reply.tool_error
            sentence = error if error.startswith("Sorry") else f"Sorry, that did not work: {error}"
        reply.text = sentence
        self.synthesize(reply, sentence)
        reply.llm_done = True
        reply.continuation_due = False
        self.maybe_finish(at_s)

    # --- synthesis and playback -------------------------------------------------------------

    def synthesize(self, reply: Reply, text: str) -> int:
        """Ask for ``text`` as the reply's next chunk; returns the chunk index."""
        core, ctx = self._core, self._core.ctx
        job = core.job()
        index = ctx.next_chunk_index
        ctx.next_chunk_index += 1
        reply.synth[job] = (index, text)
        core.emit(Synthesize(turn_id=core.turn_id, job=job, chunk_index=index, text=text))
        if ctx.tts_timer is None:
            ctx.tts_timer = core.start_timer(Stage.TTS, core.policy.tts_timeout_s)
        return index

    def on_tts_chunk_ready(self, event: TtsChunkReady) -> None:
        """A chunk is synthesised: queue it (and any that waited for it) in order."""
        core, ctx = self._core, self._core.ctx
        reply = ctx.reply
        if reply is None or event.job not in reply.synth:
            core.ignore(event)
            return
        del reply.synth[event.job]
        core.end_job(event.job)
        core.cancel_timer(ctx.tts_timer)
        ctx.tts_timer = None
        if reply.synth:  # progress was made: give the next chunk a fresh timeout
            ctx.tts_timer = core.start_timer(Stage.TTS, core.policy.tts_timeout_s)
        ctx.span.mark("first_chunk", event.at_s)
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
                reply.stream_job = core.job()
            reply.queued.append(chunk)
            reply.queued_samples += chunk.n_samples
            reply.playback_idle = False
            core.emit(PlayChunk(turn_id=core.turn_id, job=reply.stream_job,
                                chunk_index=chunk.chunk_index))
        self.maybe_finish(event.at_s)

    def on_playback_started(self, event: PlaybackStarted) -> None:
        """The speaker started: the assistant is speaking."""
        core = self._core
        reply = core.ctx.reply
        if reply is None or core.state not in REPLYING:
            core.ignore(event)
            return
        reply.playback_started = True
        core.ctx.span.mark("first_audio", event.at_s)
        if core.state is not State.ASSISTANT_SPEAKING:
            core.go(State.ASSISTANT_SPEAKING, "playback_started", event.at_s)

    def on_playback_progress(self, event: PlaybackProgress | PlaybackFinished) -> None:
        """The speaker consumed more samples (or all that were queued)."""
        reply = self._core.ctx.reply
        if reply is None:
            self._core.ignore(event)
            return
        reply.played_samples = max(reply.played_samples, event.played_samples)
        if isinstance(event, PlaybackFinished) and reply.played_samples >= reply.queued_samples:
            reply.playback_idle = True
            self.maybe_finish(event.at_s)

    def maybe_finish(self, at_s: float) -> None:
        """End the turn when the reply is complete and every queued sample was played."""
        core = self._core
        reply = core.ctx.reply
        if (
            reply is None
            or core.state not in REPLYING
            or not reply.llm_done
            or reply.llm_job is not None
            or reply.tools
            or reply.synth
            or reply.ready
        ):
            return
        if core.state is State.ASSISTANT_SPEAKING and reply.playback_idle:
            report = self.heard(interrupted=False)
            self.record_exchange(report, at_s)
            core.clean_context()
            core.go(State.LISTENING, "reply_done", at_s)
        elif core.state is State.PROCESSING and not reply.queued:
            self.record_exchange(None, at_s)
            core.clean_context()
            core.go(State.LISTENING, "empty_reply", at_s)

    # --- what was heard ---------------------------------------------------------------------

    def heard(self, *, interrupted: bool) -> HeardReport:
        """What the user heard of the current reply (all of it unless ``interrupted``)."""
        reply = self._core.ctx.reply
        assert reply is not None
        pending = [text for _, text in sorted(reply.synth.values())]
        pending += [c.text for _, c in sorted(reply.ready.items())]
        pending += reply.chunker.flush()
        return self._report(reply, interrupted=interrupted, pending=pending)

    def _report(self, reply: Reply, *, interrupted: bool, pending: list[str]) -> HeardReport:
        played = reply.played_samples if interrupted else reply.queued_samples
        chunks = reply.queued
        if reply.filler_index is not None:  # the filler is not part of the answer
            filler = [c for c in chunks if c.chunk_index == reply.filler_index]
            chunks = [c for c in chunks if c.chunk_index != reply.filler_index]
            played = max(0, played - sum(c.n_samples for c in filler))
        report = heard_so_far(
            self._core.turn_id,
            chunks,
            played,
            unsynthesised_text=" ".join(pending),
            interrupted=interrupted,
        )
        before = reply.reflect.heard_before if reply.reflect is not None else None
        return report if before is None else join_heard(before, report)

    def prompt_if_heard_whole(self) -> tuple[ChatMessage, ...] | None:
        """The next turn's prompt start if the user hears all of this reply, once it is known.

        None until the reply is complete while it plays (no run, tool or synthesis left,
        nothing buffered, no verdict pending). The runtime evaluates it in the idle LLM while
        the reply plays: after a tool's answer (which no model wrote) the whole exchange is
        new to both models, ~90 tokens, which evaluated at the next turn's start cost 1-2 s
        on two cores. A barge-in changes what is recorded; the prompt is then evaluated
        again from where it differs.
        """
        core = self._core
        reply = core.ctx.reply
        if reply is None or core.state is not State.ASSISTANT_SPEAKING:
            return None
        buffered: object = getattr(reply.chunker, "pending", "")
        if (not reply.llm_done or reply.llm_job is not None or reply.tools or reply.synth
                or reply.ready or reply.reflect is not None or buffered):
            return None
        report = self._report(reply, interrupted=False, pending=[])
        heard = report.heard_written or report.heard_text
        exchange = [ChatMessage("user", core.ctx.user_text()), *reply.tool_messages]
        if heard.strip():
            exchange.append(ChatMessage("assistant", heard))
        return core.history.prompt(render_for_prompt(exchange))

    def record_exchange(self, report: HeardReport | None, at_s: float) -> None:
        """Record the turn in history and publish what was heard; ends the turn's span."""
        core = self._core
        reply = core.ctx.reply
        if reply is not None:
            played = (reply.played_samples if report is not None and report.interrupted
                      else reply.queued_samples)
            self._settle_units(reply, played, at_s)
        tools = reply.tool_messages if reply is not None else []
        heard = (report.heard_written or report.heard_text) if report is not None else ""
        interrupted = report.interrupted if report is not None else False
        core.history.record_turn(
            core.ctx.user_text(),
            tool_messages=tools,
            assistant_text=heard,
            interrupted=interrupted,
        )
        if report is not None:
            core.emit(PublishHeard(turn_id=core.turn_id, report=report))
        core.finish_span()
