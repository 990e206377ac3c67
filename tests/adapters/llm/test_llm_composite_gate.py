"""When ``CompositeLlm`` asks the speaking model for a second opinion, without models.

The real models' behaviour is tests/adapters/llm/test_llm_composite_real.py; here stand-ins
with scripted decisions show when the second opinion is asked, which candidates it gets
(in the offer's order) and what a cancel does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from desktop_agent.adapters.llm.llm_composite import CompositeLlm
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.ports import ChatMessage, LlmDelta, ToolCall, ToolSpec
from desktop_agent.core.tools.decision import FROM_WORDS
from desktop_agent.core.tools.specs import BUILTIN_SPECS


class Model:
    """A stand-in ``LlamaLlm``: ``decide`` gives ``call`` after ``decision`` on ``offer``."""

    def __init__(self, name: str, offer: tuple[str, ...] = (), decision: str | None = None,
                 call: ToolCall | None = None, cancel: CancelToken | None = None) -> None:
        self.model_path = Path(name)
        self.offer, self.decision, self.call, self.cancel = offer, decision, call, cancel
        self.last_offer: tuple[tuple[str, ...], bool] = ((), False)
        self.last_decision: str | None = None
        self.asked: list[tuple[str, ...]] = []
        self.use_words = True

    def decide(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec],
               cancel: CancelToken | None = None) -> ToolCall | None:
        self.last_offer, self.last_decision = (self.offer, True), self.decision
        if self.cancel is not None:
            self.cancel.cancel()
        return self.call

    def decide_among(self, messages: Sequence[ChatMessage], candidates: Sequence[ToolSpec],
                     by_meaning: bool, cancel: CancelToken | None = None) -> ToolCall | None:
        self.asked.append(tuple(t.name for t in candidates))
        self.last_decision = self.decision
        return self.call

    def prose(self, messages: Sequence[ChatMessage], cancel: CancelToken | None = None,
              max_tokens: int = 256) -> Iterator[LlmDelta]:
        yield LlmDelta(text="Sure.")


def _run(llm: CompositeLlm, cancel: CancelToken | None = None) -> list[LlmDelta]:
    return list(llm.stream_chat([ChatMessage("user", "hm")], cancel, BUILTIN_SPECS))


def test_a_declined_offer_goes_to_the_speaker_in_the_offer_s_order() -> None:
    call = ToolCall("search_notes", {"query": "garden"}, "c1")
    small = Model("small", offer=("search_notes", "list_notes"), decision='{"name":"none"}')
    large = Model("large", decision='{"name":"search_notes"}', call=call)
    llm: Any = CompositeLlm(small, large)  # type: ignore[arg-type]
    deltas = _run(llm)
    assert large.asked == [("search_notes", "list_notes")]  # nearest first, as offered
    assert [d.tool_call for d in deltas] == [call]
    assert llm.asked_speaker and llm.last_model == Path("large")
    assert llm.last_decision == '{"name":"search_notes"}'


def test_no_second_opinion_after_the_words_decided_or_with_nothing_offered() -> None:
    call = ToolCall("set_timer", {"duration": "8 minutes"}, "c1")
    for small in (Model("small", offer=("set_timer",), decision=FROM_WORDS, call=call),
                  Model("small")):
        large = Model("large", call=ToolCall("list_timers", {}, "c2"))
        llm: Any = CompositeLlm(small, large)  # type: ignore[arg-type]
        deltas = _run(llm)
        assert large.asked == [] and not llm.asked_speaker
        assert [d.tool_call for d in deltas if d.tool_call] == ([call] if small.call else [])


def test_switched_off_or_cancelled_there_is_no_second_opinion() -> None:
    small = Model("small", offer=("now_playing",), decision='{"name":"none"}')
    large = Model("large", call=ToolCall("now_playing", {}, "c1"))
    off: Any = CompositeLlm(small, large, second_opinion=False)  # type: ignore[arg-type]
    assert [d.text for d in _run(off)] == ["Sure."] and large.asked == []
    cancel = CancelToken()
    small.cancel = cancel
    llm: Any = CompositeLlm(small, large)  # type: ignore[arg-type]
    assert _run(llm, cancel) == [] and large.asked == [] and llm.last_model is None
