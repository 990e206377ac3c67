"""The tool decision on llama.cpp: the call grammar, checked, and greedy decoding under it.

``LlamaLlm`` (llm_llama.py) runs the decision of ``core.tools.decision`` as a short run
after the user's message, greedy under a GBNF grammar converted from the decision's JSON
schema (``call_grammar``: names as constants, plus a ``{"name": "none"}`` alternative).
Each grammar is checked with llama.cpp's own parser before use (``checked_call_grammar``):
an invalid one would crash the process.

Runs on: the LLM worker thread (it shares the ``LlamaLlm``'s model and KV cache).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import LlmError, ModelError
from desktop_agent.core.ports import ToolSpec
from desktop_agent.core.tools.decision import call_schema

DECISION_MAX_TOKENS = 80
"""Cap on the grammar-constrained call: enough for a reminder's words, short because
grammar sampling costs extra per token."""


def constrained_greedy(llm: Any, tokens: list[int], cached: int, gbnf: str,
                       cancel: CancelToken | None) -> Iterator[str]:
    """Greedy decoding under ``gbnf``, checking the grammar lazily.

    llama-cpp-python applies a grammar to the whole vocabulary (151k tokens for Qwen)
    before every token, which measured 0.3-1.5 s per token on two cores. The result
    of greedy decoding under a grammar is the highest-scoring token the grammar
    accepts, so here the tokens are tried best first, one at a time, and the full
    vocabulary is filtered only when none of the best few is accepted. ``llm`` is the
    ``llama_cpp.Llama``; its KV cache already holds the first ``cached`` of ``tokens``.
    """
    import ctypes

    import llama_cpp
    import numpy as np

    llm.n_tokens = cached
    llm.eval(tokens[cached:])
    sampler = llama_cpp.llama_sampler_init_grammar(
        llm._model.vocab, gbnf.encode("utf-8"), b"root")
    if not sampler:
        raise LlmError("llm_grammar_invalid", "llama.cpp rejected the call grammar.")
    one = (llama_cpp.llama_token_data * 1)()
    arr = llama_cpp.llama_token_data_array(data=one, size=1, selected=-1, sorted=False)
    eog = llama_cpp.llama_vocab_is_eog
    vocab = llm._model.vocab
    n_vocab = llm.n_vocab()
    try:
        for _ in range(DECISION_MAX_TOKENS):
            if cancel is not None and cancel.cancelled:
                return
            # Llama.eval no longer copies logits into llm.scores: read the context's.
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(n_vocab,)).copy()
            top = np.argpartition(-logits, 64)[:64]
            chosen = -1
            for tok in top[np.argsort(-logits[top])]:
                one[0].id, one[0].logit, one[0].p = int(tok), float(logits[tok]), 0.0
                arr.size, arr.selected = 1, -1
                llama_cpp.llama_sampler_apply(sampler, ctypes.byref(arr))
                if np.isfinite(one[0].logit):
                    chosen = int(tok)
                    break
            if chosen < 0:
                chosen = full_grammar_pick(sampler, logits)
            if chosen < 0 or eog(vocab, chosen):
                return
            llama_cpp.llama_sampler_accept(sampler, chosen)
            yield llm.detokenize([chosen]).decode("utf-8", errors="ignore")
            llm.eval([chosen])
    finally:
        llama_cpp.llama_sampler_free(sampler)


def full_grammar_pick(sampler: Any, logits: Any) -> int:
    """The best token the grammar accepts, filtering the whole vocabulary (slow path)."""
    import ctypes

    import llama_cpp
    import numpy as np

    n = len(logits)
    data = (llama_cpp.llama_token_data * n)()
    for i in range(n):
        data[i].id, data[i].logit, data[i].p = i, float(logits[i]), 0.0
    arr = llama_cpp.llama_token_data_array(data=data, size=n, selected=-1, sorted=False)
    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(arr))
    best, best_logit = -1, -np.inf
    for i in range(arr.size):
        if data[i].logit > best_logit:
            best, best_logit = int(data[i].id), data[i].logit
    return best


def checked_call_grammar(vocab: Any, candidates: tuple[ToolSpec, ...]) -> str:
    """The GBNF for a call to one of ``candidates`` or "none", checked by llama.cpp's parser
    on the model's ``vocab`` (an invalid grammar would crash the process in the sampler)."""
    import llama_cpp

    key = tuple(t.name for t in candidates)
    try:
        gbnf = call_grammar(candidates)
    except Exception as exc:  # llama-cpp-python's converter asserts on some schemas
        raise ModelError(
            "llm_grammar_invalid",
            f"No call grammar for {', '.join(key)}: {exc}.",
            "Fix the tool's argument schema in core/tools/catalog.py.") from exc
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
    if not sampler:
        raise ModelError(
            "llm_grammar_invalid",
            f"llama.cpp rejected the call grammar for {', '.join(key)}.",
            "A tool's argument schema cannot be turned into a grammar: fix the "
            "schema in core/tools/catalog.py.")
    llama_cpp.llama_sampler_free(sampler)
    return gbnf


def call_grammar(candidates: Sequence[ToolSpec]) -> str:
    """GBNF for one call to a tool in ``candidates`` or "none": the decision's JSON schema
    (``core.tools.decision.call_schema``) in llama.cpp's grammar dialect."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return str(json_schema_to_gbnf(json.dumps(call_schema(candidates))))
