"""The model reflector: a verdict on what was said, as JSON of a fixed shape.

Used only when no literal check applies (a question of fact, under reflection 'on'): the
app's ``LlamaLlm`` model (the same weights, not a second copy) judges the utterance,
greedily (temperature 0), in the shape of ``core.reflection.reflector_prompts.VERDICT_SCHEMA``::

    {"verdict": "repair", "guidance": "The capital of Norway is Oslo."}

The JSON scaffolding is put into the prompt (evaluated in one batch); the verdict is
decoded greedily over a token trie of the four allowed words (the constraint a grammar
over that enum imposes, built and checked once at construction); the guidance is greedy
free text up to its closing quote, at most ``MAX_TOKENS``. No GBNF: llama-cpp-python's
``response_format`` grammar took minutes per answer on two busy cores (it filters the
151k-token vocabulary at every step), and an invalid grammar would crash the process.
Only the verdict decides what is spoken; an answer without one counts as 'good': the
reflector never makes the assistant say something on a guess.

Runs on: the LLM worker thread (it shares the ``LlamaLlm``'s model and KV cache).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import LlmError, ModelError
from desktop_agent.core.reflection.reflector_prompts import reflector_messages
from desktop_agent.core.reflection.verdict import Judgement, Verdict

_LOGGER = logging.getLogger(__name__)
MAX_TOKENS: Final = 60
"""Cap on the constrained answer: '{"verdict": "repair", "guidance": "<one sentence>"}'."""
VERDICT_HEAD: Final = '{"verdict": "'
GUIDANCE_HEAD: Final = ', "guidance": "'
_VERDICT: Final = re.compile(r'"verdict"\s*:\s*"(good|refine|repair|working)"')


def parse_verdict(text: str) -> Judgement:
    """The judgement in the model's JSON; a truncated answer keeps its verdict, else 'good'."""
    try:
        data = json.loads(text)
        verdict = Verdict(str(data["verdict"]))
        guidance = str(data.get("guidance", "")).strip()
    except (ValueError, KeyError, TypeError):
        m = _VERDICT.search(text)
        if m is None:
            return Judgement(Verdict.GOOD, checker="model")
        verdict, guidance = Verdict(m.group(1)), ""
    if verdict is Verdict.GOOD:
        guidance = ""
    return Judgement(verdict, guidance, checker="model")


class LlamaVerdictJudge:
    """``core.reflection.VerdictJudge`` on the app's ``LlamaLlm``.

    Args:
        llm: The app's ``LlamaLlm`` (its loaded ``llama_cpp.Llama`` is used).
    """

    def __init__(self, llm: Any) -> None:
        self._owner = llm
        self._llm = llm._llm  # the loaded llama_cpp.Llama, shared (one copy in memory)
        self.last_raw: str | None = None
        """The model's last answer, as JSON (for tests and logs)."""
        self._head = self._tokens(VERDICT_HEAD)
        self._guidance_head = self._tokens(GUIDANCE_HEAD)
        self._trie = self._build_trie()

    def _tokens(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _build_trie(self) -> dict[int, Any]:
        """Token trie of the verdicts, each with its closing quote; every one must be sayable."""
        root: dict[int, Any] = {}
        for verdict in Verdict:
            node = root
            toks = self._tokens(verdict.value + '"')
            for tok in toks:
                node = node.setdefault(tok, {})
            if not toks or node:
                raise ModelError("llm_grammar_invalid",
                                 f"The verdicts are ambiguous for this tokenizer ({verdict}).")
            node[-1] = verdict.value
        return root

    def judge(self, question: str, utterance: str, cancel: CancelToken | None) -> Judgement:
        """The verdict on ``utterance`` as an answer to ``question``. Runs on: LLM thread."""
        self.last_raw = None
        if cancel is not None and cancel.cancelled:
            return Judgement(Verdict.GOOD, checker="model")
        payload = [{"role": m.role, "content": m.content}
                   for m in reflector_messages(question, utterance)]
        llm = self._llm
        try:
            prompt = str(self._owner._chat_formatter()(messages=payload).prompt)
            tokens = self._tokens_special(prompt) + self._head
            cached = self._owner._cached_prefix(tokens)
            llm.n_tokens = cached
            llm.eval(tokens[cached:])
            verdict = self._choose(cancel)
            if verdict is None:
                return Judgement(Verdict.GOOD, checker="model")
            guidance = ""
            if verdict != Verdict.GOOD.value:
                llm.eval(self._guidance_head)
                guidance = self._until_quote(cancel)
        except LlmError:
            raise
        except Exception as exc:
            raise LlmError("llm_failed", f"The reflector failed: {exc}.",
                           "Try again; if it repeats, set reflection to 'only checkable' "
                           "in Settings.") from exc
        self.last_raw = json.dumps({"verdict": verdict, "guidance": guidance})
        return parse_verdict(self.last_raw)

    def _tokens_special(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _logits(self) -> Any:
        import numpy as np

        llm = self._llm
        return np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))

    def _choose(self, cancel: CancelToken | None) -> str | None:
        """Greedy decoding along the verdict trie: the allowed token with the top logit."""
        node = self._trie
        while True:
            if cancel is not None and cancel.cancelled:
                return None
            if -1 in node and len(node) == 1:
                return str(node[-1])
            logits = self._logits()
            tok = max((t for t in node if t != -1), key=lambda t: float(logits[t]))
            node = node[tok]
            self._llm.eval([tok])

    def _until_quote(self, cancel: CancelToken | None) -> str:
        """Greedy free text up to the closing quote (or ``MAX_TOKENS``): the guidance."""
        llm = self._llm
        out = b""
        for _ in range(MAX_TOKENS):
            if cancel is not None and cancel.cancelled:
                break
            tok = int(self._logits().argmax())
            if tok == llm.token_eos():
                break
            piece = llm.detokenize([tok])
            if b'"' in piece:
                out += piece.split(b'"', 1)[0]
                break
            out += piece
            llm.eval([tok])
        return out.decode("utf-8", errors="ignore").strip()
