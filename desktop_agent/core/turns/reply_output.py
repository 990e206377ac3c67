"""The output half of a reply: spoken units, synthesis, playback, and what was heard.

``ReplyHandlers`` (reply.py: speculation, LLM runs, tools, the filler) builds on this; what
is here only needs the reply's own records, never the LLM side.
"""

from __future__ import annotations

import logging

from desktop_agent.core.conversation.heard import HeardReport, heard_so_far
from desktop_agent.core.knowledge.records import Disposition
from desktop_agent.core.reflection.gate import join_heard
from desktop_agent.core.turns.base import MachineBase
from desktop_agent.core.turns.commands import PlayChunk, PublishHeard, PublishUnit, Synthesize
from desktop_agent.core.turns.context import Reply
from desktop_agent.core.turns.events import (
    LlmToken,
    PlaybackFinished,
    PlaybackProgress,
    PlaybackStarted,
    TtsChunkReady,
)
from desktop_agent.core.turns.spoken_units import UnitSlot
from desktop_agent.core.turns.states import Stage, State

_LOGGER = logging.getLogger(__name__)
REPLYING = (State.PROCESSING, State.WAITING_FOR_TOOL, State.ASSISTANT_SPEAKING)
"""The states in which a reply is being prepared or spoken."""


class ReplyOutput(MachineBase):
    """Handlers for a reply's speech. Not used on its own."""

    # --- a grounded answer's spoken units ---------------------------------------------------------

    def _speak_unit(self, reply: Reply, event: LlmToken, at_s: float) -> None:
        """Admit a unit as it arrives and synthesise it clause by clause (one slot)."""
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
        slot = UnitSlot(unit=unit, arrived_s=at_s)
        chunker = self._chunker_factory()  # the first clause plays while the rest is made
        for clause in [*chunker.push(unit.text), *chunker.flush()]:
            reply.units.slots[self._synthesize(reply, clause)] = slot

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
        if verdict is Disposition.READY and (not queueing or slot.queued):
            return True  # 'ready' is published once, with the unit's first queued clause
        slot.queued = slot.queued or queueing
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
        if reply is None or self._state not in REPLYING:
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
            or self._state not in REPLYING
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
        report = heard_so_far(
            self._turn_id,
            chunks,
            played,
            unsynthesised_text=" ".join(pending),
            interrupted=interrupted,
        )
        before = reply.reflect.heard_before if reply.reflect is not None else None
        return report if before is None else join_heard(before, report)

    def _record_exchange(self, report: HeardReport | None, at_s: float) -> None:
        """Record the turn in history and publish what was heard; ends the turn's span."""
        reply = self._ctx.reply
        if reply is not None:
            played = (reply.played_samples if report is not None and report.interrupted
                      else reply.queued_samples)
            self._settle_units(reply, played, at_s)
        tools = reply.tool_messages if reply is not None else []
        heard = (report.heard_written or report.heard_text) if report is not None else ""
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
