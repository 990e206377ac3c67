"""OpenAiLlm against a REAL llama.cpp server started here on loopback.

The server is llama.cpp's own ``llama-server`` (built by ``scripts/setup.sh test`` from the
llama.cpp that the pinned llama-cpp-python sdist vendors, portable CPU flags) serving the
app's default model, Qwen2.5-0.5B, on 127.0.0.1 and a free port: one server for the module,
one slot (``-np 1``), so a request the server failed to stop would hold up the next one.
A server that does not start (an illegal instruction included) fails with its log's path.
Figures are printed, not asserted.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.adapters.llm.llm_openai import OpenAiLlm
from desktop_agent.adapters.store.tools_builtin import default_tools
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.tools.specs import BUILTIN_SPECS
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.runtime.headless import HeadlessExecutor
from tests.adapters.llm.llm_server_rig import LlamaServer
from tests.fakes.tts import FakeTts

pytestmark = [pytest.mark.models, pytest.mark.slow]

PATIENT = TurnPolicy(llm_first_token_timeout_s=300, tool_timeout_s=300, tts_timeout_s=300)
"""A shared 2-core machine may be slow; the timeout path has its own tests."""


@pytest.fixture(scope="module")
def server(models: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[LlamaServer]:
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    t0 = time.perf_counter()
    with LlamaServer(Path(models["llm"].path), log) as running:
        print(f"\nllama-server ready in {time.perf_counter() - t0:.1f} s on {running.url}")
        yield running


def _engine(server: LlamaServer, **kw: Any) -> OpenAiLlm:
    return OpenAiLlm(server.url, read_timeout_s=300, **kw)


def _slot_busy(server: LlamaServer) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/slots", timeout=30) as r:
        return any(slot.get("is_processing") for slot in json.load(r))


def test_a_reply_streams_in_pieces_from_the_real_server(server: LlamaServer) -> None:
    t0 = time.perf_counter()
    pieces = [d.text for d in _engine(server).stream_chat(
        [ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", "Say hello to Anna.")],
        max_tokens=16)]
    print(f"\n{len(pieces)} pieces in {time.perf_counter() - t0:.2f} s: {''.join(pieces)!r}")
    assert len(pieces) > 1 and all(isinstance(p, str) for p in pieces)
    assert "".join(pieces).strip()


def test_a_tool_call_round_trip_through_the_turn_machine(server: LlamaServer) -> None:
    """The server's model calls the calculator; the tool runs; the answer is spoken."""
    tts = FakeTts()
    t0 = time.perf_counter()
    with HeadlessExecutor(_engine(server), tts, default_tools(), policy=PATIENT,
                          max_tokens=40) as executor:
        turn = executor.ask_text("What is 12 times 7?")
    print(f"\nround trip in {time.perf_counter() - t0:.1f} s: {turn.reply!r}")
    assert turn.error is None, turn.error
    assert turn.tool_calls == ("calculate",)
    assert turn.tool_commands[0].call.arguments == {"expression": "12 times 7"}
    assert "84" in turn.reply or "eighty-four" in turn.reply.lower()
    assert turn.transition_lines()[-1] == "ASSISTANT_SPEAKING->LISTENING (reply_done)"


def test_a_cancel_mid_stream_stops_it_and_the_server_stays_usable(server: LlamaServer) -> None:
    engine = _engine(server)
    cancel = CancelToken()
    story = [ChatMessage("user", "Tell me a long story about a dragon and a knight.")]
    stream = engine.stream_chat(story, cancel, max_tokens=400)
    first = next(stream)
    assert first.text
    cancel.cancel("barge-in")
    t0 = time.perf_counter()
    rest = list(stream)  # at most the piece already read before the cancel was seen
    stopped_s = time.perf_counter() - t0
    assert len(rest) <= 1
    deadline = time.monotonic() + 120
    while _slot_busy(server):  # the server noticed the hang-up and freed its one slot
        assert time.monotonic() < deadline, "the server kept generating for the lost client"
    idle_s = time.perf_counter() - t0
    answer = "".join(d.text for d in engine.stream_chat(
        [ChatMessage("user", "Say yes.")], max_tokens=4))
    print(f"\nstream ended {stopped_s * 1000:.0f} ms after the cancel; the server idle after "
          f"{idle_s:.2f} s; next answer {answer!r}")
    assert answer.strip()


def test_chit_chat_offers_no_tools_and_gets_prose(server: LlamaServer) -> None:
    deltas = list(_engine(server).stream_chat(
        [ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", "Good morning!")],
        tools=BUILTIN_SPECS, max_tokens=12))
    assert deltas and all(d.tool_call is None for d in deltas)
    assert "".join(d.text for d in deltas).strip()


def test_the_reflector_on_the_real_server_answers_in_the_verdict_schema(
        server: LlamaServer) -> None:
    """llama-server enforces the schema: the 0.5B's answer is always a valid verdict."""
    from desktop_agent.adapters.llm.verdict_server import ServerVerdictJudge

    judge = ServerVerdictJudge(_engine(server))
    t0 = time.perf_counter()
    judgement = judge.judge("What is 2 plus 2?", "Two plus two is five.", CancelToken())
    print(f"\nverdict {judgement.verdict.value!r} in {time.perf_counter() - t0:.1f} s: "
          f"{judge.last_raw}")
    assert judge.last_raw is not None
    data = json.loads(judge.last_raw)
    assert data["verdict"] in ("good", "refine", "repair", "working")
    assert isinstance(data["guidance"], str)


def test_the_settings_test_button_asks_the_real_server(server: LlamaServer,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop_agent.adapters.llm.llm_probe import probe_llm_server
    from desktop_agent.core.errors import LlmError

    said = probe_llm_server({"server_url": server.url, "server_model": "", "api_key_env": ""})
    assert said.startswith(f"127.0.0.1:{server.port} answered") or " answered '" in said, said
    assert said.endswith(" ms")
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(LlmError) as no_key:
        probe_llm_server({"server_url": server.url, "api_key_env": "NO_SUCH_KEY_VAR"})
    assert no_key.value.code == "server_key_missing" and "NO_SUCH_KEY_VAR" in no_key.value.fix
    with pytest.raises(LlmError) as down:
        probe_llm_server({"server_url": "http://127.0.0.1:9/v1"}, timeout_s=2.0)
    assert down.value.code.startswith("server_"), down.value.describe()
