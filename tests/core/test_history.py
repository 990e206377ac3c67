"""Conversation history: heard-only assistant text, tool messages, trimming."""

from __future__ import annotations

from desktop_agent.core.history import (
    History,
    default_count_tokens,
    tool_call_message,
    tool_result_message,
)
from desktop_agent.core.ports import ChatMessage, ToolCall


def roles(messages: tuple[ChatMessage, ...]) -> list[str]:
    return [m.role for m in messages]


def test_an_interrupted_reply_keeps_only_the_heard_text_and_is_marked() -> None:
    history = History("sys")
    history.record_turn("tell me a story", assistant_text="Once upon", interrupted=True)
    assert history.messages[1:] == (
        ChatMessage(role="user", content="tell me a story"),
        ChatMessage(role="assistant", content="Once upon", interrupted=True),
    )


def test_nothing_heard_adds_no_assistant_message_and_users_are_joined_in_the_prompt() -> None:
    history = History("sys")
    history.record_turn("tell me a story", assistant_text="  ", interrupted=True)
    assert roles(history.messages) == ["system", "user"]
    prompt = history.prompt([ChatMessage(role="user", content="no, a poem")])
    assert prompt == (
        ChatMessage(role="system", content="sys"),
        ChatMessage(role="user", content="tell me a story no, a poem"),
    )


def test_tool_messages_sit_between_the_user_and_the_reply() -> None:
    history = History("sys")
    call = ToolCall("get_time", {"tz": "UTC"}, "c1")
    tools = [tool_call_message(call), tool_result_message("get_time", "15:00")]
    history.record_turn("time?", tool_messages=tools, assistant_text="It is 3 pm.")
    assert roles(history.messages) == ["system", "user", "assistant", "tool", "assistant"]
    assert history.messages[2].tool_call == call and history.messages[2].content == ""
    assert history.messages[3] == ChatMessage(role="tool", content="15:00", name="get_time")


def test_trimming_drops_oldest_whole_exchanges_and_keeps_system_and_current() -> None:
    words = lambda text: len(text.split())  # noqa: E731
    history = History("s y s", max_prompt_tokens=10, count_tokens=words)
    history.record_turn("one one", assistant_text="a a")  # 4
    history.record_turn("two two", assistant_text="b b")  # 4
    history.record_turn("three", assistant_text="c")  # 2
    current = [ChatMessage(role="user", content="now")]  # 1; system 3 -> 6 left
    assert [m.content for m in history.prompt(current)] == [
        "s y s",
        "two two",
        "b b",
        "three",
        "c",
        "now",
    ]
    tiny = History("s y s", max_prompt_tokens=2, count_tokens=words)
    tiny.record_turn("old", assistant_text="x")
    assert [m.content for m in tiny.prompt(current)] == ["s y s", "now"]
    assert history.exchanges == 3  # trimming never loses stored history


def test_default_token_count() -> None:
    assert default_count_tokens("") == 4
    assert default_count_tokens("abcdefgh") == 6
