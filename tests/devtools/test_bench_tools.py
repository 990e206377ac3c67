"""bench tools: the metric arithmetic on fake outcomes, and the packaged utterance set."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.tools.specs import BUILTIN_SPECS
from desktop_agent.devtools.bench_tools import (
    Outcome,
    Utterance,
    args_equal,
    load_utterances,
    metrics,
    run_one,
)


def _o(expected: str | None, got: str | None, exp_args: dict | None = None,
       args: dict | None = None, spoke: bool = False, ms: float = 100.0) -> Outcome:
    return Outcome("x", expected, exp_args or {}, got, args, spoke, ms)


def test_metrics_count_precision_recall_args_and_empty_replies() -> None:
    outcomes = [
        _o("set_timer", "set_timer", {"duration": "5 minutes"}, {"duration": "5 Minutes."}),
        _o("set_timer", "set_timer", {"duration": "5 minutes"}, {"duration": "5"}),
        _o("calculate", "get_current_time", {"expression": "2 + 2"}, {}),  # wrong tool
        _o("calculate", None, spoke=True),  # missed
        _o(None, "get_current_time", args={}),  # a call where prose was due
        _o(None, None, spoke=True, ms=300.0),
        _o(None, None, spoke=False, ms=500.0),  # empty reply
    ]
    m = metrics(outcomes)
    assert m["calls"] == 4
    assert m["tool_precision"] == 0.5  # 2 of 4 calls to the expected tool
    assert m["tool_recall"] == 0.5  # 2 of 4 requests
    assert m["args_exact"] == 0.5  # "5 Minutes." matches, "5" does not
    assert m["empty_replies"] == 1
    assert m["latency_ms_p50"] == 100.0
    assert "confirmation" in m and m["confirmation"] is None


def test_metrics_on_nothing_are_defined() -> None:
    m = metrics([_o(None, None, spoke=True)])
    assert (m["tool_precision"], m["tool_recall"], m["args_exact"]) == (1.0, 1.0, 1.0)


def test_args_compare_numbers_numerically_strings_loosely_and_alternatives() -> None:
    assert args_equal({"value": 5, "from_unit": "miles", "to_unit": ["kilometers", "km"]},
                      {"value": "5.0", "from_unit": "Miles", "to_unit": "km"})
    assert not args_equal({"value": 5}, {"value": 6})
    assert args_equal({"duration": "10 minute"}, {"duration": "10 minutes"})  # parsed later
    assert not args_equal({"text": "buy milk"}, {"text": "buy milks"})  # words kept exactly
    assert not args_equal({"duration": "5 minutes"}, {"duration": "5 minutes", "label": "x"})
    assert args_equal({"duration": "5 minutes"}, {"duration": "5 minutes", "label": ""})


def test_the_utterance_set_covers_every_tool_and_prose() -> None:
    utts = load_utterances()
    assert len(utts) >= 48
    names = {s.name for s in BUILTIN_SPECS}
    assert {u.tool for u in utts if u.tool} == names
    assert sum(1 for u in utts if u.tool is None) >= 15
    assert any("spades" in u.text for u in utts if u.tool is None)


def test_metrics_give_the_95th_percentile_and_count_offers_by_meaning() -> None:
    outcomes = [_o(None, None, spoke=True, ms=float(ms)) for ms in range(1, 101)]
    outcomes[0] = Outcome("x", "set_timer", {}, "set_timer", {}, False, 1.0, "tune",
                          ("set_timer",), True)
    m = metrics(outcomes)
    assert m["latency_ms_p50"] == 50.5 and m["latency_ms_p95"] == 95.0
    assert m["by_meaning"] == 1


def test_the_tuning_and_blind_sets_cover_every_tool_and_share_nothing_with_the_examples(
        ) -> None:
    from desktop_agent.core.tools.semantic import labelled_examples

    names = {s.name for s in BUILTIN_SPECS}
    _, examples = labelled_examples()
    folded = {" ".join(e.lower().split()) for e in examples}
    seen: set[str] = set()
    for name in ("tune", "blind"):
        utts = load_utterances(name=name)
        assert {u.tool for u in utts if u.tool} == names and all(u.set == name for u in utts)
        assert sum(1 for u in utts if u.tool is None) >= 15
        texts = {" ".join(u.text.lower().split()) for u in utts}
        assert not texts & folded, f"{name}: an utterance is also a catalog example"
        assert not texts & seen, "the tuning and blind sets overlap"
        seen |= texts


@pytest.mark.models
@pytest.mark.slow
def test_run_one_records_what_was_offered_and_how(llm: Any) -> None:
    from desktop_agent.adapters.embed.embed_minilm import load_embedder
    from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT
    from desktop_agent.core.tools.semantic import MeaningRouter

    try:
        llm.meanings = MeaningRouter.from_catalog(load_embedder())
        by_rule = run_one(llm, Utterance("Set a timer for 5 minutes.", "set_timer"),
                          SYSTEM_PROMPT, BUILTIN_SPECS)
        by_meaning = run_one(llm, Utterance("tell me when ten minutes are up", "set_timer"),
                             SYSTEM_PROMPT, BUILTIN_SPECS)
        llm.meanings = None
        rules_only = run_one(llm, Utterance("tell me when ten minutes are up", "set_timer"),
                             SYSTEM_PROMPT, BUILTIN_SPECS)
    finally:
        llm.meanings = None
    assert (by_rule.offered, by_rule.by_meaning, by_rule.tool) == (("set_timer",), False,
                                                                   "set_timer")
    assert (by_meaning.offered, by_meaning.by_meaning) == (("set_timer",), True)
    assert (rules_only.offered, rules_only.by_meaning, rules_only.tool) == ((), False, None)


def test_the_desktop_held_out_set_is_read_in_the_catalog_s_names() -> None:
    from desktop_agent.devtools.bench_tools import catalog_form

    utts = load_utterances(name="desktop")
    assert len(utts) == 68 and all(u.set == "desktop" for u in utts)
    named = {u.tool for u in utts if u.tool}
    assert {"set_volume", "open_location", "open_app", "media_control"} <= named
    assert "volume" not in named and "open_target" not in named
    assert catalog_form("volume", {"action": "set", "percent": 40}) == (
        "set_volume", {"setting": "40 percent"})
    assert catalog_form("volume", {"action": "mute"}) == ("set_volume", {"setting": "mute"})
    assert catalog_form("open_app", {"name": ["Firefox"]}) == ("open_app", {"app": ["Firefox"]})
    assert catalog_form(None, {}) == (None, {})


def _d(expected: str | None, got: str | None = None, *, offered: tuple[str, ...] = (),
       rules: tuple[str, ...] = (), nearest: str | None = None, decision: str | None = None,
       by_meaning: bool = False) -> Outcome:
    return Outcome("x", expected, {}, got, {} if got else None, got is None, 1.0, "dev",
                   offered, by_meaning, rules, nearest, decision)


KNOWN = {"set_timer", "list_notes", "add_note", "get_current_time"}


@pytest.mark.parametrize(("outcome", "args_ok", "stage"), [
    (_d("set_timer", "set_timer", offered=("set_timer",)), True, None),
    (_d(None), True, None),
    (_d("type_text"), True, "no_such_tool"),
    (_d("set_timer", offered=("list_notes",), rules=("list_notes",)), True,
     "rules_offered_other"),
    (_d("get_current_time", rules=("get_current_time",), nearest="none"), True, "vetoed"),
    (_d("set_timer"), True, "rules_silent"),
    (_d("set_timer", nearest="set_timer"), True, "meaning_below_threshold"),
    (_d("set_timer", nearest="none"), True, "meaning_nearest_none"),
    (_d("set_timer", "add_note", offered=("add_note",), nearest="add_note", by_meaning=True),
     True, "meaning_nearest_other"),
    (_d("set_timer", offered=("set_timer",), decision='{"name": "none"}'), True,
     "model_said_none"),
    (_d("set_timer", "add_note", offered=("set_timer", "add_note"),
        decision='{"name": "add_note", "arguments": {"text": "x"}}'), True,
     "model_chose_other"),
    (_d("set_timer", offered=("set_timer",),
        decision='{"name": "set_timer", "arguments": {"duration": "9 hours"}}'), True,
     "call_dropped"),
    (_d("set_timer", "set_timer", offered=("set_timer",),
        decision="(from the user's words)"), False, "args_from_words"),
    (_d("set_timer", "set_timer", offered=("set_timer",), decision='{"name": "set_timer"'),
     False, "args_by_model"),
    (_d(None, "add_note", offered=("add_note",), by_meaning=True), True,
     "false_call_by_meaning"),
    (_d(None, "list_notes", offered=("list_notes",), rules=("list_notes",)), True,
     "false_call_by_rule"),
])
def test_each_miss_is_put_where_it_was_lost(outcome: Outcome, args_ok: bool,
                                            stage: str | None) -> None:
    from desktop_agent.devtools.bench_tools_losses import lost_at

    assert lost_at(outcome, args_ok, KNOWN) == stage


def test_the_totals_say_where_misses_were_lost_and_count_per_tool() -> None:
    outcomes = [
        _d("set_timer", "set_timer", offered=("set_timer",)),
        _d("set_timer", offered=("set_timer",), decision='{"name": "none"}'),
        _d("set_timer", nearest="none"),
        _d("list_notes", "list_notes", offered=("list_notes",)),
        _d(None, "list_notes", offered=("list_notes",), rules=("list_notes",)),
    ]
    m = metrics(outcomes)
    assert m["lost"] == {"false_call_by_rule": 1, "meaning_nearest_none": 1,
                         "model_said_none": 1}
    assert m["per_tool"] == {"list_notes": "1/1 +1", "set_timer": "1/3"}


def test_the_second_tuning_set_is_packaged_and_names_catalog_tools_or_future_ones() -> None:
    from desktop_agent.core.tools.catalog import BUILTIN

    utts = load_utterances(name="tune2")
    assert len(utts) == 150 and all(u.set == "tune2" for u in utts)
    missing = {u.tool for u in utts if u.tool and u.tool not in BUILTIN}
    assert missing <= {"read_selection", "copy_last_answer", "type_text"}
    assert sum(1 for u in utts if u.tool is None) >= 25


@pytest.mark.parametrize(("name", "lines", "none"), [
    ("tune3", 87, 19), ("tune4", 80, 31), ("tune5", 86, 31), ("tune6", 79, 28),
    ("tune7", 80, 28), ("tune8", 79, 28), ("tune9", 80, 28), ("tune10", 80, 28),
    ("tune11", 80, 20), ("tune12", 80, 24), ("tune13", 80, 24), ("tune14", 80, 25)])
def test_the_later_tuning_sets_are_packaged_and_name_only_catalog_tools(
        name: str, lines: int, none: int) -> None:
    from desktop_agent.core.tools.catalog import BUILTIN

    utts = load_utterances(name=name)
    assert len(utts) == lines and all(u.set == name for u in utts)
    assert {u.tool for u in utts if u.tool} <= {t.name for t in BUILTIN}
    assert sum(1 for u in utts if u.tool is None) == none
