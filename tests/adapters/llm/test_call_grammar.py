"""The call grammar: byte-identical to its output before the catalog, and llama.cpp parses it.

An invalid GBNF would crash the process mid-turn, and a changed one changes what the model
may say: every set of tools the router offered in ``tests/data/tools/decision_pins.json`` must
give the grammar it gave before the tools became catalog entries.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop_agent.adapters.llm.llm_llama import call_grammar
from desktop_agent.core.tools.specs import BUILTIN_SPECS

PINS: dict[str, Any] = json.loads(
    (Path(__file__).parents[2] / "data" / "tools" / "decision_pins.json").read_text("utf-8"))
_BY_NAME = {s.name: s for s in BUILTIN_SPECS}


def test_the_call_grammar_is_byte_identical_for_every_pinned_tool_set() -> None:
    assert len(PINS["decisions"]) > len(BUILTIN_SPECS)
    for pin in PINS["decisions"]:
        specs = [_BY_NAME[name] for name in pin["tools"]]
        assert call_grammar(specs) == pin["grammar"], pin["tools"]
