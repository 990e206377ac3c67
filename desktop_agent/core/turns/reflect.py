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
   (``stopping.cancel_work`` cancels the Reflect job); the history keeps the whole heard
   utterance.

Each step is published (``PublishReflection``) for the conversation view and the bench.

``Reflection`` works below the LLM runs (reply.py): ``ReplyRuns`` arms it on each new reply,
asks it where the opening ends, and hands it each run that ended; it speaks through
``ReplyOutput`` and never calls back up.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from typing import Final

from desktop_agent.core.reflection.checks import SentenceCheck, find_check
from desktop_agent.core.reflection.gate import (
    CONFESSION,
    GIVE_UP,
    confess,
    refine_text,
    repair_text,
)
from desktop_agent.core.reflection.reflector import applies
from desktop_agent.core.reflection.reflector_prompts import continuation_messages
from desktop_agent.core.reflection.stated_numbers import without_first_item
from desktop_agent.core.reflection.verdict import Verdict
from desktop_agent.core.reflection.word_problems import find_word_problem
from desktop_agent.core.turns.base import TurnCore
from desktop_agent.core.turns.commands import CancelTts, FlushPlayback, Reflect, StartLlm
from desktop_agent.core.turns.context import ReflectState, Reply
from desktop_agent.core.turns.events import LlmToken, Reflected
from desktop_agent.core.turns.reply_output import ReplyOutput
from desktop_agent.core.turns.reports import PublishReflection
from desktop_agent.core.turns.states import JobId, Stage
from desktop_agent.core.turns.stopping import stop_llm_run

_LOGGER = logging.getLogger(__name__)
_SENTENCE_END: Final = re.compile(r"[.!?][\"')\]]*(?=\s)")
OPENING_SENTENCES: Final = 2
"""The opening never runs past this many sentences."""


