"""The LLM's worker: llama.cpp (or a server) on its own QThread.

It streams a reply's tokens as events (a tool call ends the run: the machine runs the tool
and starts a new run with the result), judges an utterance for the reflector, and evaluates
the start of the next prompt into the KV cache while idle. The other engines' workers and
their base, ``EngineWorker``, are in ``runtime/workers.py``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from PySide6.QtCore import Slot

from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import LlmDelta, LlmEngine, ToolSpec
from desktop_agent.core.reflection.reflector import reflect
from desktop_agent.core.reflection.verdict import GrammarWriter, VerdictJudge, Writers
from desktop_agent.core.tools.answer import guard_llm_run
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns.events import (
    LlmFinished,
    LlmStarted,
    LlmToken,
    LlmToolCall,
    Reflected,
)
from desktop_agent.core.turns.states import Stage
from desktop_agent.runtime.payloads import LlmJob, PrefillJob, ReflectJob
from desktop_agent.runtime.workers import EngineWorker

__all__ = ["LlmWorker", "WarmableLlm"]
_LOGGER = logging.getLogger(__name__)


class WarmableLlm(LlmEngine, Protocol):
    """An LLM that can evaluate the system prompt ahead of the first turn."""

    def warm(self, system_prompt: str, tools: Sequence[ToolSpec] = ()) -> None:
        """Evaluate ``system_prompt`` (and the tool list) now. Runs on: the LLM thread."""
        ...



class LlmWorker(EngineWorker[WarmableLlm]):
    """llama.cpp on its thread; streams tokens as events."""

    stage_name = "llm"

    def __init__(self, factory: Callable[[], WarmableLlm], tools: ToolRegistry,
                 warm_prompt: str, max_tokens: int = 200) -> None:
        """``warm_prompt`` is evaluated right after loading; replies stop at ``max_tokens``."""
        super().__init__(factory)
        self._tools = tools
        self._warm_prompt = warm_prompt
        self.max_tokens = max_tokens
        self.judge: VerdictJudge | None = None
        """The model reflector for questions no literal check understands (None: such
        replies stand as said)."""
        self.judge_factory: Callable[[Any], VerdictJudge | None] | None = None
        """Builds ``judge`` from the loaded engine at the first reflection (composition)."""
        self.writer: GrammarWriter | Writers | None = None
        """What writes under a grammar: one model, or ``Writers`` (word problems'
        computations by one model, sentences that keep a word constraint by another; None:
        word problems are never corrected)."""
        self.writer_factory: Callable[[Any], GrammarWriter | Writers | None] | None = None
        """Builds ``writer`` from the loaded engine at the first reflection (composition)."""

    def _after_load(self) -> None:
        """Evaluate the system prompt so the first turn reuses its KV cache."""
        if self.engine is not None:
            try:
                self.engine.warm(self._warm_prompt, self._tools.specs)
            except Exception as exc:  # only a lost optimisation
                _LOGGER.warning("turn=0 LLM warm-up failed: %s", exc)

    @Slot(object)
    def run(self, job: LlmJob) -> None:
        """Stream one reply. Runs on: the LLM thread."""
        emit = self.sig_event_reported.emit
        if job.cancel.cancelled:
            # Cancelled while queued (a speculative start the user's next words overtook, a
            # turn cut short): its prompt's prefill would hold the thread for seconds on a
            # busy machine, and the next turn's job waits behind it.
            return
        try:
            if self.engine is None:
                raise AgentError("llm_not_ready", "The language model is still loading.")
            emit(LlmStarted(turn_id=job.turn_id, at_s=time.monotonic(), job=job.job))
            specs = () if job.no_tools else self._tools.specs
            deltas: Iterator[LlmDelta] = guard_llm_run(job.messages, self.engine.stream_chat(
                job.messages, job.cancel, specs, self.max_tokens))
            for delta in deltas:
                if job.cancel.cancelled:
                    return
                self._emit_delta(job, delta)
                if delta.tool_call is not None:
                    break  # the machine runs the tool and starts a new run with the result
            if not job.cancel.cancelled:
                emit(LlmFinished(turn_id=job.turn_id, at_s=time.monotonic(), job=job.job))
        except Exception as exc:
            if not job.cancel.cancelled:
                self._fail(job.turn_id, job.job, Stage.LLM, exc)

    @Slot(object)
    def reflect(self, job: ReflectJob) -> None:
        """Judge one utterance: a literal check, else the model reflector (``judge``).

        Runs on: the LLM thread (a reflection queued behind a cancelled run waits for it).
        """
        try:
            if job.cancel.cancelled:
                return
            if self.judge is None and self.judge_factory is not None and self.engine is not None:
                self.judge = self.judge_factory(self.engine)
            if self.writer is None and self.writer_factory is not None \
                    and self.engine is not None:
                self.writer = self.writer_factory(self.engine)
            got = reflect(job.question, job.utterance, self.judge, job.cancel, self.writer)
            if not job.cancel.cancelled:
                self.sig_event_reported.emit(Reflected(
                    turn_id=job.turn_id, at_s=time.monotonic(), job=job.job,
                    verdict=got.verdict.value, guidance=got.guidance,
                    correction=got.correction, flagged_word=got.flagged_word,
                    checker=got.checker))
        except Exception as exc:
            if not job.cancel.cancelled:
                self._fail(job.turn_id, job.job, Stage.LLM, exc)

    @Slot(object)
    def prefill(self, job: PrefillJob) -> None:
        """Evaluate the start of the next prompt into the KV cache while idle.

        Queued when a turn ends (system prompt and history) and with each partial
        transcript (the user's words so far), so at the endpoint only the last words are
        left to evaluate. An engine without ``prefill`` skips it, and so does a job that a
        newer prefill or a run overtook while it was queued (``PrefillGate``). Runs on: the
        LLM thread (a job queued behind it waits for it: it is work the job needs).
        """
        prefill = getattr(self.engine, "prefill", None)
        if prefill is None or (job.gate is not None and not job.gate.current(job.number)):
            return  # a newer prompt's start, or a run, was queued after it
        try:
            prefill(job.messages, self._tools.specs, job.user_prefix)
        except Exception as exc:  # only a lost optimisation
            _LOGGER.warning("turn=0 LLM prefill failed: %s", exc)

    def _emit_delta(self, job: LlmJob, delta: LlmDelta) -> None:
        now = time.monotonic()
        if delta.tool_call is not None:
            self.sig_event_reported.emit(LlmToolCall(turn_id=job.turn_id, at_s=now,
                                                     job=job.job, call=delta.tool_call))
        elif delta.text:
            self.sig_event_reported.emit(LlmToken(turn_id=job.turn_id, at_s=now, job=job.job,
                                                  text=delta.text, unit=delta.unit))

