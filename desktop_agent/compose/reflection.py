"""The model reflector for the app: built from the LLM worker's loaded engine."""

from __future__ import annotations

from typing import Any

from desktop_agent.core.reflection.verdict import VerdictJudge

_WRAPPERS_KEPT = 4
"""How many engine wrappers (knowledge, guards) are looked through for the local model."""


def verdict_judge_for(engine: Any) -> VerdictJudge | None:
    """A ``LlamaVerdictJudge`` on the local llama.cpp model inside ``engine``, or None.

    ``engine`` may be wrapped (``KnowledgeLlm`` keeps the model as ``_inner``); an engine
    without a local model (a server) gets no model judge: only the literal checks reflect.

    Runs on: the LLM worker thread (the first reflection), like the engine it uses.
    """
    inner = engine
    for _ in range(_WRAPPERS_KEPT):
        if inner is None:
            return None
        if hasattr(inner, "_chat_formatter") and hasattr(inner, "_cached_prefix"):
            from desktop_agent.adapters.llm.llm_verdict import LlamaVerdictJudge

            return LlamaVerdictJudge(inner)
        inner = getattr(inner, "_inner", None)
    return None
