"""Greedy text under a GBNF grammar on the app's LlamaLlm: the reflector's constrained runs.

``core.reflection.verdict.GrammarWriter`` on the local model (the same weights, not a second
copy). The reflector uses it for a word problem's expression and program, written from the
question alone, and for a sentence that keeps a word constraint
(``core.reflection.grammars``). Greedy decoding under a grammar is the highest-scoring token
that the grammar accepts at each step. The tokens are tried best first, one at a time,
against llama.cpp's grammar sampler. The whole vocabulary (151k tokens for Qwen) is filtered
only when none of the best ``TOP_K`` is accepted. llama-cpp-python's own grammar path
filters it at every step, which measured 0.3-1.5 s per token on two cores.

Three rules make the runs short and stable:

- **The model may stop as soon as the grammar may.** When the grammar accepts the end of
  text and the model's own best token is one the grammar refuses (a full stop or "=" after
  "3.5 * 60"), the run ends there. Without this, the best accepted token is " *", and the
  run goes on as "3.5 * 60 * 60 * 60 ...".
- **Words are not glued together.** When the model would end a word where the grammar
  refuses (a new word after the sentence has its N words, a full stop after a word too
  short to grow), a token that ends the word another way is taken before one that
  continues it ("A cat is atypeofanimal."). When only continuing tokens are accepted, the
  current word is undone and its first token ruled out, so the model chooses that word
  again; after two tries, the word before it is undone too (at most ``MAX_BACKTRACKS``
  times a run). Past that, the sentence ends there with a full stop when the grammar
  allows it; otherwise the run gives no answer ('').
- **A fixed prompt prefix is evaluated once.** The reflector's prompts are a fixed block of
  instructions and examples, then the question. After the block is first evaluated, the
  KV cache state is kept (``KEPT_PREFIXES`` of them, about 3 MB each; restoring one takes
  milliseconds). Later runs restore the state and evaluate only the question, which keeps
  the examples' ~250 tokens (~2 s on two cores) off every reflection.
- **The speaker's cache is put back.** The state of the context before a run (the
  speaker's system prompt, history, question and opening) is copied and restored after
  it, so the next turn's prompt still finds its long prefix cached, as it does after a
  reply that no model checked. (A model verdict, ``adapters.llm.llm_verdict``, does not
  do this yet.)

A prompt gives one answer (greedy), so the last ``KEPT_ANSWERS`` answers are kept: the
reflection rounds of one reply ask the same question again. Each grammar is checked with
llama.cpp's parser before its first use. An invalid grammar (which would crash the process
in the sampler) is an ``LlmError`` with code ``llm_grammar_invalid``.

Runs on: the LLM worker thread (it shares the ``LlamaLlm``'s model and KV cache).
"""

from __future__ import annotations

import ctypes
import logging
import math
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import LlmError
from desktop_agent.core.ports import ChatMessage

_LOGGER = logging.getLogger(__name__)
MAX_TOKENS: Final = 64
"""Default cap on one constrained run (an expression needs ~10 tokens, a program ~30)."""
TOP_K: Final = 64
"""Best tokens tried against the grammar before the whole vocabulary is filtered."""
MAX_BACKTRACKS: Final = 8
"""Words chosen again in one run (see the module docstring)."""
KEPT_PREFIXES: Final = 4
"""Prompt prefixes whose KV cache state is kept (the reflector uses three fixed prompts)."""
KEPT_ANSWERS: Final = 32
"""Answers kept by (prompt, grammar): a reply's reflection rounds ask the same again."""
_MARKER: Final = "\u2063WRITE\u2063"


