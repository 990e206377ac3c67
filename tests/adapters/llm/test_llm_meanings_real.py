"""Tools by meaning through the real LLM: a paraphrase no rule reads becomes its call, a
question near a tool's words stays prose (the shipped path: llama.cpp + the embedding model).

Known limit, not tested here: offered by meaning, the 0.5B still answers "none" to some
plain requests ("what have I got written down" with list_notes, "drop all my notes" with
delete_notes); the "none" choice is kept on purpose.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT
from desktop_agent.core.errors import ModelError
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.tools.semantic import MeaningRouter
from desktop_agent.core.tools.specs import BUILTIN_SPECS
from tests.needs import unavailable

pytestmark = [pytest.mark.models, pytest.mark.slow]


@pytest.fixture(scope="module")
def meaning_llm(llm: Any) -> Iterator[Any]:
    """The shared LLM with tools by meaning, for this module only."""
    from desktop_agent.adapters.embed.embed_minilm import load_embedder

    try:
        router = MeaningRouter.from_catalog(load_embedder())
    except ModelError as exc:
        unavailable("the sentence-embedding model", f"[{exc.code}] {exc.message} {exc.fix}")
    llm.meanings = router
    try:
        yield llm
    finally:
        llm.meanings = None


def _ask(llm: Any, text: str) -> tuple[list[Any], str]:
    deltas = list(llm.stream_chat([ChatMessage("system", SYSTEM_PROMPT),
                                   ChatMessage("user", text)], tools=BUILTIN_SPECS,
                                  max_tokens=12))
    calls = [d.tool_call for d in deltas if d.tool_call]
    return calls, "".join(d.text for d in deltas)


@pytest.mark.parametrize(("text", "seconds"), [
    ("tell me when ten minutes are up", 600),
    ("sound an alert in eight minutes", 480),
])
def test_a_paraphrase_no_rule_reads_is_called(meaning_llm: Any, text: str,
                                              seconds: float) -> None:
    from desktop_agent.core.tools.when import parse_duration

    calls, _ = _ask(meaning_llm, text)
    assert meaning_llm.last_offer == (("set_timer",), True)  # offered by meaning
    # the duration as the user said it ("eight minutes") or as the model wrote it ("8
    # minutes"): either is the timer's; what matters is how long it runs
    assert [(c.name, set(c.arguments)) for c in calls] == [("set_timer", {"duration"})], \
        meaning_llm.last_decision
    assert parse_duration(str(calls[0].arguments["duration"])) == seconds


@pytest.mark.parametrize("text", [
    "what time does the chemist open tomorrow",  # another thing's time, not the clock's
    "could you play the radio",  # no such tool: nothing is near enough
    "how far away is Jupiter",  # convert_units is offered; its invented value is dropped
])
def test_a_question_near_a_tools_words_is_answered_in_prose(meaning_llm: Any,
                                                            text: str) -> None:
    calls, spoken = _ask(meaning_llm, text)
    assert not calls and spoken.strip()
