"""Conversation history: heard-only assistant text, tool messages, trimming."""

from __future__ import annotations

import pytest

from desktop_agent.core.conversation.history import (
    MAX_EXCHANGES_KEPT,
    History,
    default_count_tokens,
    tool_call_message,
    tool_result_message,
)
from desktop_agent.core.conversation.prompts import INTERRUPTED_NOTE
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
    # 10 > 6: a trim keeps the newest that fill half the budget (3): only "three"/"c".
    assert [m.content for m in history.prompt(current)] == ["s y s", "three", "c", "now"]
    tiny = History("s y s", max_prompt_tokens=2, count_tokens=words)
    tiny.record_turn("old", assistant_text="x")
    assert [m.content for m in tiny.prompt(current)] == ["s y s", "now"]
    assert history.exchanges == 3  # trimming never loses stored history


def test_default_token_count() -> None:
    assert default_count_tokens("") == 4
    assert default_count_tokens("abcdefgh") == 6


def words(text: str) -> int:
    return len(text.split())


def test_the_prompt_tells_the_model_where_the_user_cut_in() -> None:
    history = History("sys")
    history.record_turn("tell me a story", assistant_text="Once upon a time", interrupted=True)
    history.record_turn("and then?", assistant_text="The end.")
    prompt = history.prompt([ChatMessage(role="user", content="who was in it?")])
    assert [(m.role, m.content) for m in prompt] == [
        ("system", "sys"),
        ("user", "tell me a story"),
        ("assistant", "Once upon a time"),
        ("system", INTERRUPTED_NOTE),
        ("user", "and then?"),
        ("assistant", "The end."),
        ("user", "who was in it?"),
    ]
    assert prompt[2].interrupted and not prompt[5].interrupted
    # Stored history is what was recorded: the note lives only in prompts.
    assert INTERRUPTED_NOTE not in [m.content for m in history.messages]
    # Plain English, short enough for a 0.5B model, and no bracketed marker it could copy.
    assert len(INTERRUPTED_NOTE.split()) <= 20 and "[" not in INTERRUPTED_NOTE


def test_the_interrupted_note_counts_against_the_budget() -> None:
    history = History("s", max_prompt_tokens=1 + 2 + 2 + words(INTERRUPTED_NOTE) - 1,
                      count_tokens=words)
    history.record_turn("tell me", assistant_text="Once upon", interrupted=True)
    assert [m.content for m in history.prompt()] == ["s"]  # the note does not fit: all goes
    history = History("s", max_prompt_tokens=1 + 2 + 2 + words(INTERRUPTED_NOTE),
                      count_tokens=words)
    history.record_turn("tell me", assistant_text="Once upon", interrupted=True)
    assert [m.content for m in history.prompt()] == ["s", "tell me", "Once upon", INTERRUPTED_NOTE]


def test_the_token_counter_can_be_swapped_after_the_model_loads() -> None:
    history = History("s y s", max_prompt_tokens=16)
    history.record_turn("one two", assistant_text="three four")
    # The rough default (len // 4 + 4 each): 5 + 5 + 6 = 16, it all fits.
    assert len(history.prompt()) == 3
    calls: list[str] = []

    def tokenizer(text: str) -> int:
        calls.append(text)
        return len(text.split())

    history.set_token_counter(tokenizer, framing_tokens=5)  # 8 + 7 + 7 = 22 > 16
    assert [m.content for m in history.prompt()] == ["s y s"]
    history.set_token_counter(tokenizer, framing_tokens=1)  # 4 + 3 + 3 = 10
    assert [m.content for m in history.prompt()] == ["s y s", "one two", "three four"]
    # Counts are cached per stored message: the next prompt counts only the current turn.
    calls.clear()
    history.prompt([ChatMessage(role="user", content="five")])
    assert calls == ["five"]
    history.set_token_counter(None)  # the default again, its framing built in: 16 fits
    assert len(history.prompt()) == 3 and calls == ["five"]


def test_stored_exchanges_are_bounded_and_the_oldest_go_first() -> None:
    history = History("sys", max_exchanges=3)
    for i in range(5):
        history.record_turn(f"question {i}", assistant_text=f"answer {i}")
    assert history.exchanges == 3 == history.max_exchanges
    assert [m.content for m in history.messages] == [
        "sys", "question 2", "answer 2", "question 3", "answer 3", "question 4", "answer 4",
    ]
    assert History("sys").max_exchanges == MAX_EXCHANGES_KEPT
    with pytest.raises(ValueError, match="max_exchanges"):
        History("sys", max_exchanges=0)


def test_trims_in_steps_so_the_prompt_keeps_its_start_for_many_turns() -> None:
    """The LLM reuses its cache up to the first change: dropping one exchange per turn would
    change the prompt right after the system prompt every turn once the budget is full."""
    history = History("sys", max_prompt_tokens=1 + 20 + 1, count_tokens=words)  # 20 for history
    current = [ChatMessage(role="user", content="now")]
    firsts = []
    for i in range(30):
        history.record_turn(f"q{i} q", assistant_text=f"a{i} a")  # 4 tokens each
        firsts.append(history.prompt(current)[1].content)
        prompt = history.prompt(current)
        assert sum(words(m.content) for m in prompt) <= 22  # always within the budget
        assert prompt[-2].content == f"a{i} a"  # the newest exchange is always there
    # 5 exchanges fit (20 tokens); a trim keeps 2 (half: 10 tokens), so the prompt's first
    # exchange changes once every 3 turns, not on every turn past the fifth.
    changes = sum(1 for a, b in zip(firsts, firsts[1:], strict=False) if a != b)
    assert changes <= 30 // 3 + 1, firsts
    assert firsts[4] == "q0 q" and firsts[5] != "q0 q"


def test_a_cleared_history_starts_afresh() -> None:
    history = History("sys", max_prompt_tokens=10, count_tokens=words)
    for i in range(5):
        history.record_turn(f"q{i}", assistant_text=f"a{i}")
    history.prompt()
    history.clear()
    history.record_turn("new", assistant_text="one")
    assert [m.content for m in history.prompt()] == ["sys", "new", "one"]