class LlamaGrammarWriter:
    """``GrammarWriter`` on the app's ``LlamaLlm``.

    Args:
        llm: The app's ``LlamaLlm`` (its loaded ``llama_cpp.Llama`` and chat template).
    """

    def __init__(self, llm: Any) -> None:
        self._owner = llm
        self._llm = llm._llm  # the loaded llama_cpp.Llama, shared (one copy in memory)
        self._checked: set[str] = set()
        self._prefixes: OrderedDict[tuple[int, ...], tuple[Any, int]] = OrderedDict()
        self._answers: OrderedDict[tuple[str, str], str] = OrderedDict()
        self.last_stats: dict[str, float] = {}
        """Figures of the last run that was not served from the kept answers: 'prompt_tokens'
        (evaluated now), 'tokens' (generated) and 'min_margin' (the smallest logit gap
        between the best two accepted tokens; a measure of doubt, for logs and tests)."""

    def write(self, messages: Sequence[ChatMessage], grammar: str,
              cancel: CancelToken | None = None, max_tokens: int = MAX_TOKENS) -> str | None:
        """The model's greedy reply to ``messages`` under ``grammar``.

        None: cancelled; '': no answer without gluing words together (module docstring).

        Runs on: the LLM worker thread. Raises LlmError when llama.cpp fails or rejects the
        grammar.
        """
        if cancel is not None and cancel.cancelled:
            return None
        try:
            prompt, prefix = self._render(messages)
            key = (prompt, grammar)
            if key in self._answers:
                self._answers.move_to_end(key)
                return self._answers[key]
            self._check(grammar)
            speaker = self._take_state()
            try:
                self._evaluate(prompt, prefix)
                text = self._greedy(grammar, cancel, max_tokens)
            finally:
                self._put_state(speaker)
        except LlmError:
            raise
        except Exception as exc:
            raise LlmError("llm_failed", f"The reflector's constrained run failed: {exc}.",
                           "Try again; if it repeats, set reflection to 'off' in "
                           "Settings.") from exc
        if text is None:
            return None
        self._answers[key] = text
        while len(self._answers) > KEPT_ANSWERS:
            self._answers.popitem(last=False)
        return text

    # --- the prompt -------------------------------------------------------------------------------

    def _render(self, messages: Sequence[ChatMessage]) -> tuple[str, str]:
        """The prompt, and its fixed prefix: everything before the last message's words."""
        def payload(items: Sequence[ChatMessage]) -> list[dict[str, str]]:
            return [{"role": m.role, "content": m.content} for m in items]

        formatter = self._owner._chat_formatter()
        prompt = str(formatter(messages=payload(messages)).prompt)
        last = messages[-1]
        marked = str(formatter(messages=payload(
            [*messages[:-1], ChatMessage(last.role, _MARKER)])).prompt)
        cut = marked.find(_MARKER)
        prefix = marked[:cut] if cut > 0 and prompt.startswith(marked[:cut]) else ""
        return prompt, prefix

    def _tokens(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _evaluate(self, prompt: str, prefix: str) -> None:
        """Evaluate ``prompt``, from a kept prefix state when there is one."""
        llm = self._llm
        tokens = self._tokens(prompt)
        head = tuple(self._tokens(prefix)) if prefix else ()
        if not head or tuple(tokens[:len(head)]) != head or len(head) >= len(tokens):
            head = ()  # the prefix does not tokenize on its own: evaluate it all
        cached = self._owner._cached_prefix(tokens)
        if head and cached < len(head):
            if head in self._prefixes:
                self._restore(head)
                cached = len(head)
                self._prefixes.move_to_end(head)
            else:
                llm.n_tokens = cached
                llm.eval(list(head[cached:]))
                self._keep(head)
                cached = len(head)
        llm.n_tokens = cached
        llm.eval(tokens[cached:])
        self.last_stats = {"prompt_tokens": float(len(tokens) - cached)}

    def _state(self) -> tuple[Any, int]:
        """The context's state now (KV cache of the evaluated tokens): a copy in memory."""
        import llama_cpp

        ctx = self._llm._ctx.ctx
        size = llama_cpp.llama_state_get_size(ctx)
        buf = (ctypes.c_uint8 * size)()
        return buf, llama_cpp.llama_state_get_data(ctx, buf, size)

    def _set_state(self, state: tuple[Any, int], tokens: Sequence[int]) -> None:
        import llama_cpp

        buf, used = state
        llama_cpp.llama_state_set_data(self._llm._ctx.ctx, buf, used)
        self._llm.n_tokens = len(tokens)
        self._llm.input_ids[: len(tokens)] = tokens

    def _take_state(self) -> tuple[tuple[Any, int], list[int]] | None:
        """The speaker's state, to put back after this run (None: nothing evaluated)."""
        if self._llm.n_tokens == 0:
            return None
        return self._state(), list(self._llm._input_ids)

    def _put_state(self, speaker: tuple[tuple[Any, int], list[int]] | None) -> None:
        if speaker is not None:
            self._set_state(*speaker)

    def _keep(self, head: tuple[int, ...]) -> None:
        self._prefixes[head] = self._state()
        while len(self._prefixes) > KEPT_PREFIXES:
            self._prefixes.popitem(last=False)

    def _restore(self, head: tuple[int, ...]) -> None:
        self._set_state(self._prefixes[head], head)

    # --- decoding ---------------------------------------------------------------------------------

    def _check(self, grammar: str) -> None:
        """llama.cpp's parser on ``grammar``, once (an invalid one crashes the sampler)."""
        if grammar in self._checked:
            return
        import llama_cpp

        sampler = llama_cpp.llama_sampler_init_grammar(
            self._llm._model.vocab, grammar.encode("utf-8"), b"root")
        if not sampler:
            raise LlmError("llm_grammar_invalid", "llama.cpp rejected a reflector grammar.",
                           "This is a bug in core/reflection/grammars.py: report it.")
        llama_cpp.llama_sampler_free(sampler)
        self._checked.add(grammar)

    def _greedy(self, grammar: str, cancel: CancelToken | None, max_tokens: int) -> str | None:
        import numpy as np

        llm = self._llm
        n_vocab = llm.n_vocab()
        eos = llm.token_eos()
        run = _Run(llm, grammar)
        margin = float("inf")
        backtracks = MAX_BACKTRACKS
        try:
            for _ in range(max_tokens * (MAX_BACKTRACKS + 1)):
                if len(run.chosen) >= max_tokens:
                    break
                if cancel is not None and cancel.cancelled:
                    return None
                logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(n_vocab,)).copy()
                top = np.argpartition(-logits, TOP_K)[:TOP_K]
                banned = run.banned.get(len(run.chosen), set())
                order = [int(t) for t in top[np.argsort(-logits[top])] if int(t) not in banned]
                best = order[0]
                refused = not run.accepts(best, float(logits[best]))
                if refused and run.accepts(eos, float(logits[eos])):
                    break  # the model would leave the grammar where the grammar may end
                picked = [t for t in order if run.accepts(t, float(logits[t]))]
                if refused and not _continues(llm.detokenize([best])) \
                        and run.text()[-1:].isalpha():
                    # The model would end this word (a new word, a full stop) where the
                    # grammar refuses: end it another way, or choose the words again,
                    # rather than glue the next one on ("A cat is atypeofanimal.").
                    apart = [t for t in picked if not _continues(llm.detokenize([t]))]
                    if not apart and backtracks > 0 and run.chosen:
                        backtracks -= 1
                        run.back_to_word_start()
                        continue
                    apart = apart or [t for t in run.enders() if run.accepts(t, 0.0)]
                    if not apart:
                        return ""  # only glued words are left: no answer worth saying
                    picked = apart
                picked = picked[:2]
                if not picked:
                    picked = [_full_pick(run.sampler, logits)]
                if len(picked) > 1:
                    margin = min(margin, float(logits[picked[0]] - logits[picked[1]]))
                if picked[0] < 0 or picked[0] == eos:
                    break
                run.take(picked[0])
        finally:
            run.close()
        self.last_stats.update(tokens=float(len(run.chosen)), min_margin=margin,
                               backtracks=float(MAX_BACKTRACKS - backtracks))
        return run.text().decode("utf-8", errors="ignore")