class Reflection:
    """Verdict-gated speech of a reply: the opening, reflections, continuations.

    Runs on: GUI thread (one owner; no locks).
    """

    def __init__(self, core: TurnCore, output: ReplyOutput) -> None:
        """Work through ``core``; speak through ``output``."""
        self._core = core
        self._output = output

    # --- arming and the opening -------------------------------------------------------------

    def arm(self, reply: Reply) -> None:
        """Reflect on ``reply`` (a new attempt) if the policy applies to the user's question."""
        policy = self._core.policy
        question = self._core.ctx.user_text()
        if policy.reflection != "off" and applies(policy.reflection, question):
            check = find_check(question)
            reply.reflect = ReflectState(question=question,
                                         sentence_task=isinstance(check, SentenceCheck),
                                         word_problem=find_word_problem(question) is not None)

    def opening_head(self, reply: Reply | None, event: LlmToken) -> LlmToken | None:
        """The part of ``event`` that completes the opening, or None (not the opening's end).

        After the head is taken like any token, ``end_opening`` stops the run.
        """
        r = reply.reflect if reply is not None else None
        if (reply is None or r is None or not r.speaking or event.unit is not None
                or event.job != reply.llm_job):
            return None
        end = self._opening_end(reply.text + event.text)
        if end is None:
            return None
        return dataclasses.replace(event, text=event.text[: max(0, end - len(reply.text))])

    def end_opening(self, reply: Reply, at_s: float) -> None:
        """The opening is complete: stop the run, speak the rest of it, reflect on it."""
        r = reply.reflect
        assert r is not None
        r.speaking = False
        stop_llm_run(self._core, reply)  # the rest is the reflector's
        for clause in reply.chunker.flush():
            self._output.speak_model(reply, clause, at_s)
        if reply.claim_refused:
            return  # the refusal ended the reply
        self._begin_reflection(reply, at_s)

    def _opening_end(self, text: str) -> int | None:
        """Where the opening ends in ``text`` (an index after its last sentence), or None."""
        ends = [m for m in _SENTENCE_END.finditer(text)  # "these steps: 1." is no end
                if without_first_item(text[: m.end()]) == text[: m.end()]]
        for count, m in enumerate(ends, start=1):
            if len(text[: m.end()].split()) >= self._core.policy.opening_min_words \
                    or count >= OPENING_SENTENCES:
                return m.end()
        return None

    def skip_for_tool(self, reply: Reply | None, job: JobId) -> None:
        """The reply's run called a (read) tool: its own result is the external check.

        Not of a word problem: the computation the model handed the calculator is its own
        guess ("2.5 * 6" for the miles of a week; refused, as 6 is not the user's, so the
        model then answered "15 miles" in words), so what is said after the call is judged
        by the question's own computations as any other answer, the tool's own sentence
        too (``tool_sentence_said``).
        """
        if reply is not None and job == reply.llm_job and reply.reflect is not None \
                and not reply.reflect.word_problem:
            reply.reflect = None

    def tool_sentence_said(self, reply: Reply, at_s: float) -> None:
        """A tool's own sentence was spoken as the answer: judge it when ``reply`` reflects.

        Only a word problem's reply still reflects after a tool call (``skip_for_tool``):
        "3 times 24 is 72" is exact arithmetic on the user's numbers, but maybe not what
        was asked. The reply then ends with the verdict, as after an opening.
        """
        r = reply.reflect
        if r is None or r.rounds >= self._core.policy.max_reflections or not r.word_problem:
            return  # not a word problem ("what time is it"): the tool's sentence is the answer
        r.speaking = False
        reply.llm_done = False  # ``_end_reflection`` ends the reply
        self._begin_reflection(reply, at_s)

    def run_ended(self, reply: Reply, at_s: float) -> bool:
        """An LLM run of the reply ended: reflect on it (True) unless the loop is over."""
        r = reply.reflect
        if r is None:
            return False
        r.speaking = False
        if r.rounds >= self._core.policy.max_reflections:
            return False
        self._begin_reflection(reply, at_s)
        return True

    # --- reflecting -------------------------------------------------------------------------

    def _utterance(self, reply: Reply) -> str:
        r = reply.reflect
        before = r.heard_before if r is not None else None
        said = (before.heard_written or before.heard_text) if before is not None else ""
        return " ".join(p for p in (said.strip(), reply.text.strip()) if p)

    def _begin_reflection(self, reply: Reply, at_s: float) -> None:
        core, ctx = self._core, self._core.ctx
        r = reply.reflect
        assert r is not None
        r.rounds += 1
        r.job = core.job()
        utterance = self._utterance(reply)
        core.emit(Reflect(turn_id=core.turn_id, job=r.job, question=r.question,
                          utterance=utterance, round=r.rounds))
        core.cancel_timer(ctx.llm_timer)
        ctx.llm_timer = core.start_timer(Stage.LLM, core.policy.llm_first_token_timeout_s)
        core.emit(PublishReflection(turn_id=core.turn_id, kind="reflecting", round=r.rounds,
                                    text=utterance, at_s=at_s))

    def on_reflected(self, event: Reflected) -> None:
        """The reflector's verdict on the utterance so far gates the rest of the reply."""
        core = self._core
        reply = core.ctx.reply
        r = reply.reflect if reply is not None else None
        if reply is None or r is None or event.job != r.job:
            core.ignore(event)
            return
        core.end_job(event.job)
        r.job = None
        core.cancel_timer(core.ctx.llm_timer)
        core.ctx.llm_timer = None
        _LOGGER.debug("turn %d: reflection %d: %r", core.turn_id, r.rounds, event)
        core.emit(PublishReflection(turn_id=core.turn_id, kind="verdict", round=r.rounds,
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
        self._output.maybe_finish(at_s)

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
        if r.retried:  # set on sentence tasks only
            # The model's new attempt broke the constraint too: greedy, a third would be the
            # same sentence again ("No, that's not right. The rain poured down ..." twice).
            self._speak(reply, GIVE_UP, event.at_s, confessed=True)
            self._end_reflection(reply, event.at_s)
            return
        if confessing:
            self._speak(reply, CONFESSION, event.at_s, confessed=True)
        r.retried = r.sentence_task
        self._continue_by_model(reply, event.guidance, event.at_s)

    def _cut_stream(self, reply: Reply, r: ReflectState) -> None:
        """Stop the playing stream and forget what was not heard; keep what was."""
        core = self._core
        report = self._output.heard(interrupted=True)  # the words of the samples played so far
        if reply.stream_job is not None and core.is_live(reply.stream_job):
            core.emit(FlushPlayback(turn_id=core.turn_id, job=reply.stream_job,
                                    fade_ms=core.policy.fade_ms))
            core.end_job(reply.stream_job)
        synth = [job for job in reply.synth if core.is_live(job)]
        if synth:
            core.emit(CancelTts(turn_id=core.turn_id, jobs=tuple(synth)))
            for job in synth:
                core.end_job(job)
        core.cancel_timer(core.ctx.tts_timer)
        core.ctx.tts_timer = None
        r.heard_before = report  # ``heard`` joined the streams cut before
        reply.synth.clear()
        reply.ready.clear()
        reply.queued = []
        reply.queued_samples = reply.played_samples = 0
        reply.stream_job = None
        reply.playback_idle = True
        reply.filler_index = None
        reply.text = ""
        reply.chunker = core.chunker_factory()
        reply.next_play_index = core.ctx.next_chunk_index

    def _say_next(self, reply: Reply, text: str, at_s: float, *, confessed: bool) -> None:
        """Append ``text`` to the utterance and reflect on it (or end, past the cap)."""
        self._speak(reply, text, at_s, confessed=confessed)
        if not self.run_ended(reply, at_s):
            self._end_reflection(reply, at_s)

    def _speak(self, reply: Reply, text: str, at_s: float, *, confessed: bool) -> None:
        """Append ``text`` to the utterance and synthesize it (published as a continuation)."""
        r = reply.reflect
        assert r is not None
        self._core.emit(PublishReflection(turn_id=self._core.turn_id, kind="continuation",
                                          round=r.rounds, text=text, confessed=confessed,
                                          at_s=at_s))
        reply.text = f"{reply.text} {text}".strip()
        for clause in [*reply.chunker.push(f" {text}"), *reply.chunker.flush()]:
            self._output.synthesize(reply, clause)

    def _continue_by_model(self, reply: Reply, guidance: str, at_s: float) -> None:
        """Start a prose run that continues the utterance with ``guidance`` folded in."""
        core = self._core
        r = reply.reflect
        assert r is not None
        job = reply.llm_job = core.job()
        reply.llm_first_output = False
        messages = continuation_messages(r.question, self._utterance(reply), guidance,
                                         sentence_task=r.sentence_task)
        core.emit(StartLlm(turn_id=core.turn_id, job=job, messages=messages, tools=False))
        core.ctx.llm_timer = core.start_timer(Stage.LLM, core.policy.llm_first_token_timeout_s)
        if reply.text:
            reply.text += " "
            reply.chunker.push(" ")
