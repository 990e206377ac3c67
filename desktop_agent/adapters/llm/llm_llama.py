"""Local LLM with llama-cpp-python: streaming chat with the GGUF's own chat template.

Prefix reuse: one ``Llama`` instance keeps its KV cache between calls, and llama.cpp
re-evaluates only the tokens after the longest common prefix of the previous prompt.
Keeping the system prompt and tool list byte-identical across turns makes that prefix
long, so the first token of turn N+1 costs only the new user words. ``prefill`` goes one
step further: while the user is still speaking, it evaluates the system prompt, the tools
and the whole history up to the header of the next user message, so at the endpoint only
the user's own words are left to evaluate.

Tool calls: the tool list is never rendered into the prompt (that would change the
prefix, and a 0.5B model shown tools calls them for anything, e.g. the time for
"eight of spades"). The decision protocol is ``core.tools.decision`` (shared with the
server backend): the router's candidates for the newest user message (or, when its rules
are silent and a ``MeaningRouter`` was given, the tools nearest by meaning), a call decided
from the user's words when they spell it out, else a short decision run appended after the
user's message. What is llama.cpp's here: that run, greedy under a GBNF grammar converted
from the decision's JSON schema (``llm_call_grammar``: names as constants, plus a
``{"name": "none"}`` alternative). "none", or no candidates at all, means a plain prose
run. Grammars are checked with llama.cpp's own parser before use (an invalid one would
crash the process): the catalog's tools' at load, so a bad schema fails start-up loudly.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from desktop_agent.adapters.llm.cpu_features import require_llm_cpu
from desktop_agent.adapters.llm.llm_call_grammar import checked_call_grammar, constrained_greedy
from desktop_agent.adapters.llm.llm_messages import chat_payload
from desktop_agent.adapters.offline import import_or_hint
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import LlmError, ModelError
from desktop_agent.core.ports import ChatMessage, LlmDelta, ToolCall, ToolSpec
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.decision import (
    FROM_WORDS,
    decision_note,
    named_tool,
    offer_tools,
    plan_decision,
)
from desktop_agent.core.tools.semantic import MeaningRouter

_LOGGER = logging.getLogger(__name__)
OPENING_WORDS = 3
"""Words of a reply after which generation gives a core to Piper: the first clause (the
runtime's chunker releases it after at most three words) is then being synthesised, and
Piper on a core of its own takes ~100 ms for it instead of ~240 ms beside two llama.cpp
threads; the rest of the reply still comes faster than it is spoken."""


FLASH_ATTENTION = True
"""Attention without the full score matrix. Without it, the scores of the longest prompt
batch against the longest context seen stay resident for good (the 0.5B's anonymous memory
rose from 166 to 311 MiB between a 200- and a 3800-token context; with it to 190). Measured
paired on this machine: no slower (docs/notes/soak.md); one of 137 tool decisions changed.
"""
MICRO_BATCH = 128
"""Prompt tokens per llama.cpp micro-batch (``n_ubatch``; the default is 512). The compute
buffer is sized for a whole micro-batch but its pages become resident only when a prompt
that long is first evaluated at once (a prompt cache miss after a barge-in, say), and then
stay: the soak's one step of ~95 MiB. Measured on this machine (anonymous RSS after a
700-token prompt from scratch, over the load figure): 0.5B +36 MiB at 512, +16 at 256, +6 at
128; 1.5B +65, +29, +12. Prompt evaluation, paired and alternated: 128 is 1-4 % slower than
512 (100-700 tokens), 256 the same (docs/notes/soak.md)."""


class LlamaLlm:
    """llama-cpp-python behind core.ports.LlmEngine.

    Args:
        model_path: A chat GGUF file (its embedded chat template is used).
        n_threads: Threads for generation and prompt processing (explicit: two cores).
            Once a reply's opening words are out, generation drops to ``n_threads - 1``
            so Piper, synthesising that opening, has a core of its own (see
            ``OPENING_WORDS``); prompt processing keeps them all.
        n_ctx: Context window in tokens.
        temperature: Sampling temperature; low keeps spoken answers on point.
        meanings: Offers tools by meaning when the router's rules offer none
            (``core.tools.semantic``); None: the rules alone (no embedding model).
    """

    def __init__(
        self,
        model_path: Path,
        n_threads: int = 2,
        n_ctx: int = 4096,
        temperature: float = 0.2,
        seed: int = 7,
        *,
        meanings: MeaningRouter | None = None,
    ) -> None:
        """Load the GGUF. Sampling is re-seeded per call, so a prompt gives one answer."""
        require_llm_cpu()  # before the import: a CPU without AVX2 would die with SIGILL
        llama_cpp = import_or_hint("llama_cpp", "llama-cpp-python==0.3.36")
        self.model_path = Path(model_path)
        self.temperature = temperature
        self.seed = seed
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(self.model_path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                seed=seed,
                flash_attn=FLASH_ATTENTION,
                n_ubatch=MICRO_BATCH,
                verbose=False,
            )
        except Exception as exc:  # llama.cpp raises ValueError for unreadable files
            raise ModelError(
                "llm_load_failed",
                f"llama.cpp could not load {self.model_path}: {exc}.",
                "Check that the file is a complete chat GGUF (run `desktop-agent doctor`), "
                "or choose another LLM in Settings.",
            ) from exc
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self._formatter: Any = None
        self.prefilled_tokens = 0
        """Tokens evaluated by the last ``prefill`` (0: the prefix was already cached)."""
        self._grammars: dict[tuple[str, ...], str] = {}
        self.use_words = True
        """Take a tool's arguments from the user's words when they spell them out
        (``core.tools.args``); False: the model's own grammar-constrained calls only (the
        benchmark's ``--llm-only``)."""
        self.last_decision: str | None = None
        """Raw text of the last constrained decision run (None: there was none)."""
        self.meanings = meanings
        """Tools by meaning when the rules offer none (None: rules only)."""
        self.last_offer: tuple[tuple[str, ...], bool] = ((), False)
        """The tools the last run offered, and whether by meaning (not by a rule)."""
        self.build_grammars(BUILTIN.specs)

    def warm(self, system_prompt: str, tools: Sequence[ToolSpec] = ()) -> None:
        """Evaluate the system prompt (and tool list) now, so the first turn reuses it.

        Runs on: the LLM worker thread, right after loading.
        """
        self.build_grammars(tools)
        for _ in self.stream_chat([ChatMessage("system", system_prompt),
                                   ChatMessage("user", "Hi")], tools=tools, max_tokens=1):
            pass

    def build_grammars(self, tools: Sequence[ToolSpec]) -> None:
        """Build and check the call grammar of each tool alone and of all together.

        Raises ModelError (start-up, loudly) if llama.cpp rejects one: grammars for other
        candidate sets are composed from the same per-tool rules and checked too.
        """
        for spec in tools:
            self._grammar_for((spec,))
        if tools:
            self._grammar_for(tuple(tools))

    def prefill(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] = (),
                user_prefix: str = "") -> int:
        """Evaluate the prompt that ``messages`` + a coming user message will start with.

        The prompt is rendered exactly as ``stream_chat`` renders it (same template, same
        tool list), with a placeholder user message that starts with ``user_prefix`` (a
        partial transcript of what the user is saying); everything before the placeholder
        is evaluated into the KV cache, reusing what is already there. The next
        ``stream_chat`` whose prompt starts the same way then evaluates only the rest of
        the user's words. Returns the number of tokens evaluated now.

        Runs on: the LLM worker thread, while it is idle (the user is speaking).
        """
        marker = "\u2063PREFILL\u2063"
        payload = chat_payload([*messages, ChatMessage("user", user_prefix.strip() + marker)])
        try:
            rendered = self._chat_formatter()(messages=payload)
        except Exception as exc:  # only a lost optimisation: the turn evaluates it all
            _LOGGER.warning("turn=0 prefill not possible: %s", exc)
            return 0
        text = rendered.prompt
        cut = text.rfind(marker)
        if cut <= 0:
            return 0
        llm = self._llm
        tokens = llm.tokenize(text[:cut].encode("utf-8"),
                              add_bos=not rendered.added_special, special=True)
        cached = self._cached_prefix(tokens)
        todo = tokens[cached:]
        if len(todo) > 1:
            llm.n_tokens = cached
            llm.eval(todo)
            self.prefilled_tokens = len(todo)
        else:
            self.prefilled_tokens = 0
        return self.prefilled_tokens

    def _cached_prefix(self, tokens: Sequence[int]) -> int:
        """How many leading ``tokens`` the KV cache already holds, keeping one back (a
        prompt that ends exactly there must still be decoded to give logits)."""
        cached = 0
        for a, b in zip(self._llm._input_ids, tokens, strict=False):
            if a != b:
                break
            cached += 1
        return min(cached, len(tokens) - 1)

    def _chat_formatter(self) -> Any:
        """The GGUF's chat template as llama-cpp-python's own handler renders it."""
        if self._formatter is None:
            from llama_cpp import llama_chat_format

            llm = self._llm
            eos_id, bos_id = llm.token_eos(), llm.token_bos()
            eos = llm._model.token_get_text(eos_id) if eos_id != -1 else ""
            bos = llm._model.token_get_text(bos_id) if bos_id != -1 else ""
            self._formatter = llama_chat_format.Jinja2ChatFormatter(
                template=llm.metadata["tokenizer.chat_template"], eos_token=eos,
                bos_token=bos, stop_token_ids=[eos_id])
        return self._formatter

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` with this model's tokenizer (for history trimming)."""
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        cancel: CancelToken | None = None,
        tools: Sequence[ToolSpec] = (),
        max_tokens: int = 256,
    ) -> Iterator[LlmDelta]:
        """Stream the reply: one LlmDelta(tool_call=...) or speakable text. Runs on: the LLM
        worker thread.

        Only the tools ``core.tools.decision.offer_tools`` finds for the newest user message
        are offered, through a grammar-constrained decision run; a run that answers a tool
        result (or any message that is not the user's) never calls a tool.
        """
        call = self.decide(messages, tools, cancel)
        if cancel is not None and cancel.cancelled:
            return
        if call is not None:
            yield LlmDelta(tool_call=call)
            return
        yield from self.prose(messages, cancel, max_tokens)

    def decide(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] = (),
               cancel: CancelToken | None = None) -> ToolCall | None:
        """The tool call ``messages`` ask for, or None (then the reply is prose).

        The first half of ``stream_chat``: the offer, then (with candidates) the decision
        run. ``llm_composite.CompositeLlm`` calls it on the small model alone.

        Runs on: the LLM worker thread.
        """
        self.last_decision = None
        offer = offer_tools(messages, tools, self.meanings)
        candidates, by_meaning = offer.tools, offer.by_meaning
        self.last_offer = (tuple(t.name for t in candidates), by_meaning)
        if not candidates:
            return None
        return self._decide(messages, candidates, cancel, by_meaning)

    def decide_among(self, messages: Sequence[ChatMessage], candidates: Sequence[ToolSpec],
                     by_meaning: bool, cancel: CancelToken | None = None) -> ToolCall | None:
        """The decision run over ``candidates`` another model was offered (its offer is
        not repeated): ``CompositeLlm``'s second opinion. Runs on: the LLM worker thread."""
        self.last_decision = None
        self.last_offer = (tuple(t.name for t in candidates), by_meaning)
        if not candidates:
            return None
        return self._decide(messages, candidates, cancel, by_meaning)

    def prose(self, messages: Sequence[ChatMessage], cancel: CancelToken | None = None,
              max_tokens: int = 256) -> Iterator[LlmDelta]:
        """Stream a prose reply to ``messages`` (never a tool call): ``stream_chat``'s second
        half. Runs on: the LLM worker thread."""
        payload = chat_payload(messages)
        words = 0
        stream = None
        try:
            stream = self._llm.create_chat_completion(
                payload, stream=True, max_tokens=max_tokens,
                temperature=self.temperature, seed=self.seed,
            )
            for chunk in stream:
                if cancel is not None and cancel.cancelled:
                    break
                piece = chunk["choices"][0]["delta"].get("content")
                if piece:
                    if words < OPENING_WORDS:
                        words += len(piece.split())
                        if words >= OPENING_WORDS:
                            self._generation_threads(self.n_threads - 1)
                    yield LlmDelta(text=piece)
        except LlmError:
            raise
        except Exception as exc:
            raise LlmError("llm_failed", f"The language model failed: {exc}.",
                           "Try again; if it repeats, run `desktop-agent doctor`.") from exc
        finally:
            if stream is not None:
                stream.close()  # a reply cut short: the generation ends here, not at GC
            _release_sampler(self._llm)
            if words >= OPENING_WORDS:
                self._generation_threads(self.n_threads)

    def _decide(self, messages: Sequence[ChatMessage], candidates: Sequence[ToolSpec],
                cancel: CancelToken | None, by_meaning: bool = False) -> ToolCall | None:
        """The grammar-constrained decision: a call to one of ``candidates``, or None.

        The tool note follows the user's message, so the prompt up to and including the
        user's words is the prose run's prompt too (the KV cache serves both).
        """
        gbnf = self._grammar_for(tuple(candidates))
        decision = plan_decision(messages[-1].content, candidates, use_words=self.use_words,
                                 by_meaning=by_meaning)
        if decision.call is not None:
            self.last_decision = FROM_WORDS
            return decision.call
        payload = chat_payload([*messages, ChatMessage("system", decision_note(candidates))])
        stop = decision.complete_after
        try:
            rendered = self._chat_formatter()(messages=payload)
            tokens = self._llm.tokenize(rendered.prompt.encode("utf-8"),
                                        add_bos=not rendered.added_special, special=True)
            text = ""
            cached = self._cached_prefix(tokens)
            for piece in constrained_greedy(self._llm, tokens, cached, gbnf, cancel):
                text += piece
                if named_tool(text) in stop:
                    break  # the rest is fixed by the grammar: not worth generating
        except Exception as exc:
            raise LlmError("llm_failed", f"The language model failed: {exc}.",
                           "Try again; if it repeats, run `desktop-agent doctor`.") from exc
        if cancel is not None and cancel.cancelled:
            return None
        self.last_decision = text
        return decision.read(text)

    def _grammar_for(self, candidates: tuple[ToolSpec, ...]) -> str:
        """The checked GBNF for a call to one of ``candidates`` or "none" (cached)."""
        key = tuple(t.name for t in candidates)
        grammar = self._grammars.get(key)
        if grammar is None:
            grammar = self._grammars[key] = checked_call_grammar(self._llm._model.vocab,
                                                                 candidates)
        return grammar

    def _generation_threads(self, n: int) -> None:
        """Use ``n`` threads for the next generated tokens (prompt processing keeps all)."""
        if n < 1 or self.n_threads < 2:
            return
        try:
            from llama_cpp import llama_set_n_threads

            llama_set_n_threads(self._llm._ctx.ctx, n, self.n_threads)
        except Exception as exc:  # only a lost optimisation
            _LOGGER.debug("turn=0 cannot set llama.cpp threads: %s", exc)


def _release_sampler(llm: Any) -> None:
    """Free the sampler chain of the generation that has just ended, now.

    llama-cpp-python builds a new chain for every generation, with a buffer for the whole
    vocabulary (1.7 MiB for Qwen2.5's 151,936 tokens), and the old chain is freed only when
    Python's cycle collector reaches it (its closer refers back to it). In the app, whose
    objects are many and long-lived, that comes seldom: the soak's memory crept by about a
    chain a reply (docs/notes/soak.md).
    """
    sampler = getattr(llm, "_sampler", None)
    if sampler is not None:
        sampler.close()
        llm._sampler = None
