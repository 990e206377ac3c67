"""The catalog: one entry per tool, checked when it is built, read by every part."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import pytest

from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.confirm import second_question
from desktop_agent.core.tools.router import candidate_tools
from desktop_agent.core.tools.specs import BUILTIN_SPECS, WRITE_TOOLS
from desktop_agent.core.tools.tool_def import Catalog, Risk, ToolDef
from desktop_agent.core.tools.write_actions import PreparedAction, WriteContext


def _never(_text: str) -> bool:
    return False


def _answer(_args: Mapping[str, Any], _now: dt.datetime) -> str:
    return "Yes."


def _read_back(args: Mapping[str, Any], _ctx: WriteContext) -> PreparedAction:
    return PreparedAction("x", dict(args), "Do it?")


def test_the_views_of_the_builtin_catalog() -> None:
    assert BUILTIN_SPECS == BUILTIN.specs
    assert [s.name for s in BUILTIN_SPECS][:3] == ["get_current_time", "calculate",
                                                   "convert_units"]
    assert WRITE_TOOLS == {"add_note", "delete_notes", "set_timer", "set_reminder",
                           "cancel_timer", "open_app", "open_location", "type_text"}
    reads = [t.writes for t in BUILTIN]
    assert reads == sorted(reads), "reads come before writes"
    for entry in BUILTIN:
        assert entry.spec.writes is (entry.risk is Risk.WRITE)
        assert entry.spec.name == entry.name and entry.spec.parameters == entry.parameters


def test_every_write_can_be_confirmed_and_revised() -> None:
    for entry in BUILTIN:
        if not entry.writes:
            assert entry.read_back is None and not entry.revised
            continue
        assert entry.read_back is not None and entry.hint.startswith(entry.name)
        # the desktop's opens take no spoken change: a new request replaces them
        assert entry.revised in entry.parameters["properties"] or (
            entry.executor == "desktop" and not entry.revised), entry.name
        assert entry.confirm_verb != "do it"


def test_the_second_question_says_the_entrys_verb() -> None:
    assert second_question(PreparedAction("set_timer", {}, "?")) == "Say yes to start it, or no."
    assert second_question(PreparedAction("delete_notes", {}, "?")) == (
        "Say yes to delete them, or no.")
    assert second_question(PreparedAction("mystery", {}, "?")) == "Say yes to do it, or no."


@pytest.mark.parametrize(("fields", "fragment"), [
    ({"name": "none"}, "bad tool name"),
    ({"name": "two words"}, "bad tool name"),
    ({"name": 'quote"d'}, "bad tool name"),
    ({"executor": "builtin"}, "exactly one of answer and executor"),
    ({"answer": None}, "exactly one of answer and executor"),
    ({"risk": Risk.WRITE}, "a write needs a read_back"),
    ({"read_back": _read_back}, "a write needs a read_back"),
    ({"risk": Risk.WRITE, "read_back": _read_back}, "runs in an executor"),
])
def test_an_entry_that_could_not_run_or_be_confirmed_is_refused(fields: dict[str, Any],
                                                                fragment: str) -> None:
    base: dict[str, Any] = {"name": "odd_tool", "description": "An odd tool.",
                            "parameters": {}, "risk": Risk.READ, "offered": _never,
                            "answer": _answer}
    with pytest.raises(ValueError, match=fragment):
        ToolDef(**{**base, **fields})


def test_a_catalog_holds_each_name_once_and_can_be_joined() -> None:
    extra = ToolDef("launch_rocket", "Launch a rocket.", {}, Risk.READ,
                    offered=lambda t: "rocket" in t, answer=_answer)
    with pytest.raises(ValueError, match="twice"):
        Catalog([extra, extra])
    joined = BUILTIN.joined([extra])
    assert len(joined) == len(BUILTIN) + 1 and "launch_rocket" in joined
    assert joined.get("launch_rocket") is extra and BUILTIN.get("launch_rocket") is None
    # the router offers a tool only through its catalog entry
    text = "could you check the rocket"
    assert candidate_tools(text, (extra.spec,)) == ()
    assert candidate_tools(text, (extra.spec,), joined) == (extra.spec,)
