"""Two local models in their roles: the small one decides, the larger one speaks.

Measured on the held-out general-knowledge set (docs/notes/model-roles.md): the default
Qwen2.5-Coder-0.5B is right on 0.512 of plain questions of fact, the 1.5B on 0.829, with 40
and 14 confident false first sentences; but the 1.5B is not the better tool caller (under
the timer's grammar it wrote ``fmt{8 * 60}m``), and the decision protocol, the reflector's
grammars and the claim proposer were shaped on the 0.5B. So ``CompositeLlm``:

- the tool decision (``LlamaLlm.decide``: the offer, the grammar-constrained run) on the
  *decider*, the small model;
- a second opinion on the speaker when the decider's own run gave no call for the tools
  it was offered (it said "none", or its call was dropped): on requests no rule read
  whole, the 0.5B says "none" most of its misses (docs/benchmarks.md); the 1.5B then
  decides among the same candidates, under the same grammar and the same argument rules.
  A turn the rules decide, or one with nothing offered, never pays for it;
- every prose reply (a plain answer, the words after a tool result) on the *speaker*;
- the reflector, the grammar writer and the model proposer on the decider: they find it as
  ``_inner`` (``compose.reflection.local_model``), as they find a model inside
  ``KnowledgeLlm``.

Each model keeps its own KV cache, so both prompt prefixes stay warm: ``warm`` and
``prefill`` go to both. Both are ``LlamaLlm`` with the same explicit thread count; they
never run at once (one LLM worker thread), so the two cores are never oversubscribed.
Memory: both models stay loaded (469 + 1066 MiB of weights, measured figures in the note).

Runs on: the LLM worker thread, like the engines it holds.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.ports import ChatMessage, LlmDelta, ToolSpec
from desktop_agent.core.tools.decision import FROM_WORDS

if TYPE_CHECKING:
    from desktop_agent.adapters.llm.llm_llama import LlamaLlm
    from desktop_agent.core.tools.semantic import MeaningRouter


class CompositeLlm:
    """``core.ports.LlmEngine`` on two ``LlamaLlm``: tools decided by one, prose by the other.

    Args:
        decider: The small model: tool decisions, and the reflector's and proposer's model.
        speaker: The model that writes every prose reply.
    """

    def __init__(self, decider: LlamaLlm, speaker: LlamaLlm, second_opinion: bool = True
                 ) -> None:
        """Hold both loaded models (neither is copied); ``second_opinion``: ask the speaker
        when the decider's run gave no call for the tools it was offered."""
        self.decider = decider
        self.speaker = speaker
        self.second_opinion = second_opinion
        self._inner = decider  # where compose.reflection / the proposer look for a model
        self.last_model: Path | None = None
        """The GGUF that produced the last reply: the decider's for a tool call, the
        speaker's for prose or a second opinion's call (None before the first, or after a
        cancelled decision)."""
        self.asked_speaker = False
        """True when the last decision went on to the speaker's second opinion."""

    # -- the LlmEngine port -------------------------------------------------------------

    def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        cancel: CancelToken | None = None,
        tools: Sequence[ToolSpec] = (),
        max_tokens: int = 256,
    ) -> Iterator[LlmDelta]:
        """A tool call decided by the decider, else the speaker's prose.

        Runs on: the LLM worker thread.
        """
        self.last_model, self.asked_speaker = None, False
        call = self.decider.decide(messages, tools, cancel)
        if cancel is not None and cancel.cancelled:
            return
        decided_by = self.decider
        if call is None and self._said_none():
            self.asked_speaker, decided_by = True, self.speaker
            by_name = {t.name: t for t in tools}  # in the offer's order: nearest first
            call = self.speaker.decide_among(
                messages, [by_name[n] for n in self.decider.last_offer[0] if n in by_name],
                self.decider.last_offer[1], cancel)
            if cancel is not None and cancel.cancelled:
                return
        if call is not None:
            self.last_model = decided_by.model_path
            yield LlmDelta(tool_call=call)
            return
        self.last_model = self.speaker.model_path
        yield from self.speaker.prose(messages, cancel, max_tokens)

    # -- what the LLM worker and the history use besides the port ---------------------

    def _said_none(self) -> bool:
        """The decider's own run (not the words) gave no call for the tools it was offered:
        it said "none", or its call was dropped (an argument the user never said, a call
        cut short). Your own tools (MCP) offered get the second opinion too; an untrusted
        server's are confirmed before they run, as ever."""
        return (self.second_opinion and bool(self.decider.last_offer[0])
                and self.decider.last_decision not in (None, FROM_WORDS))

    def warm(self, system_prompt: str, tools: Sequence[ToolSpec] = ()) -> None:
        """Evaluate the system prompt into both models' caches (and check the tool grammars
        on the decider). Runs on: the LLM worker thread, right after loading."""
        self.decider.warm(system_prompt, tools)
        self.speaker.warm(system_prompt)
        if self.second_opinion:
            self.speaker.build_grammars(tools)  # checked at start-up, as the decider's

    def prefill(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] = (),
                user_prefix: str = "") -> int:
        """Evaluate the coming prompt's start in both models (``LlamaLlm.prefill``).

        The speaker first: every turn without a tool call needs it, and its prefill is the
        costlier one. Returns the tokens evaluated by both. Runs on: the LLM worker thread,
        while it is idle (the user is speaking).
        """
        done = self.speaker.prefill(messages, (), user_prefix)
        return done + self.decider.prefill(messages, tools, user_prefix)

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` as the speaker counts them (the longest prompts are its)."""
        return self.speaker.count_tokens(text)

    def build_grammars(self, tools: Sequence[ToolSpec]) -> None:
        """Build and check the tools' call grammars on the decider (``LlamaLlm``'s), and on
        the speaker when it gives second opinions."""
        self.decider.build_grammars(tools)
        if self.second_opinion:
            self.speaker.build_grammars(tools)

    @property
    def model_path(self) -> Path:
        """The speaker's GGUF: the model the user hears."""
        return self.speaker.model_path

    # -- the decider's record, as ``LlamaLlm`` offers it (benchmarks, tests) ------------

    @property
    def last_decision(self) -> str | None:
        """Raw text of the last constrained decision run, the second opinion's when there
        was one (None: there was none)."""
        return (self.speaker if self.asked_speaker else self.decider).last_decision

    @property
    def last_offer(self) -> tuple[tuple[str, ...], bool]:
        """The tools the decider's last run offered, and whether by meaning."""
        return self.decider.last_offer

    @property
    def use_words(self) -> bool:
        """Whether the decider takes arguments from the user's words (``LlamaLlm``'s)."""
        return self.decider.use_words

    @use_words.setter
    def use_words(self, value: bool) -> None:
        self.decider.use_words = self.speaker.use_words = value

    @property
    def meanings(self) -> MeaningRouter | None:
        """The decider's tools-by-meaning router (None: rules only)."""
        return self.decider.meanings

    @meanings.setter
    def meanings(self, value: MeaningRouter | None) -> None:
        self.decider.meanings = value
