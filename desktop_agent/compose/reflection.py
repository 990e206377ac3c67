"""The model reflector and grammar writer for the app: built from the LLM worker's engine.

The model reflector and the writer of constrained sentences run on the small local model:
inside a ``CompositeLlm`` (a larger model speaks) that is its decider, found as ``_inner``
like a model inside ``KnowledgeLlm``. Word problems' computations are written by the
speaking model (``computing_model``): they were right more often when the 1.5B wrote them
(docs/notes/model-roles.md, "The writer of computations").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from desktop_agent.core.reflection.verdict import GrammarWriter, VerdictJudge, Writers

_WRAPPERS_KEPT = 4
"""How many engine wrappers (knowledge, guards) are looked through for the local model."""


def local_model(engine: Any) -> Any:
    """The ``LlamaLlm`` inside ``engine`` (looking through wrappers), or None (a server).

    Through a ``CompositeLlm`` this is its decider, the small model.
    """
    return next((layer for layer in _layers(engine) if _is_local(layer)), None)


def verdict_judge_for(engine: Any) -> VerdictJudge | None:
    """A ``LlamaVerdictJudge`` on the local llama.cpp model inside ``engine``, or None.

    ``engine`` may be wrapped (``KnowledgeLlm`` keeps the model as ``_inner``); an engine
    without a local model (a server) gets no model judge: only the literal checks reflect.

    Runs on: the LLM worker thread (the first reflection), like the engine it uses.
    """
    local = local_model(engine)
    if local is None:
        return None
    from desktop_agent.adapters.llm.llm_verdict import LlamaVerdictJudge

    return LlamaVerdictJudge(local)


def computing_model(engine: Any) -> Any:
    """The ``LlamaLlm`` that writes word problems' computations, or None (a server).

    Inside a ``CompositeLlm`` this is its speaker (the larger model), else the local model.
    Chosen by measurement, in one session on the quiet machine: with the 1.5B computing,
    the blind verdict tuning set went from 0.700 to 0.850 final and the 30 word problems
    from 0.967 to 1.000, no false confession; a word problem's verdict came later on those
    sets (median 1.7 -> 2.6 s and 1.0 -> 1.4 s), while the opening already plays.
    Sentences under a word constraint stay with the small model: the 1.5B cut 3 of 9 short
    ("Coffee is a popular."), the 0.5B none (docs/notes/model-roles.md).
    """
    for layer in _layers(engine):
        speaker = getattr(layer, "speaker", None)
        if _is_local(speaker):
            return speaker
        if _is_local(layer):
            return layer
    return None


def _layers(engine: Any) -> Iterator[Any]:
    """``engine`` and the engines it wraps (``_inner``), at most ``_WRAPPERS_KEPT``."""
    inner = engine
    for _ in range(_WRAPPERS_KEPT):
        if inner is None:
            return
        yield inner
        inner = getattr(inner, "_inner", None)


def _is_local(engine: Any) -> bool:
    return hasattr(engine, "_chat_formatter") and hasattr(engine, "_cached_prefix")


def grammar_writer_for(engine: Any) -> GrammarWriter | Writers | None:
    """The grammar writers on the local models inside ``engine``, or None (a server: word
    problems are gated but not computed, and a broken word constraint is retried by a
    plain continuation).

    One ``LlamaGrammarWriter`` on the local model; beside a speaking model, ``Writers``:
    the computations by the speaker (``computing_model``), the sentences by the decider.

    Runs on: the LLM worker thread (the first reflection), like the engine it uses.
    """
    small = local_model(engine)
    if small is None:
        return None
    from desktop_agent.adapters.llm.llm_grammar import LlamaGrammarWriter

    sentences = LlamaGrammarWriter(small)
    large = computing_model(engine)
    if large is None or large is small:
        return sentences
    return Writers(computations=LlamaGrammarWriter(large), sentences=sentences)


def reflectors_for(engine: Any, reflection: str
                   ) -> tuple[VerdictJudge | None, GrammarWriter | Writers | None]:
    """The model judge and the grammar writers a ``reflection`` mode uses on ``engine``.

    The judge only for 'on' (every reply), the writers for 'on' and 'checkable'; neither
    for 'off'. For a headless loop (``ask``, ``bench verdicts``); the window's LLM worker
    builds the same from its factories on its own thread.
    """
    judge = verdict_judge_for(engine) if reflection == "on" else None
    writer = grammar_writer_for(engine) if reflection != "off" else None
    return judge, writer