class _Run:
    """One greedy run under a grammar: the tokens taken, the sampler that follows them, and
    the tokens ruled out at each position by a backtrack."""

    def __init__(self, llm: Any, grammar: str) -> None:
        import llama_cpp

        self._llm = llm
        self._grammar = grammar.encode("utf-8")
        self._base = llm.n_tokens
        """KV cache position where the run starts (the prompt is evaluated up to here)."""
        self._last_prompt_token = int(llm.input_ids[self._base - 1])
        self.chosen: list[int] = []
        self.banned: dict[int, set[int]] = {}
        self.sampler = self._new_sampler()
        self._one: Any = (llama_cpp.llama_token_data * 1)()
        self._arr: Any = llama_cpp.llama_token_data_array(data=self._one, size=1, selected=-1,
                                                          sorted=False)

    def _new_sampler(self) -> Any:
        import llama_cpp

        sampler = llama_cpp.llama_sampler_init_grammar(self._llm._model.vocab, self._grammar,
                                                       b"root")
        if not sampler:
            raise LlmError("llm_grammar_invalid", "llama.cpp rejected a reflector grammar.")
        return sampler

    def accepts(self, tok: int, logit: float) -> bool:
        """The grammar accepts ``tok`` next."""
        import llama_cpp

        self._one[0].id, self._one[0].logit, self._one[0].p = tok, logit, 0.0
        self._arr.size, self._arr.selected = 1, -1
        llama_cpp.llama_sampler_apply(self.sampler, ctypes.byref(self._arr))
        return bool(math.isfinite(self._one[0].logit))

    def take(self, tok: int) -> None:
        """Take ``tok``: the grammar advances and the model evaluates it."""
        import llama_cpp

        llama_cpp.llama_sampler_accept(self.sampler, tok)
        self.chosen.append(tok)
        self._llm.eval([tok])

    def text(self) -> bytes:
        return b"".join(self._llm.detokenize([t]) for t in self.chosen)

    def enders(self) -> list[int]:
        """The tokens that end a sentence (".", "!"): taken when nothing else ends a word."""
        return [t for text in (".", "!") for t in self._llm.tokenize(
            text.encode(), add_bos=False, special=False)[:1]]

    def _word_start(self, before: int) -> int:
        """Index of the token that began the word holding token ``before``."""
        k = before
        while k > 0 and not _starts_word(self._llm.detokenize([self.chosen[k]])):
            k -= 1
        return k

    def back_to_word_start(self) -> None:
        """Undo the current word and rule out the token that began it; after two tries of
        the same word, undo the word before it too (the sentence went wrong earlier)."""
        import llama_cpp

        k = self._word_start(len(self.chosen) - 1)
        if len(self.banned.get(k, ())) >= 2 and k > 0:
            k = self._word_start(k - 1)
        self.banned = {i: b for i, b in self.banned.items() if i <= k}
        self.banned.setdefault(k, set()).add(self.chosen[k])
        self.chosen = self.chosen[:k]
        llama_cpp.llama_sampler_free(self.sampler)
        self.sampler = self._new_sampler()
        for tok in self.chosen:
            llama_cpp.llama_sampler_accept(self.sampler, tok)
        # The logits at position k: evaluate the token before it again.
        self._llm.n_tokens = self._base + k - 1
        self._llm.eval([self.chosen[-1] if self.chosen else self._last_prompt_token])

    def close(self) -> None:
        import llama_cpp

        llama_cpp.llama_sampler_free(self.sampler)


def _starts_word(piece: bytes) -> bool:
    """A token that starts a new word: a space, then a letter (" type")."""
    return piece[:1] == b" " and piece[1:2].isalpha()


def _continues(piece: bytes) -> bool:
    """A token that continues the word before it: a letter or an apostrophe first."""
    return piece[:1].isalpha() or piece[:1] == b"'"


def _full_pick(sampler: Any, logits: Any) -> int:
    """The best token the grammar accepts, filtering the whole vocabulary (-1: none)."""
    import llama_cpp
    import numpy as np

    n = len(logits)
    data = (llama_cpp.llama_token_data * n)()
    view = np.ctypeslib.as_array(data)  # a structured view: fill the array without a loop
    view["id"] = np.arange(n, dtype=np.int32)
    view["logit"] = logits
    view["p"] = 0.0
    arr = llama_cpp.llama_token_data_array(data=data, size=n, selected=-1, sorted=False)
    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(arr))
    kept = view["logit"][: arr.size]
    if not np.isfinite(kept).any():
        return -1
    return int(view["id"][int(np.argmax(kept))])
