"""Tool calls on the real default LLM: grammar-constrained calls, prose for everything else."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.adapters.llm.llm_call_grammar import call_grammar
from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT
from desktop_agent.core.errors import ModelError
from desktop_agent.core.ports import ChatMessage, ToolSpec
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.specs import BUILTIN_SPECS

pytestmark = pytest.mark.models
SET_TIMER = BUILTIN["set_timer"].spec


def _ask(llm: Any, text: str) -> list[Any]:
    return list(llm.stream_chat([ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", text)],
                                tools=BUILTIN_SPECS, max_tokens=12))


def test_every_builtin_grammar_builds_and_llama_cpp_accepts_it(llm: Any) -> None:
    llm.build_grammars(BUILTIN_SPECS)  # raises ModelError if llama.cpp rejects one
    for spec in BUILTIN_SPECS:
        assert f'\\"{spec.name}\\"' in call_grammar((spec,))


def test_an_invalid_grammar_fails_loudly_not_mid_turn(llm: Any) -> None:
    bad = ToolSpec("bad_tool", "A schema llama.cpp cannot express.",
                   {"type": "object", "properties": {"x": {"type": "string", "pattern": "("}},
                    "required": ["x"]})
    with pytest.raises(ModelError) as info:
        llm.build_grammars([bad])
    assert info.value.code == "llm_grammar_invalid"


def test_a_grammar_llama_cpp_rejects_raises_instead_of_crashing(llm: Any, monkeypatch: Any
                                                                 ) -> None:
    import desktop_agent.adapters.llm.llm_call_grammar as mod

    monkeypatch.setattr(mod, "call_grammar", lambda candidates: "root ::= undefined-rule")
    odd = ToolSpec("odd_tool", "Never built before.", {})
    with pytest.raises(ModelError) as info:
        llm.build_grammars([odd])
    assert info.value.code == "llm_grammar_invalid"


def test_a_timer_request_yields_set_timer_with_its_duration(llm: Any) -> None:
    deltas = _ask(llm, "Set a timer for 5 minutes.")
    calls = [d.tool_call for d in deltas if d.tool_call]
    assert len(calls) == 1 and calls[0].name == "set_timer"
    assert "5" in str(calls[0].arguments.get("duration", ""))
    assert not "".join(d.text for d in deltas).strip()


@pytest.mark.parametrize("text", ["eight of spades, four of clubs",
                                  "She closed the door behind her and listened to the rain."])
def test_card_names_and_read_aloud_get_prose_not_a_call(llm: Any, text: str) -> None:
    deltas = _ask(llm, text)
    assert not [d for d in deltas if d.tool_call]
    assert "".join(d.text for d in deltas).strip()

