"""bench tools: the metric arithmetic on fake outcomes, and the packaged utterance set."""

from __future__ import annotations

from desktop_agent.core.tools.specs import BUILTIN_SPECS
from desktop_agent.devtools.bench_tools import Outcome, args_equal, load_utterances, metrics


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
