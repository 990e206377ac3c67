"""The call grammar: byte-identical to its output before the catalog, and llama.cpp parses it.

An invalid GBNF would crash the process mid-turn, and a changed one changes what the model
may say: every set of tools the router offered in ``tests/data/tools/decision_pins.json`` must
give the grammar it gave before the tools became catalog entries, and every grammar the
catalog can produce must pass llama.cpp's own parser. (``llama_cpp.LlamaGrammar.from_string``
only stores the text in llama-cpp-python 0.3: the parser runs when a sampler is made, which
needs a vocabulary, so the GGUF's vocabulary alone is loaded here, in about a second.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.adapters.llm.llm_call_grammar import call_grammar
from desktop_agent.core.tools.catalog import BUILTIN

PINS: dict[str, Any] = json.loads(
    (Path(__file__).parents[2] / "data" / "tools" / "decision_pins.json").read_text("utf-8"))


def test_the_call_grammar_is_byte_identical_for_every_pinned_tool_set() -> None:
    assert len(PINS["decisions"]) > 11
    for pin in PINS["decisions"]:
        specs = [BUILTIN[name].spec for name in pin["tools"]]
        assert call_grammar(specs) == pin["grammar"], pin["tools"]


def _parses(vocab: Any, gbnf: str) -> bool:
    import llama_cpp

    sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


@pytest.mark.models
def test_llama_cpp_parses_every_grammar_the_catalog_gives(vocab: Any) -> None:
    assert not _parses(vocab, "root ::= undefined-rule")  # the check can fail
    specs = BUILTIN.specs
    sets = [specs, tuple(sorted(specs, key=lambda s: s.name)), *((s,) for s in specs)]
    sets += [tuple(BUILTIN[n].spec for n in pin["tools"]) for pin in PINS["decisions"]]
    for tools in sets:
        assert _parses(vocab, call_grammar(tools)), [t.name for t in tools]
