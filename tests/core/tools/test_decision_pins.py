"""The tool decision, pinned to its output before the catalog: behaviour unchanged, proven.

``tests/data/tools/decision_pins.json`` was captured from the code as it stood before the
tools became catalog entries: for every utterance of the tool sets (dev, held-out, the router
and argument tests), the tools the router offered and the arguments cut from the words; for
every set of tools offered, the decision note. Prompt-prefix caching and the model's choices
depend on these bytes, so they must not move. (The grammars are pinned in
``tests/adapters/llm/test_call_grammar.py``: converting them needs llama.cpp.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop_agent.core.tools.args import arguments_from_words
from desktop_agent.core.tools.decision import decision_note
from desktop_agent.core.tools.router import candidate_tools, is_request
from desktop_agent.core.tools.specs import BUILTIN_SPECS

PINS: dict[str, Any] = json.loads(
    (Path(__file__).parents[2] / "data" / "tools" / "decision_pins.json").read_text("utf-8"))
_BY_NAME = {s.name: s for s in BUILTIN_SPECS}
_OLD = set(PINS["utterances"][0]["words"])
"""The tools that existed when the pins were captured."""
NEW_OFFERS: dict[str, list[str]] = {
    "what day is the 14th": ["day_of_week"],
    "what day of the week was the 3rd of March 2021": ["day_of_week"],
    "can you make it quieter": ["set_volume"],
    "set the volume to 40 percent": ["set_volume"],
    "stop the video": ["media_control"],
    "what am I listening to?": ["now_playing"],
    "what's playing right now": ["now_playing"],
    "what's this song?": ["now_playing"],
    "who's singing this": ["now_playing"],
}
"""Pinned utterances that a tool added since is offered for too (on purpose: these ask
for a weekday, the volume or the media player). Every other utterance is offered exactly what it was."""


def _first(diffs: list[str]) -> str:
    return f"{len(diffs)} differ, e.g.:\n" + "\n".join(diffs[:8])


def test_the_pins_cover_every_old_tool_and_many_utterances() -> None:
    assert len(PINS["utterances"]) > 300
    offered = {n for u in PINS["utterances"] for n in u["candidates"]}
    assert offered == _OLD and _OLD <= set(_BY_NAME)


def test_the_router_offers_the_same_tools() -> None:
    diffs, added = [], {}
    for u in PINS["utterances"]:
        got = [s.name for s in candidate_tools(u["text"], BUILTIN_SPECS)]
        old = [name for name in got if name in _OLD]
        if old != u["candidates"] or is_request(u["text"]) != u["is_request"]:
            diffs.append(f"{u['text']!r}: {old} != {u['candidates']}")
        if len(old) < len(got):
            added[u["text"]] = [name for name in got if name not in _OLD]
    assert not diffs, _first(diffs)
    assert added == NEW_OFFERS


def test_the_same_arguments_are_cut_from_the_words() -> None:
    diffs = []
    for u in PINS["utterances"]:
        for tool, args in u["words"].items():
            got = arguments_from_words(tool, u["text"])
            if got != args:
                diffs.append(f"{tool} {u['text']!r}: {got} != {args}")
    assert not diffs, _first(diffs)


def test_the_decision_note_is_byte_identical() -> None:
    for pin in PINS["decisions"]:
        specs = [_BY_NAME[name] for name in pin["tools"]]
        assert decision_note(specs) == pin["note"], pin["tools"]
