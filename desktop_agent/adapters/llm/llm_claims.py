"""Claims proposed by the local LLM: it picks numbered source sentences, constrained.

The retrieved passages are split into sentences and ranked by the question's words
(``core.knowledge.rank_sentences``); the best ``CANDIDATES`` are numbered S1..Sk in the
prompt, and the model answers with which sentence answers the question and which one
states the condition that keeps it true::

    {"answer": "S2", "condition": "none"}

The model always picks an answer: whether it answers the question is the support gate's
and the relevance check's decision (``core.knowledge.plan_answer``), which refuse a pick
that does not address the question. Measured on the fixtures, the 0.5B said "none" for
table rows that answered the question exactly ("What does E4 mean?" with the E4 row as
S1), while the deterministic check refused every unanswerable question.

The output is constrained to that fixed shape with ids from the fixed set S1..S{CANDIDATES}
or "none": the JSON scaffolding is put into the prompt (evaluated in one batch, not
generated token by token), and each id is decoded greedily over a token trie of the allowed
ids. That is the same constraint a GBNF grammar over the fixed enum would impose, without a
grammar parser (an invalid GBNF crashes the process) and without filtering the 151k-token
vocabulary at every step (20-50% per token on the 0.5B); the trie is built and checked once,
at load, from the fixed id set.

A claim's text is the picked sentence itself, so a faithful pick passes the support gate
and anything else is refused there. The condition: the sentence next to the answer that
states one (``core.knowledge.lexical.condition_for``, a rule) when there is one, else the
model's pick when it passes the same test (``is_condition_of``: in the answer's passage,
a warning or limit on the same item); its other condition picks were noise on the
fixtures (the next row of a table, "the pressure rises a little while it heats").

Runs on: the LLM worker thread (it shares the ``LlamaLlm``'s model and KV cache).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import LlmError, ModelError
from desktop_agent.core.knowledge import Claim, Ranked, rank_sentences
from desktop_agent.core.knowledge.index import Passage
from desktop_agent.core.knowledge.lexical import condition_for, is_condition_of

_LOGGER = logging.getLogger(__name__)

CANDIDATES: Final = 4
"""Sentences shown to the model. On the fixture corpus the lexical ranking has the answer
in its top 3 for every answerable question (top 1: 32 of 34); each sentence costs ~20
tokens of prompt, ~0.2 s on two cores for the 0.5B."""
NONE: Final = "none"
SYSTEM: Final = (
    "You answer questions from the user's documents. You get numbered sentences from the "
    "documents and a question. Reply with JSON: \"answer\" is the id of the sentence that "
    "best answers the question; \"condition\" is the id of another sentence that says when "
    "the answer is not true (a warning or a limit), or \"none\".")
ANSWER_HEAD: Final = '{"answer": "'
CONDITION_HEAD: Final = ', "condition": "'


@dataclass(frozen=True, slots=True)
class Pick:
    """What the model chose: sentence ids ("S2") or "none"."""

    answer: str
    condition: str
    prompt_tokens: int
    """Tokens evaluated for the prompt (after the cached prefix)."""


class LlmClaimProposer:
    """``ClaimProposer`` on the app's ``LlamaLlm`` (its loaded model, not a second copy).

    Args:
        llm: The app's ``LlamaLlm`` (its ``llama_cpp.Llama`` and chat template are used).
        candidates: Sentences numbered in the prompt.
        rule_conditions: Propose the answer's neighbouring condition sentence when the
            model names none (see the module docstring).
    """

    def __init__(self, llm: Any, candidates: int = CANDIDATES,
                 rule_conditions: bool = True) -> None:
        self._owner = llm
        self._llm = llm._llm  # the loaded llama_cpp.Llama, shared (one copy in memory)
        self._k = candidates
        self.rule_conditions = rule_conditions
        self.last_pick: Pick | None = None
        """The model's last choice (for the benchmark and logs)."""
        self._ids = [f"S{i + 1}" for i in range(candidates)]
        self._answer_tries = {n: self._trie(self._ids[:n]) for n in range(1, candidates + 1)}
        self._condition_tries = {n: self._trie([*self._ids[:n], NONE])
                                 for n in range(1, candidates + 1)}
        self._head_answer = self._tokens(ANSWER_HEAD)
        self._head_condition = self._tokens(CONDITION_HEAD)

    def _tokens(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _trie(self, choices: Sequence[str]) -> dict[int, Any]:
        """Token trie of ``choices`` (each followed by its closing quote); checked: every
        choice must have its own path, else the model could not say it (ModelError)."""
        root: dict[int, Any] = {}
        for choice in choices:
            node = root
            toks = self._tokens(choice + '"')
            if not toks:
                raise ModelError("llm_grammar_invalid",
                                 f"The model's tokenizer cannot spell {choice!r}.")
            for tok in toks:
                node = node.setdefault(tok, {})
            if node:
                raise ModelError("llm_grammar_invalid",
                                 f"The claim ids are ambiguous for this tokenizer ({choice!r}).")
            node[-1] = choice
        return root

    def propose(self, question: str, passages: Sequence[Passage],
                cancel: CancelToken | None = None) -> Sequence[Claim]:
        """Claims for ``question``: the picked answer sentence and its condition, verbatim.

        Runs on: the LLM worker thread. Raises LlmError when llama.cpp fails.
        """
        ranked = rank_sentences(question, passages, limit=self._k)
        if not ranked:
            return []
        pick = self.pick(question, ranked, cancel)
        self.last_pick = pick
        if pick is None:
            return []
        answer = ranked[self._ids.index(pick.answer)]
        claims = [Claim("c1", answer.sentence.text, (answer.passage.passage_id,), "answer")]
        near = condition_for(answer) if self.rule_conditions else None
        if near is not None:
            claims.append(Claim("c2", near.text, (answer.passage.passage_id,), "condition"))
        elif pick.condition not in (NONE, pick.answer):
            cond = ranked[self._ids.index(pick.condition)]
            if is_condition_of(cond.sentence, answer) and \
                    cond.passage.passage_id == answer.passage.passage_id:
                claims.append(Claim("c2", cond.sentence.text, (cond.passage.passage_id,),
                                    "condition"))
        return claims

    def prompt(self, question: str, ranked: Sequence[Ranked]) -> str:
        """The rendered chat prompt, ending where the model's reply starts."""
        lines = "\n".join(f"S{i + 1}: {r.sentence.text}" for i, r in enumerate(ranked))
        user = f"Sentences:\n{lines}\nQuestion: {question.strip()}"
        payload = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
        rendered = self._owner._chat_formatter()(messages=payload)
        return str(rendered.prompt)

    def pick(self, question: str, ranked: Sequence[Ranked],
             cancel: CancelToken | None = None) -> Pick | None:
        """The model's constrained choice among ``ranked`` (None when cancelled)."""
        llm = self._llm
        try:
            tokens = list(llm.tokenize(self.prompt(question, ranked).encode("utf-8"),
                                       add_bos=False, special=True))
            tokens += self._head_answer
            cached = self._owner._cached_prefix(tokens)
            llm.n_tokens = cached
            llm.eval(tokens[cached:])
            answer = self._choose(self._answer_tries[len(ranked)], cancel)
            if answer is None:
                return None
            llm.eval(self._head_condition)
            condition = self._choose(self._condition_tries[len(ranked)], cancel)
            if condition is None:
                return None
        except LlmError:
            raise
        except Exception as exc:
            raise LlmError("llm_failed", f"The language model failed: {exc}.",
                           "Try again; if it repeats, run `desktop-agent doctor`.") from exc
        return Pick(answer, condition, len(tokens) - cached)

    def _choose(self, trie: dict[int, Any], cancel: CancelToken | None) -> str | None:
        """Greedy decoding along ``trie``: at each step the allowed token with the top logit."""
        import numpy as np

        llm = self._llm
        node = trie
        n_vocab = llm.n_vocab()
        while True:
            if cancel is not None and cancel.cancelled:
                return None
            if -1 in node and len(node) == 1:
                return str(node[-1])
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(n_vocab,))
            allowed = [t for t in node if t != -1]
            tok = max(allowed, key=lambda t: float(logits[t]))
            node = node[tok]
            llm.eval([tok])
