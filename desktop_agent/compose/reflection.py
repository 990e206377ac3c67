"""The model reflector and grammar writer for the app: built from the LLM worker's engine.

They run on the small local model: inside a ``CompositeLlm`` (a larger model speaks) that is
its decider, found as ``_inner`` like a model inside ``KnowledgeLlm``.
"""

from __future__ import annotations

from typing import Any

from desktop_agent.core.reflection.verdict import GrammarWriter, VerdictJudge

_WRAPPERS_KEPT = 4
"""How many engine wrappers (knowledge, guards) are looked through for the local model."""


def local_model(engine: Any) -> Any:
    """The ``LlamaLlm`` inside ``engine`` (looking through wrappers), or None (a server).

    Through a ``CompositeLlm`` this is its decider, the small model.
    """
    inner = engine
    for _ in range(_WRAPPERS_KEPT):
        if inner is None:
            return None
        if hasattr(inner, "_chat_formatter") and hasattr(inner, "_cached_prefix"):
            return inner
        inner = getattr(inner, "_inner", None)
    return None


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


def grammar_writer_for(engine: Any) -> GrammarWriter | None:
    """A ``LlamaGrammarWriter`` on the local model inside ``engine``, or None (a server:
    word problems are gated but not computed, and a broken word constraint is retried by a
    plain continuation).

    Runs on: the LLM worker thread (the first reflection), like the engine it uses.
    """
    local = local_model(engine)
    if local is None:
        return None
    from desktop_agent.adapters.llm.llm_grammar import LlamaGrammarWriter

    return LlamaGrammarWriter(local)
