"""OpenAiLlm against scripted loopback servers: the protocol, errors, cancel, the API key.

The real server (llama.cpp's llama-server) is in test_llm_openai_real.py; here small
servers of our own say exactly what a case needs: a stream, a tool call in fragments, an
HTTP error, garbage, or nothing at all (a server that accepts and stalls).
"""

from __future__ import annotations

import logging
import socket
import threading
from typing import Any

import pytest

from desktop_agent.adapters.llm.llm_openai import OpenAiLlm
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import LlmError
from desktop_agent.core.ports import ChatMessage, LlmDelta, ToolCall
from desktop_agent.core.tools.specs import BUILTIN_SPECS
from tests.adapters.llm.llm_server_rig import (
    Request,
    ScriptedServer,
    answers,
    free_port,
    scripted,
    stalls,
    streams,
    text_event,
)

SECRET = "sk-test-0123456789abcdef"
USER = [ChatMessage("system", "Be brief."), ChatMessage("user", "Tell me a joke.")]
CALC = [ChatMessage("user", "What is 12 times 7?")]


def _collect(engine: OpenAiLlm, messages: list[ChatMessage] = USER, **kw: Any
             ) -> list[LlmDelta]:
    return list(engine.stream_chat(messages, **kw))


def _text(deltas: list[LlmDelta]) -> str:
    return "".join(d.text for d in deltas)


def _error(engine: OpenAiLlm, messages: list[ChatMessage] = USER) -> LlmError:
    with pytest.raises(LlmError) as info:
        _collect(engine, messages)
    return info.value


