"""Verdict-gated speech in the turn machine: speak the opening, reflect while it plays.

When the policy's ``reflection`` applies to the user's question (core.reflection.applies):

1. The speaker's run streams as usual; the opening ends with its first sentence of at least
   ``opening_min_words`` words (or its second sentence, or the run's end). The run is then
   stopped (``CancelLlm``), the opening keeps playing, and ``Reflect`` goes out at once:
   the opening's first audio never waits for the reflector.
2. ``Reflected`` gates the stream. good: the reply ends when its audio ends. refine: the
   correction (or a model continuation with the guidance) is appended, no announced
   correction. repair: the stream is cut now (``FlushPlayback``; what was heard comes from
   the samples played and the word timings) and the continuation repairs; it confesses
   only when the flagged claim was heard (``core.reflection.gate.confess``). working: a
   plain continuation, reflected when it ends.
3. Every continuation is reflected in turn, up to ``max_reflections``; the last one's
   continuation ends the reply. A barge-in cancels the loop like any work of the turn
   (``_cancel_work`` cancels the Reflect job); the history keeps the whole heard utterance.

Each step is published (``PublishReflection``) for the conversation view and the bench.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import Final

from desktop_agent.core.reflection.checks import SentenceCheck, find_check
from desktop_agent.core.reflection.gate import CONFESSION, confess, refine_text, repair_text
from desktop_agent.core.reflection.reflector import applies
from desktop_agent.core.reflection.reflector_prompts import continuation_messages
from desktop_agent.core.reflection.verdict import Verdict
from desktop_agent.core.turns.commands import (
    CancelTts,
    FlushPlayback,
    PublishReflection,
    Reflect,
    StartLlm,
)
from desktop_agent.core.turns.context import ReflectState, Reply
from desktop_agent.core.turns.events import LlmToken, LlmToolCall, Reflected
from desktop_agent.core.turns.reply import ReplyHandlers
from desktop_agent.core.turns.states import Stage

_LOGGER = logging.getLogger(__name__)
_SENTENCE_END: Final = re.compile(r"[.!?][\"')\]]*(?=\s)")
OPENING_SENTENCES: Final = 2
"""The opening never runs past this many sentences."""


class ReflectHandlers(ReplyHandlers):
    """Handlers of verdict-gated speech. Not used on its own."""

    def set_reflection(self, mode: str) -> None:
        """Change the policy's ``reflection`` ('off', 'on', 'checkable'); the next reply uses it.

        Runs on: GUI thread (the settings dialog applied).
        """
        self._policy = dataclasses.replace(self._policy, reflection=mode)

    # --- arming and the opening -------------------------------------------------------------------

    def _new_reply(self) -> Reply:
        reply = super()._new_reply()
        question = self._ctx.user_text()
        if self._policy.reflection != "off" and applies(self._policy.reflection, question):
            check = find_check(question)
            reply.reflect = ReflectState(question=question,
                                         sentence_task=isinstance(check, SentenceCheck))
        return reply

    def _on_llm_token(self, event: LlmToken, at_s: float | None = None) -> None:
        reply = self._ctx.reply
        r = reply.reflect if reply is not None else None
        if (reply is None or r is None or not r.speaking or event.unit is not None
                or event.job != reply.llm_job):
            super()._on_llm_token(event, at_s)
            return
        end = self._opening_end(reply.text + event.text)
        if end is None:
            super()._on_llm_token(event, at_s)
            return
        head = event.text[: max(0, end - len(reply.text))]
        super()._on_llm_token(dataclasses.replace(event, text=head), at_s)
        when = event.at_s if at_s is None else at_s
        r.speaking = False
        self._stop_llm_run(reply)  # the opening is complete: the rest is the reflector's
        for clause in reply.chunker.flush():
            self._synthesize(reply, clause)
        self._begin_reflection(reply, when)

    def _opening_end(self, text: str) -> int | None:
        """Where the opening ends in ``text`` (an index after its last sentence), or None."""
        for count, m in enumerate(_SENTENCE_END.finditer(text), start=1):
            if len(text[: m.end()].split()) >= self._policy.opening_min_words \
                    or count >= OPENING_SENTENCES:
                return m.end()
        return None

    def _on_llm_tool_call(self, event: LlmToolCall, at_s: float | None = None) -> None:
        reply = self._ctx.reply
        if reply is not None and event.job == reply.llm_job:
            reply.reflect = None  # a tool answers: its own result is the external check
        super()._on_llm_tool_call(event, at_s)

    def _run_ended(self, reply: Reply, at_s: float) -> bool:
        """An LLM run of the reply ended: reflect on it (True) unless the loop is over."""
        r = reply.reflect
        if r is None:
            return False
        r.speaking = False
        if r.rounds >= self._policy.max_reflections:
            return False
        self._begin_reflection(reply, at_s)
        return True

    # --- reflecting -------------------------------------------------------------------------------

    def _utterance(self, reply: Reply) -> str:
        r = reply.reflect
        before = r.heard_before if r is not None else None
        said = (before.heard_written or before.heard_text) if before is not None else ""
        return " ".join(p for p in (said.strip(), reply.text.strip()) if p)

    def _begin_reflection(self, reply: Reply, at_s: float) -> None:
        r = reply.reflect
        assert r is not None
        r.rounds += 1
        r.job = self._job()
        utterance = self._utterance(reply)
        self._emit(Reflect(turn_id=self._turn_id, job=r.job, question=r.question,
                           utterance=utterance, round=r.rounds))
        self._cancel_timer(self._ctx.llm_timer)
        self._ctx.llm_timer = self._start_timer(Stage.LLM, self._policy.llm_first_token_timeout_s)
        self._emit(PublishReflection(turn_id=self._turn_id, kind="reflecting", round=r.rounds,
                                     text=utterance, at_s=at_s))

    def _on_reflected(self, event: Reflected) -> None:
        reply = self._ctx.reply
        r = reply.reflect if reply is not None else None
        if reply is None or r is None or event.job != r.job:
            self._ignore(event)
            return
        self._end_job(event.job)
        r.job = None
        self._cancel_timer(self._ctx.llm_timer)
        self._ctx.llm_timer = None
        _LOGGER.debug("turn %d: reflection %d: %r", self._turn_id, r.rounds, event)
        self._emit(PublishReflection(turn_id=self._turn_id, kind="verdict", round=r.rounds,
                                     verdict=event.verdict, guidance=event.guidance,
                                     checker=event.checker, at_s=event.at_s))
        verdict = Verdict(event.verdict) if event.verdict in set(Verdict) else Verdict.GOOD
        if verdict is Verdict.GOOD:
            self._end_reflection(reply, event.at_s)
        elif verdict is Verdict.REPAIR:
            self._repair(reply, r, event)
        elif event.correction:  # refine with the substance in hand
            self._say_next(reply, refine_text(event.correction), event.at_s, confessed=False)
        else:  # refine by the model, or working: a continuation, reflected when it ends
            self._continue_by_model(reply, event.guidance, event.at_s)

    def _end_reflection(self, reply: Reply, at_s: float) -> None:
        reply.llm_done = True
        self._maybe_finish(at_s)

    def _repair(self, reply: Reply, r: ReflectState, event: Reflected) -> None:
        """Cut the stream where the speaker is now, then repair, confessing only if heard."""
        said = self._utterance(reply)
        if r.sentence_task:
            # The claim is the whole sentence: it is not cut, so all of it will be heard.
            heard = said
        else:
            self._cut_stream(reply, r)
            before = r.heard_before
            heard = (before.heard_written or before.heard_text) if before is not None else ""
        confessing = confess(event.flagged_word, len(heard.split()), len(said.split()))
        if event.correction:
            text = repair_text(event.correction, heard, confessing=confessing)
            self._say_next(reply, text, event.at_s, confessed=confessing)
            return
        if confessing:
            self._emit(PublishReflection(turn_id=self._turn_id, kind="continuation",
                                         round=r.rounds, text=CONFESSION, confessed=True,
                                         at_s=event.at_s))
            reply.text = f"{reply.text} {CONFESSION}".strip()
            for clause in [*reply.chunker.push(f" {CONFESSION}"), *reply.chunker.flush()]:
                self._synthesize(reply, clause)
        self._continue_by_model(reply, event.guidance, event.at_s)

    def _cut_stream(self, reply: Reply, r: ReflectState) -> None:
        """Stop the playing stream and forget what was not heard; keep what was."""
        report = self._heard(interrupted=True)  # the words of the samples played so far
        if reply.stream_job is not None and reply.stream_job in self._live:
            self._emit(FlushPlayback(turn_id=self._turn_id, job=reply.stream_job,
                                     fade_ms=self._policy.fade_ms))
            self._end_job(reply.stream_job)
        synth = [job for job in reply.synth if job in self._live]
        if synth:
            self._emit(CancelTts(turn_id=self._turn_id, jobs=tuple(synth)))
            for job in synth:
                self._end_job(job)
        self._cancel_timer(self._ctx.tts_timer)
        self._ctx.tts_timer = None
        r.heard_before = report  # ``_heard`` joined the streams cut before
        reply.synth.clear()
        reply.ready.clear()
        reply.queued = []
        reply.queued_samples = reply.played_samples = 0
        reply.stream_job = None
        reply.playback_idle = True
        reply.filler_index = None
        reply.text = ""
        reply.chunker = self._chunker_factory()
        reply.next_play_index = self._ctx.next_chunk_index

    def _say_next(self, reply: Reply, text: str, at_s: float, *, confessed: bool) -> None:
        """Append ``text`` to the utterance and reflect on it (or end, past the cap)."""
        r = reply.reflect
        assert r is not None
        self._emit(PublishReflection(turn_id=self._turn_id, kind="continuation", round=r.rounds,
                                     text=text, confessed=confessed, at_s=at_s))
        reply.text = f"{reply.text} {text}".strip()
        for clause in [*reply.chunker.push(f" {text}"), *reply.chunker.flush()]:
            self._synthesize(reply, clause)
        if not self._run_ended(reply, at_s):
            self._end_reflection(reply, at_s)

    def _continue_by_model(self, reply: Reply, guidance: str, at_s: float) -> None:
        """Start a prose run that continues the utterance with ``guidance`` folded in."""
        r = reply.reflect
        assert r is not None
        job = reply.llm_job = self._job()
        reply.llm_first_output = False
        messages = continuation_messages(r.question, self._utterance(reply), guidance,
                                         sentence_task=r.sentence_task)
        self._emit(StartLlm(turn_id=self._turn_id, job=job, messages=messages, tools=False))
        self._ctx.llm_timer = self._start_timer(Stage.LLM, self._policy.llm_first_token_timeout_s)
        if reply.text:
            reply.text += " "
            reply.chunker.push(" ")
