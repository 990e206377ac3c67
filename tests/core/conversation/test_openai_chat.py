"""The OpenAI chat wire format: URLs, request bodies, stream events, tool calls."""

from __future__ import annotations

import pytest

from desktop_agent.core.conversation.openai_chat import (
    StreamState,
    accept_call,
    call_in_text,
    chat_body,
    error_message,
    is_loopback,
    might_be_call,
    parse_server_url,
    sse_data,
    url_problem,
)
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ChatMessage, ToolCall
from desktop_agent.core.tools.catalog import BUILTIN

CALCULATE, CONVERT_UNITS = BUILTIN["calculate"].spec, BUILTIN["convert_units"].spec
GET_CURRENT_TIME, SET_TIMER = BUILTIN["get_current_time"].spec, BUILTIN["set_timer"].spec


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1", "https://gpu.lan:8000/v1",
                                 "http://localhost:8080", "http://[::1]:8080/v1/"])
def test_server_urls_that_are_accepted(url: str) -> None:
    assert url_problem(url) == ""


@pytest.mark.parametrize(("url", "why"), [
    ("ftp://host/v1", "http://"), ("127.0.0.1:8080", "http://"), ("http:///v1", "host"),
    ("http://user:secret@host/v1", "password"), ("http://host/v1?key=x", "query"),
    ("http://host:99999/v1", "not a valid URL"), ("http://ho st/v1", "spaces"),
    ("http://h/" + "x" * 400, "at most"),
])
def test_server_urls_that_are_refused_say_why(url: str, why: str) -> None:
    assert why in url_problem(url)


def test_a_url_splits_into_host_port_and_the_api_base() -> None:
    url = parse_server_url("http://127.0.0.1:8080/v1/")
    assert (url.host, url.port, url.chat_path, url.loopback) == (
        "127.0.0.1", 8080, "/v1/chat/completions", True)
    assert parse_server_url("http://localhost").chat_path == "/v1/chat/completions"
    assert parse_server_url("https://gpu.lan/v1/chat/completions").port == 443
    assert not parse_server_url("http://192.168.1.20:8000/v1").loopback
    with pytest.raises(AgentError) as info:
        parse_server_url("gpu.lan:8000")
    assert info.value.code == "server_url_invalid" and "llm.server_url" in info.value.fix


def test_loopback_is_localhost_127_slash_8_and_ipv6_one() -> None:
    assert all(is_loopback(h) for h in ("localhost", "127.0.0.1", "127.9.9.9", "::1"))
    assert not any(is_loopback(h) for h in ("10.0.0.1", "example.com", "0.0.0.0", "::"))


def test_a_request_body_renders_tool_results_as_the_local_paths_note() -> None:
    call = ToolCall("calculate", {"expression": "2 plus 2"}, "c1")
    body = chat_body([ChatMessage("system", "Be brief."), ChatMessage("user", "2 plus 2?"),
                      ChatMessage("assistant", "", tool_call=call),
                      ChatMessage("tool", "4", name="calculate")],
                     model="", tools=(), max_tokens=30, temperature=0.0)
    assert [m["role"] for m in body["messages"]] == ["system", "user", "system"]
    assert body["messages"][2]["content"].startswith("calculate returned: 4")
    assert body["stream"] is True and "model" not in body and "tools" not in body
    with_tools = chat_body([ChatMessage("user", "hi")], model="qwen", tools=(CALCULATE,),
                           max_tokens=5, temperature=0.2, seed=3)
    assert with_tools["model"] == "qwen" and with_tools["tool_choice"] == "auto"
    assert with_tools["tools"][0]["function"]["name"] == "calculate"
    assert with_tools["tools"][0]["function"]["parameters"]["required"] == ["expression"]


def test_sse_lines_give_their_data_and_nothing_else() -> None:
    assert sse_data('data: {"a": 1}') == '{"a": 1}'
    assert sse_data("data:[DONE]") == "[DONE]"
    assert sse_data(": ping") is None and sse_data("event: x") is None and sse_data("") is None