def test_a_stream_is_spoken_piece_by_piece_with_the_request_the_server_expects() -> None:
    events = [text_event("Why "), text_event("did the chicken"), text_event(" cross?", "stop"),
              "[DONE]"]
    with scripted(streams(events)) as server:
        engine = OpenAiLlm(server.url, model="qwen-7b", api_key=SECRET)
        deltas = _collect(engine, max_tokens=40)
    assert [d.text for d in deltas] == ["Why ", "did the chicken", " cross?"]
    request = server.requests[0]
    assert request.head.startswith("POST /v1/chat/completions HTTP/1.1")
    assert request.header("Authorization") == f"Bearer {SECRET}"
    body = request.json()
    assert body["model"] == "qwen-7b" and body["stream"] is True
    assert body["max_tokens"] == 40 and "tools" not in body  # a joke needs no tool
    assert body["messages"] == [{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": "Tell me a joke."}]


def test_without_a_key_no_authorization_header_is_sent() -> None:
    with scripted(streams([text_event("Hi", "stop")])) as server:
        assert _text(_collect(OpenAiLlm(server.url))) == "Hi"
    assert server.requests[0].header("Authorization") is None


def test_a_tool_call_streamed_in_fragments_becomes_one_checked_call() -> None:
    fragments = [
        {"index": 0, "id": "call_abc", "type": "function",
         "function": {"name": "calculate", "arguments": ""}},
        {"index": 0, "function": {"arguments": '{"expression"'}},
        {"index": 0, "function": {"arguments": ': "12 times 7"}'}},
    ]
    events: list[Any] = [{"choices": [{"index": 0, "delta": {"tool_calls": [f]}}]}
                         for f in fragments]
    events += [{"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}, "[DONE]"]
    with scripted(streams(events)) as server:
        engine = OpenAiLlm(server.url)
        engine.use_words = False  # the model's own arguments, checked
        deltas = _collect(engine, CALC, tools=BUILTIN_SPECS)
    assert deltas == [LlmDelta(tool_call=ToolCall("calculate", {"expression": "12 times 7"},
                                                  "call_abc"))]
    offered = [t["function"]["name"] for t in server.requests[0].json()["tools"]]
    assert offered == ["calculate"]  # only what the router finds for the request


def _by_request(first: Any, second: Any) -> Any:
    """A handler that answers the first request with ``first``, later ones with ``second``."""
    def handler(conn: socket.socket, request: Request, server: ScriptedServer) -> None:
        (first if len(server.requests) == 1 else second)(conn, request, server)
    return handler


def test_a_call_to_a_tool_not_offered_is_dropped_and_the_turn_answered_in_prose() -> None:
    call = {"index": 0, "id": "c", "function": {"name": "delete_notes",
                                                "arguments": '{"query": "all"}'}}
    first = streams([{"choices": [{"index": 0, "delta": {"tool_calls": [call]},
                                   "finish_reason": "tool_calls"}]}, "[DONE]"])
    second = streams([text_event("It is 84.", "stop"), "[DONE]"])
    with scripted(_by_request(first, second)) as server:
        deltas = _collect(OpenAiLlm(server.url), CALC, tools=BUILTIN_SPECS)
    assert _text(deltas) == "It is 84." and all(d.tool_call is None for d in deltas)
    assert "tools" in server.requests[0].json() and "tools" not in server.requests[1].json()


def test_a_call_written_as_text_is_never_spoken() -> None:
    pieces = ['{"name": "calc', 'ulate", "arguments": {"expression": "12 * 7"}}']
    with scripted(streams([*map(text_event, pieces), "[DONE]"])) as server:
        engine = OpenAiLlm(server.url)
        deltas = _collect(engine, CALC, tools=BUILTIN_SPECS)
    # The user's words give the expression (as on the local path); no JSON was yielded.
    assert deltas == [LlmDelta(tool_call=ToolCall("calculate", {"expression": "12 times 7"},
                                                  "call_1"))]
    assert engine.last_call_text == "".join(pieces)


def test_prose_after_offered_tools_streams_once_a_sentence_cannot_be_a_call() -> None:
    with scripted(streams([text_event(" "), text_event("Twelve"), text_event(" times seven"),
                           text_event(" is 84."), text_event(" Easy!", "stop")])) as server:
        deltas = _collect(OpenAiLlm(server.url), CALC, tools=BUILTIN_SPECS)
    assert [d.text for d in deltas] == [" Twelve times seven is 84.", " Easy!"]
    assert len(server.requests) == 1


VOLUME = [ChatMessage("user", "Set the volume to thirty percent.")]


def test_words_that_claim_the_action_before_the_call_are_held_and_dropped() -> None:
    call = {"index": 0, "id": "c9", "function": {"name": "set_volume",
                                                 "arguments": '{"setting": "30 percent"}'}}
    events: list[Any] = [text_event("Sure, I'll set the volume"), text_event(" to 30 percent."),
                         {"choices": [{"index": 0, "delta": {"tool_calls": [call]},
                                       "finish_reason": "tool_calls"}]}, "[DONE]"]
    with scripted(streams(events)) as server:
        deltas = _collect(OpenAiLlm(server.url), VOLUME, tools=BUILTIN_SPECS)
    assert [d.tool_call.name for d in deltas if d.tool_call] == ["set_volume"]
    assert _text(deltas) == ""  # the claim is never yielded: the call backs it
    claim_only = [text_event("Sure, I'll set the volume to 30 percent.", "stop"), "[DONE]"]
    with scripted(streams(claim_only)) as server:
        deltas = _collect(OpenAiLlm(server.url), VOLUME, tools=BUILTIN_SPECS)
    assert _text(deltas) == "Sure, I'll set the volume to 30 percent."  # the machine refuses it


def test_a_server_that_is_down_is_unreachable_with_a_fix() -> None:
    err = _error(OpenAiLlm(f"http://127.0.0.1:{free_port()}/v1"))
    assert err.code == "server_unreachable"
    assert "llm.server_url" in err.fix and "127.0.0.1" in err.message


@pytest.mark.parametrize(("status", "body", "in_fix"), [
    (500, b'{"error": {"code": 500, "message": "model crashed"}}', "server's log"),
    (401, b'{"error": "invalid api key"}', "llm.api_key_env"),
    (404, b'{"detail": "Not Found"}', "llm.server_model"),
])
def test_an_http_error_says_the_status_and_the_servers_words(status: int, body: bytes,
                                                             in_fix: str) -> None:
    with scripted(answers(status, body)) as server:
        err = _error(OpenAiLlm(server.url, api_key=SECRET))
    assert err.code == "server_error"
    assert f"HTTP {status}" in err.message and in_fix in err.fix
    assert SECRET not in err.describe()


@pytest.mark.parametrize("handler", [
    answers(200, b"<html>hello</html>", "text/html"),
    streams(["{not json"]),
    streams([{"object": "list", "data": []}]),
])
def test_an_answer_that_is_not_a_chat_stream_is_a_bad_response(handler: Any) -> None:
    with scripted(handler) as server:
        err = _error(OpenAiLlm(server.url))
    assert err.code == "bad_response" and "chat/completions" in err.fix


def test_a_stream_cut_before_its_end_is_a_bad_response() -> None:
    def cut(conn: socket.socket, _r: Request, _s: ScriptedServer) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                     b'data: {"choices": [{"delta": {"content": "Hal"}}]}\n\n')

    with scripted(cut) as server:
        engine = OpenAiLlm(server.url)
        pieces: list[str] = []
        with pytest.raises(LlmError) as info:
            for delta in engine.stream_chat(USER):
                pieces.append(delta.text)
    assert pieces == ["Hal"] and info.value.code == "bad_response"


def test_a_server_that_stalls_times_out_and_is_told() -> None:
    with scripted(stalls) as server:
        err = _error(OpenAiLlm(server.url, read_timeout_s=0.3))
        assert server.hung_up.wait(30)  # the client closed its side
    assert err.code == "server_timeout" and "0.3 s" in err.message


def test_a_cancel_ends_a_stalled_request_at_once_and_closes_the_connection() -> None:
    """No byte ever comes: only the cancel watcher can end the read (timeout: 10 min)."""
    cancel = CancelToken()
    outcome: list[Any] = []
    with scripted(stalls) as server:
        engine = OpenAiLlm(server.url, read_timeout_s=600)

        def consume() -> None:
            try:
                outcome.append(list(engine.stream_chat(USER, cancel)))
            except Exception as exc:  # the test reports it below
                outcome.append(exc)

        reader = threading.Thread(target=consume, daemon=True)
        reader.start()
        assert server.accepted.wait(30)
        while not server.requests:  # the request arrived in full
            assert reader.is_alive()
            server.release.wait(0.01)
        cancel.cancel("barge-in")
        reader.join(30)
        assert not reader.is_alive(), "the stream did not stop after the cancel"
        assert server.hung_up.wait(30)
    assert outcome == [[]]  # ended quietly, nothing yielded, no error


def test_a_cancel_mid_stream_stops_at_the_next_chunk() -> None:
    cancel = CancelToken()
    events = [text_event("One"), text_event(" two")]
    with scripted(streams(events, then_stall=True)) as server:
        got: list[str] = []
        for delta in OpenAiLlm(server.url, read_timeout_s=600).stream_chat(USER, cancel):
            got.append(delta.text)
            cancel.cancel("barge-in")
        assert server.hung_up.wait(30)
    assert got == ["One"]


def test_a_remote_server_needs_to_be_allowed_explicitly() -> None:
    with pytest.raises(LlmError) as info:
        OpenAiLlm("http://192.168.1.20:8000/v1")
    assert info.value.code == "server_not_local" and "llm.server_url" in info.value.fix
    assert OpenAiLlm("https://gpu.example:8000/v1", allow_remote=True).server.port == 8000
    with pytest.raises(LlmError) as bad:
        OpenAiLlm("gpu.example:8000")
    assert bad.value.code == "server_url_invalid"


def test_the_api_key_is_never_in_repr_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    engine = OpenAiLlm(f"http://127.0.0.1:{free_port()}/v1", api_key=SECRET)
    assert SECRET not in repr(engine) and "api_key=set" in repr(engine)
    with scripted(answers(500, b"boom")) as server:
        for url in (server.url, f"http://127.0.0.1:{free_port()}/v1"):
            engine = OpenAiLlm(url, api_key=SECRET)
            with pytest.raises(LlmError) as info:
                _collect(engine, CALC, tools=BUILTIN_SPECS)
            assert SECRET not in info.value.describe()
    assert SECRET not in caplog.text


def test_the_runtime_hooks_are_harmless() -> None:
    engine = OpenAiLlm(f"http://127.0.0.1:{free_port()}/v1")  # nothing listens: no request
    engine.warm("You are helpful.", BUILTIN_SPECS)
    assert engine.prefill(USER, BUILTIN_SPECS, "what is") == 0
    assert engine.count_tokens("") == 0
    assert engine.count_tokens("twelve characters long") >= len("twelve characters long") // 4


def test_a_finished_reply_from_a_server_that_never_closes_ends_without_error() -> None:
    with scripted(streams([text_event("Done.", "stop")], then_stall=True)) as server:
        deltas = _collect(OpenAiLlm(server.url, read_timeout_s=0.3))
    assert _text(deltas) == "Done."


def test_the_reflector_on_a_server_asks_for_the_verdict_schema_and_reads_it() -> None:
    from desktop_agent.adapters.llm.verdict_server import ServerVerdictJudge
    from desktop_agent.core.reflection.reflector_prompts import VERDICT_SCHEMA
    from desktop_agent.core.reflection.verdict import Verdict

    answer = ['{"verdict": "rep', 'air", "guidance": "Two plus two is four."}']
    with scripted(streams([*map(text_event, answer), "[DONE]"])) as server:
        judge = ServerVerdictJudge(OpenAiLlm(server.url))
        judgement = judge.judge("What is 2 plus 2?", "Two plus two is five.", CancelToken())
        assert judge.judge("q", "u", _cancelled()).verdict is Verdict.GOOD
    assert judgement.verdict is Verdict.REPAIR
    assert judgement.guidance == "Two plus two is four."
    assert len(server.requests) == 1  # the cancelled judgement sent nothing
    body = server.requests[0].json()
    assert body["temperature"] == 0.0 and "tools" not in body
    assert body["response_format"]["json_schema"]["schema"] == VERDICT_SCHEMA
    assert "UTTERANCE: Two plus two is five." in body["messages"][-1]["content"]


def _cancelled() -> CancelToken:
    token = CancelToken()
    token.cancel("barge-in")
    return token
