"""The LLM engine seen through the user's documents: grounded answers as spoken units.

``KnowledgeLlm`` wraps the app's ``LlmEngine``. A question whose words are found in the
knowledge index is answered by the grounded pipeline (``core.knowledge.compose_answer``:
retrieve, the model proposes claims, the support gate checks them, the planner composes
spoken units; with the index's ``Meaning`` a question put in other words is understood, and
the calculator may work out one number from stated amounts) and streamed as
``LlmDelta(unit=...)``, one per unit; when nothing is supported the one unit says so
truthfully. Everything else goes to the wrapped engine unchanged: a request a tool rule
recognises (the time, a sum, a timer), chit-chat, and a question none of the documents
mention.

Follow-ups act on the last answer's units: "repeat" says them again, "say it differently"
rephrases the same supported claims, "which one?" names the referent, and a correction
("actually, the opened one") retrieves afresh for the corrected question. Every answer gets
a new generation, so units of an older question are stale wherever they still linger.

Runs on: the LLM worker thread (one call at a time; the last plan is that thread's state).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge import (
    AnswerPlan,
    ClaimProposer,
    Followup,
    Meaning,
    clarify_referent,
    classify_followup,
    compose_answer,
    corrected_question,
    repeat_units,
    rephrase,
)
from desktop_agent.core.knowledge.claim_text import topic_terms
from desktop_agent.core.knowledge.index import KnowledgeIndex, Passage
from desktop_agent.core.ports import ChatMessage, LlmDelta, LlmEngine, ToolSpec
from desktop_agent.core.tools.calc import evaluate
from desktop_agent.core.tools.router import candidate_tools, is_request

_LOGGER = logging.getLogger(__name__)

WORD_BUDGET: Final = 30
"""Words per spoken unit (the answer with its condition fits; detail is offered)."""
ABOUT_DOCUMENTS: Final = 0.5
"""Share of a question's topic words the best passages must contain for the question to be
about the documents: then the documents answer it (or say they cannot), even when a tool
rule or the chat model would also take it ("Until what time can we use the floodlights?")."""
COVERAGE_PASSAGES: Final = 3
TOOL_WORDS: Final = frozenset({"time", "date", "day", "today", "tonight", "tomorrow", "now",
                               "clock", "year", "month", "week", "timer", "remind", "note",
                               "minute", "hour", "second"})
"""Words that name what a tool does: they never make a question about the documents."""
_TOOL_STEMS: Final = frozenset(topic_terms(" ".join(sorted(TOOL_WORDS))))


def _corrected_in_place(question: str) -> str:
    """The question a correction in its own last sentence asks.

    "Which day is the black bin collected? Wait, the recycling one." (said before any answer
    played, so it joined the question) asks which day the recycling bin is collected.
    """
    parts = [p for p in re.split(r"(?<=[.?!])\s+", question) if p]
    if len(parts) < 2 or classify_followup(parts[-1]) is not Followup.CORRECTION:
        return question
    return corrected_question(" ".join(parts[:-1]), parts[-1])


def coverage(question: str, passages: Sequence[Passage]) -> float:
    """Share of ``question``'s topic words (tool words left out) found in ``passages``."""
    terms = {t for t in topic_terms(question) if t not in _TOOL_STEMS}
    if not terms:
        return 0.0
    found = set()
    for passage in passages:
        found.update(topic_terms(f"{passage.title} {passage.text}"))
    return len(terms & found) / len(terms)


class KnowledgeLlm:
    """An ``LlmEngine`` that answers questions about the user's documents from them.

    The wrapped engine's other methods (``warm``, ``prefill``, ``count_tokens``) pass
    through unchanged.
    """

    def __init__(self, inner: LlmEngine, index: KnowledgeIndex, proposer: ClaimProposer,
                 *, word_budget: int = WORD_BUDGET,
                 active: Callable[[], bool] = lambda: True) -> None:
        """Wrap ``inner``.

        Args:
            inner: The engine for everything that is not a document question.
            index: The knowledge index (searched on this thread).
            proposer: Proposes claims from passages (the local model, grammar-constrained).
            word_budget: Words per spoken unit.
            active: False while the user has no knowledge folders: every turn goes to
                ``inner`` (read at each turn, so a folder added in Settings counts at once).
        """
        self._active = active
        self._inner = inner
        self._index = index
        self._proposer = proposer
        self._budget = word_budget
        self._generation = 0
        self._last: AnswerPlan | None = None

    def __getattr__(self, name: str) -> Any:
        """The wrapped engine's attribute (only called for names this class lacks)."""
        return getattr(self._inner, name)

    @property
    def last_plan(self) -> AnswerPlan | None:
        """The last grounded answer (None before the first). Runs on: the LLM thread."""
        return self._last

    def stream_chat(self, messages: Sequence[ChatMessage], cancel: CancelToken | None = None,
                    tools: Sequence[ToolSpec] = (), max_tokens: int = 256) -> Iterator[LlmDelta]:
        """A grounded answer's units, or the wrapped engine's stream."""
        plan = self._grounded(messages, tools, cancel)
        if plan is None:
            yield from self._inner.stream_chat(messages, cancel, tools, max_tokens)
            return
        self._last = plan
        for unit in plan.units:
            if cancel is not None and cancel.cancelled:
                return
            yield LlmDelta(text=unit.text, unit=unit)

    def _grounded(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec],
                  cancel: CancelToken | None) -> AnswerPlan | None:
        """The plan for this turn, or None when the wrapped engine should answer."""
        if not self._active() or not messages or messages[-1].role != "user":
            return None  # a tool result's continuation: the engine that called it goes on
        question = messages[-1].content.strip()
        if not question:
            return None
        question = _corrected_in_place(question)
        last = self._last
        if last is not None:
            kind = classify_followup(question)
            if kind is Followup.REPEAT:
                return repeat_units(last, generation=self._next())
            if kind is Followup.REPHRASE:
                return rephrase(last, generation=self._next())
            if kind is Followup.WHICH:
                return clarify_referent(last, generation=self._next())
            if kind is Followup.CORRECTION:
                return self._answer(corrected_question(last.question, question), cancel)
        passages = self._index.search(question, limit=COVERAGE_PASSAGES)
        if not passages:
            return None  # no document mentions it: the model (or a tool) answers
        covered = coverage(question, passages)
        if candidate_tools(question, tools) and covered < ABOUT_DOCUMENTS:
            return None  # "what time is it": a tool's request, not the documents' subject
        plan = self._answer(question, cancel)
        if plan.limitation and covered < ABOUT_DOCUMENTS and not is_request(question):
            return None  # a remark that merely shares a word with a document
        if plan.limitation and covered < ABOUT_DOCUMENTS and candidate_tools(question, tools):
            return None
        return plan

    def _answer(self, question: str, cancel: CancelToken | None) -> AnswerPlan:
        # An index with meaning search lends its Meaning to the gate (an optional attribute:
        # a plain KnowledgeIndex has none, and then the gate matches words only).
        meaning = getattr(self._index, "meaning", None)
        plan = compose_answer(question, self._index, self._proposer, generation=self._next(),
                              word_budget=self._budget, cancel=cancel,
                              meaning=meaning if isinstance(meaning, Meaning) else None,
                              calculate=evaluate)
        _LOGGER.info("grounded answer gen=%d: %d unit(s), %d claim(s) refused, limitation=%s",
                     plan.generation, len(plan.units), len(plan.rejected), plan.limitation)
        return plan

    def _next(self) -> int:
        self._generation += 1
        return self._generation