def test_tool_call_fragments_are_joined_by_index() -> None:
    state = StreamState()
    fragments = [{"index": 0, "id": "call_9", "type": "function",
                  "function": {"name": "calculate", "arguments": ""}},
                 {"index": 0, "function": {"arguments": '{"expression": '}},
                 {"index": 0, "function": {"arguments": '"12 times 7"}'}}]
    for part in fragments:
        assert state.feed({"choices": [{"index": 0, "delta": {"tool_calls": [part]}}]}) == ""
    state.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    assert state.first_call() == ("call_9", "calculate", '{"expression": "12 times 7"}')
    assert state.finish_reason == "tool_calls"


def test_stream_events_that_are_not_chat_chunks_are_refused() -> None:
    state = StreamState()
    assert state.feed({"choices": [{"delta": {"content": "Hi"}}]}) == "Hi"
    assert state.feed({"choices": []}) == ""
    for bad in ({"object": "x"}, {"error": {"message": "out of memory"}},
                {"choices": ["x"]}, {"choices": [{"delta": "x"}]}):
        with pytest.raises(ValueError):
            state.feed(bad)


def test_a_call_is_accepted_only_for_an_offered_tool_with_the_users_words() -> None:
    offered = (CALCULATE, GET_CURRENT_TIME)
    user = "what is 12 times 7"
    # The user's words win over the model's arguments (as on the local path).
    assert accept_call("calculate", '{"expression": "12*7"}', offered, user) == ToolCall(
        "calculate", {"expression": "12 times 7"}, "call_1")
    assert accept_call("calculate", '{"expression": "12 times 7"}', offered, user,
                       use_words=False, call_id="x") == ToolCall(
        "calculate", {"expression": "12 times 7"}, "x")
    assert accept_call("set_timer", '{"duration": "5 minutes"}', offered, user) is None
    assert accept_call("calculate", '{"expression": "99 times 3"}', offered, user,
                       use_words=False) is None  # invented: the user said no 99
    assert accept_call("calculate", "{not json", offered, user, use_words=False) is None
    assert accept_call("calculate", '{"expression": ""}', offered, user,
                       use_words=False) is None  # fails the schema (minLength)
    assert accept_call("get_current_time", "", offered, "what time is it") == ToolCall(
        "get_current_time", {}, "call_1")
    units = accept_call("convert_units", {"value": "5", "from_unit": "miles",
                                          "to_unit": "km"}, (CONVERT_UNITS,),
                        "convert 5 miles to km", use_words=False)
    assert units is not None and units.arguments["value"] == 5


def test_text_that_may_be_a_written_out_call_is_held() -> None:
    for held in ("", "  ", "{", '{"name"', "<tool", "<tool_call>\n{", "`", "```json"):
        assert might_be_call(held), held
    for prose in ("It", " Twelve", "<b>", "`x` is"):
        assert not might_be_call(prose), prose


@pytest.mark.parametrize("text", [
    '{"name": "set_timer", "arguments": {"duration": "5 minutes"}}',
    '<tool_call>\n{"name": "set_timer", "arguments": {"duration": "5 minutes"}}\n</tool_call>',
    '```json\n{"name": "set_timer", "parameters": {"duration": "5 minutes"}}\n```',
    '{"name": "set_timer", "arguments": "{\\"duration\\": \\"5 minutes\\"}"} {"x": 1}',
    '{"type": "function", "function": {"name": "set_timer", '
    '"arguments": {"duration": "5 minutes"}}}',
])
def test_a_call_written_out_as_text_is_read(text: str) -> None:
    assert call_in_text(text) == ("set_timer", {"duration": "5 minutes"})
    assert SET_TIMER.name == "set_timer"


@pytest.mark.parametrize("text", ['{"name": "none"', "Sure!", "[1, 2]", '{"arguments": {}}'])
def test_text_that_is_no_call_gives_none(text: str) -> None:
    assert call_in_text(text) is None


def test_an_error_body_gives_the_servers_words() -> None:
    assert error_message(b'{"error": {"code": 500, "message": "model crashed"}}') == \
        "model crashed"
    assert error_message(b'{"detail": "Not Found"}') == "Not Found"
    assert error_message(b"<html>\n bad gateway </html>") == "<html> bad gateway </html>"
    assert error_message(b"x" * 1000).endswith("\u2026")
