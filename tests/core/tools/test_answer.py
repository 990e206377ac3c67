from __future__ import annotations

from desktop_agent.core.ports import LlmDelta, ToolCall
from desktop_agent.core.tools.answer import guard_tool_answer

FALLBACK = "It is 08:02 on Monday, 30 November 2026 (time zone UTC)."


def _run(pieces: list[object], question: str = "What time is it?") -> str:
    deltas = [LlmDelta(tool_call=p) if isinstance(p, ToolCall) else LlmDelta(text=str(p))
              for p in pieces]
    return "".join(d.text for d in guard_tool_answer(iter(deltas), question, FALLBACK))


def test_good_answer_streams_through() -> None:
    assert _run(["It is", " eight oh two", " in the morning."]) == \
        "It is eight oh two in the morning."


def test_short_good_answer_is_kept() -> None:
    assert _run(["08:02."]) == "08:02."


def test_second_tool_call_falls_back_to_the_tool_sentence() -> None:
    assert _run([ToolCall("get_current_time", {})]) == FALLBACK


def test_json_and_echo_fall_back() -> None:
    assert _run(['{"time": "08:02", "weekday": "Monday"}']) == FALLBACK
    assert _run(["What time is it?"]) == FALLBACK
    assert _run([]) == FALLBACK


def test_tool_call_after_good_text_is_ignored() -> None:
    assert _run(["The time is eight oh two.", ToolCall("x", {}), " Bye."]) == \
        "The time is eight oh two. Bye."


def test_a_failing_tool_answers_the_model_with_an_apology() -> None:
    from desktop_agent.core.ports import ToolCall, ToolSpec
    from desktop_agent.core.tools.registry import Tool, ToolRegistry

    def broken(_args: object) -> str:
        raise RuntimeError("disk gone")

    tools = ToolRegistry([Tool(ToolSpec("ok", "", {}), lambda _a: "42"),
                          Tool(ToolSpec("broken", "", {}), broken)])
    assert tools.answer(ToolCall("ok", {}, "c1")) == ("42", False)
    assert tools.answer(ToolCall("broken", {}, "c2")) == (
        "Sorry, the tool failed (disk gone).", True)
    text, is_error = tools.answer(ToolCall("nope", {}, "c3"))
    assert is_error and text.startswith("Sorry, The model asked for an unknown tool")
