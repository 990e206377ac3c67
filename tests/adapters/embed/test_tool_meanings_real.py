"""Tools by meaning on the real embedding model: paraphrases no keyword rule reads.

The sentences here are in none of the example, tuning or blind sets; the thresholds are the
shipped ``MeaningSettings``. A miss here means the examples or the thresholds moved.
"""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.tools.decision import offer_tools, offered_tools
from desktop_agent.core.tools.semantic import MeaningRouter
from desktop_agent.core.tools.specs import BUILTIN_SPECS

pytestmark = pytest.mark.models


@pytest.fixture(scope="module")
def router(embedder: Any) -> MeaningRouter:
    return MeaningRouter.from_catalog(embedder)


@pytest.mark.parametrize(("text", "tool"), [
    ("in a quarter of an hour give me a buzz", "set_timer"),
    ("tell me when ten minutes are up", "set_timer"),
    ("what have I got written down", "list_notes"),
])
def test_a_request_no_rule_reads_reaches_its_tool(router: MeaningRouter, text: str,
                                                  tool: str) -> None:
    ask = [ChatMessage("user", text)]
    assert offered_tools(ask, BUILTIN_SPECS) == ()  # the keyword rules are silent
    offer = offer_tools(ask, BUILTIN_SPECS, router)
    assert [s.name for s in offer.tools] == [tool] and offer.by_meaning


@pytest.mark.parametrize("text", [
    "what is the meaning of life",
    "could you play the radio",
    "which tools can you use",
    "what's the time difference with Tokyo",  # a rule offers the clock: dropped
])
def test_questions_and_missing_tools_get_no_tool(router: MeaningRouter, text: str) -> None:
    assert offer_tools([ChatMessage("user", text)], BUILTIN_SPECS, router).tools == ()


@pytest.mark.parametrize("text", ["what time is it", "what's the date today"])
def test_a_real_time_request_keeps_its_rule(router: MeaningRouter, text: str) -> None:
    offer = offer_tools([ChatMessage("user", text)], BUILTIN_SPECS, router)
    assert [s.name for s in offer.tools] == ["get_current_time"] and not offer.by_meaning
