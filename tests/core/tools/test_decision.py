"""The tool decision shared by the LLM backends: offer, decide from words, read the call."""

from __future__ import annotations

import json

from desktop_agent.core.ports import ChatMessage, ToolCall, ToolSpec
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.decision import (
    Decision,
    call_schema,
    named_tool,
    offered_tools,
    parse_decision,
    plan_decision,
)
from desktop_agent.core.tools.tool_def import NO_TOOL

SPECS = BUILTIN.specs
TIME, NOTES = BUILTIN["get_current_time"].spec, BUILTIN["list_notes"].spec
TIMERS, SET_TIMER = BUILTIN["list_timers"].spec, BUILTIN["set_timer"].spec
REMIND = BUILTIN["set_reminder"].spec


def _names(specs: tuple[ToolSpec, ...]) -> list[str]:
    return [s.name for s in specs]


def test_only_the_users_newest_message_is_offered_tools() -> None:
    user = ChatMessage("user", "set a timer for 5 minutes")
    assert _names(offered_tools([ChatMessage("system", "x"), user], SPECS)) == ["set_timer"]
    assert offered_tools([user, ChatMessage("tool", "Timer set.", name="set_timer")],
                         SPECS) == ()
    assert offered_tools([ChatMessage("user", "")], SPECS) == ()
    assert offered_tools([], SPECS) == ()
    assert offered_tools([ChatMessage("user", "eight of spades, four of clubs")], SPECS) == ()


def test_spelled_out_arguments_decide_without_the_model() -> None:
    text = "remind me to call mum tomorrow at 9 am"
    plan = plan_decision(text, (TIMERS, REMIND))
    assert plan.call == ToolCall("set_reminder", {"text": "call mum", "when": "tomorrow at 9 am"},
                                 "call_1")
    assert plan_decision(text, (TIMERS, REMIND), use_words=False).call is None


def test_arguments_come_from_the_part_that_asks_when_context_comes_first() -> None:
    text = ("I've got a meeting with Sarah at three, so can you remind me at quarter to three "
            "to prep the slides?")
    assert plan_decision(text, (REMIND,)).call == ToolCall(
        "set_reminder", {"text": "prep the slides", "when": "at quarter to three"}, "call_1")
    # a request with nothing before it is read whole, as before
    assert plan_decision("remind me at 5 to call mum", (REMIND,)).call == ToolCall(
        "set_reminder", {"text": "call mum", "when": "at 5"}, "call_1")


def test_a_sure_tool_alone_is_called_without_the_model_even_without_word_rules() -> None:
    for spec in (TIME, NOTES):
        assert plan_decision("what time is it", (spec,)).call == ToolCall(spec.name, {},
                                                                           "call_1")
        # --llm-only once raised KeyError here (no words, yet the shortcut looked them up)
        assert plan_decision("what time is it", (spec,), use_words=False).call == ToolCall(
            spec.name, {}, "call_1")
    assert plan_decision("how long is left on my timer", (TIMERS,)).call is None  # loose rule
    assert plan_decision("what time is it", (TIME, TIMERS)).call is None


def test_the_model_may_stop_once_the_rest_of_the_call_is_fixed() -> None:
    plan = plan_decision("could you set a timer", (TIMERS, SET_TIMER))
    assert plan.call is None
    assert plan.complete_after == {NO_TOOL, "list_timers"}
    plan = plan_decision("set a timer for 5 minutes", (TIMERS, SET_TIMER, REMIND))
    assert "set_timer" in plan.complete_after


def test_reading_the_models_call() -> None:
    plan = plan_decision("could you set a timer for the eggs", (TIMERS, SET_TIMER))
    assert plan.read('{"name": "none"}') is None
    assert plan.read('{"name": "list_timers"') == ToolCall("list_timers", {}, "call_1")
    assert plan.read('{"name": "set_timer", "arguments": {"duration": "the eggs"}}') == (
        ToolCall("set_timer", {"duration": "the eggs"}, "call_1"))
    # an argument the user never said is invented: no call
    assert plan.read('{"name": "set_timer", "arguments": {"duration": "20 minutes"}}') is None
    assert plan.read('{"name": "set_timer", "arguments": {"duration": "the e') is None  # cut
    # when the words gave a tool's arguments, they fill its call once the model names it
    worded = Decision((SET_TIMER, REMIND), "...", {"set_timer": {"duration": "5 minutes"}},
                      None)
    assert worded.read('{"name": "set_timer"') == ToolCall(
        "set_timer", {"duration": "5 minutes"}, "call_1")


def test_a_decision_never_names_a_tool_outside_the_candidates() -> None:
    assert parse_decision('{"name": "get_current_time", "arguments": {}}', (SET_TIMER,)) is None
    assert parse_decision('{"name": "none"}', (SET_TIMER,)) is None
    assert parse_decision("I think you mean a timer", (SET_TIMER,)) is None
    call = parse_decision('{"name": "set_timer", "arguments": {"duration": "5 minutes"}}',
                          (SET_TIMER,))
    assert call is not None and dict(call.arguments) == {"duration": "5 minutes"}
    assert named_tool(' { "name" : "set_timer", "argu') == "set_timer"
    assert named_tool('{"nam') is None


def test_the_call_schema_has_names_as_constants_and_only_required_arguments() -> None:
    schema = call_schema((SET_TIMER, TIME))
    timer, time, none = schema["oneOf"]
    assert timer["properties"]["name"] == {"const": "set_timer"}
    assert timer["properties"]["arguments"] == {
        "type": "object", "properties": {"duration": {"type": "string"}},
        "required": ["duration"], "additionalProperties": False}  # no label, no maxLength
    assert time["properties"]["arguments"]["properties"] == {}
    assert none == {"type": "object", "properties": {"name": {"const": NO_TOOL}},
                    "required": ["name"], "additionalProperties": False}
    json.dumps(schema)  # plain JSON, for any backend
    assert NO_TOOL not in BUILTIN
