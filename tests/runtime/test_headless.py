"""The headless executor: the app's turn machine driven by real or fake engines.

Fake engines (tests/fakes/tts.py) make the deterministic cases: the exact transitions,
a tool call, failures and timeouts with their codes, hands-free input, history across
turns. The ``models`` tests run the real default models through the same executor.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

from desktop_agent.adapters.store.tools_builtin import current_time_tool, default_tools
from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT
from desktop_agent.core.errors import LlmError
from desktop_agent.core.ports import ChatMessage, LlmDelta, ToolCall
from desktop_agent.core.text.normalize import normalize_for_speech
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.runtime.headless import HeadlessExecutor
from tests.fakes.asr import FakeAsr
from tests.fakes.llm import FakeLlm, say, says_the_hour
from tests.fakes.tts import SAMPLES_PER_CHAR, FakeTts

ANSWER = "Hi there. How can I help you today?"
TIME_CALL = ToolCall("get_current_time", {}, "call-1")
FIXED_NOW = dt.datetime(2026, 11, 30, 14, 5, tzinfo=dt.UTC)

SPOKEN_TURN = [
    "LISTENING->USER_SPEAKING (ptt_pressed)",
    "USER_SPEAKING->PROCESSING (ptt_released)",
    "PROCESSING->ASSISTANT_SPEAKING (playback_started)",
    "ASSISTANT_SPEAKING->LISTENING (reply_done)",
]


def _fixed_tools() -> ToolRegistry:
    return ToolRegistry([current_time_tool(lambda: FIXED_NOW)])


@pytest.fixture
def make() -> Iterator[Any]:
    """make(llm, tts=..., asr=..., **kwargs) -> a HeadlessExecutor closed after the test."""
    made: list[HeadlessExecutor] = []

    def _make(llm: FakeLlm, tts: FakeTts | None = None, asr: FakeAsr | None = None,
              tools: ToolRegistry | None = None, **kwargs: Any) -> HeadlessExecutor:
        executor = HeadlessExecutor(llm, tts or FakeTts(), tools or _fixed_tools(), asr,
                                    **kwargs)
        made.append(executor)
        return executor

    yield _make
    for executor in made:
        executor.close()


def _answer(text: str) -> FakeLlm:
    return FakeLlm(lambda messages: say(text))


# --- fakes: deterministic ------------------------------------------------------------------------


def test_a_typed_question_is_answered_through_the_machine(make: Any) -> None:
    tts = FakeTts()
    turn = make(_answer(ANSWER), tts).ask_text("  hello there ")
    assert turn.error is None
    assert turn.transcript == "hello there"
    assert turn.reply == ANSWER
    assert turn.transition_lines() == SPOKEN_TURN
    # The first clause is released early (first_clause_chunker), then the rest, and every
    # sample the voice made was played: two Synthesize jobs, all audio in the buffer.
    assert tts.texts == ["Hi there.", "How can I help you today?"]
    assert len(turn.audio) == sum(len(t) for t in tts.texts) * SAMPLES_PER_CHAR
    assert turn.reply_audio_s == pytest.approx(len(turn.audio) / 16_000)
    assert turn.heard is not None and not turn.heard.interrupted
    for stage in ("asr", "llm_first_token", "tts_first_chunk", "first_audio", "llm_total",
                  "tts_total", "turn_total"):
        assert turn.timings_ms[stage] >= 0, stage
    assert turn.timings_ms["llm_first_token"] <= turn.timings_ms["llm_total"]
    assert turn.timings_ms["tts_first_chunk"] <= turn.timings_ms["tts_total"]


def test_text_is_normalised_for_speech_and_the_reply_is_what_was_said(make: Any) -> None:
    written = "It costs $5 at 14:30."
    tts = FakeTts()
    turn = make(_answer(written), tts).ask_text("how much")
    # Each clause is normalised on its own (the first one is released early).
    assert len(tts.texts) == 2
    assert " ".join(tts.texts) == "It costs five dollars at two thirty p m."
    assert turn.reply == normalize_for_speech(written) == "It costs five dollars at two thirty p m."
    assert not any(ch.isdigit() for ch in turn.reply)


def test_a_spoken_question_goes_through_asr(make: Any) -> None:
    asr = FakeAsr("What is the capital of France?")
    llm = _answer("Paris is the capital of France.")
    audio = np.zeros(16_000, dtype=np.float32)
    turn = make(llm, asr=asr).ask_audio(audio)
    assert asr.heard == [16_000]
    assert turn.transcript == "What is the capital of France?"
    assert turn.reply == "Paris is the capital of France."
    assert llm.prompts[0][-1] == ChatMessage("user", "What is the capital of France?")
    assert turn.transition_lines() == SPOKEN_TURN


def test_no_speech_ends_the_turn_without_a_reply(make: Any) -> None:
    llm = _answer(ANSWER)
    turn = make(llm, asr=FakeAsr("")).ask_audio(np.zeros(8_000, dtype=np.float32))
    assert (turn.transcript, turn.reply, turn.tool_calls, turn.error) == ("", "", (), None)
    assert len(turn.audio) == 0 and llm.prompts == []
    assert turn.transition_lines()[-1] == "PROCESSING->LISTENING (no_speech)"
    assert "asr" in turn.timings_ms and "llm_first_token" not in turn.timings_ms


def test_a_doubtful_stock_phrase_is_no_speech(make: Any) -> None:
    turn = make(_answer(ANSWER), asr=FakeAsr("Thank you.", no_speech_prob=0.9)).ask_audio(
        np.zeros(8_000, dtype=np.float32))
    assert turn.transcript == "" and turn.reply == ""


def test_hands_free_input_opens_and_closes_the_turn(make: Any) -> None:
    turn = make(_answer(ANSWER), asr=FakeAsr("hello")).ask_audio(
        np.zeros(8_000, dtype=np.float32), mode="hands_free")
    assert [line.split(" ", 1)[1] for line in turn.transition_lines()[:2]] == [
        "(speech_started)", "(speech_ended)"]
    assert turn.reply == ANSWER


def test_a_read_tool_call_speaks_the_tools_own_sentence(make: Any) -> None:
    llm = FakeLlm(lambda messages: [LlmDelta(tool_call=TIME_CALL)])
    turn = make(llm).ask_text("What time is it?")
    assert turn.error is None
    assert turn.tool_calls == ("get_current_time",)
    assert turn.transition_lines() == [
        "LISTENING->USER_SPEAKING (ptt_pressed)",
        "USER_SPEAKING->PROCESSING (ptt_released)",
        "PROCESSING->WAITING_FOR_TOOL (tool_call)",
        "WAITING_FOR_TOOL->ASSISTANT_SPEAKING (playback_started)",
        "ASSISTANT_SPEAKING->LISTENING (reply_done)",
    ]
    assert len(llm.prompts) == 1  # no second run: the result is the answer
    assert turn.reply.startswith("It is two oh five p m on Monday")


def test_when_the_model_answers_after_a_tool_a_fumbled_answer_is_guarded(make: Any) -> None:
    def script(messages: Sequence[ChatMessage]) -> list[LlmDelta]:
        if messages[-1].role == "user":
            return [LlmDelta(tool_call=TIME_CALL)]
        return say('{"time": "14:05"}')  # a fumbled answer: the tool's sentence is spoken

    llm = FakeLlm(script)
    turn = make(llm, policy=TurnPolicy(speak_tool_results=False)).ask_text("What time is it?")
    assert turn.error is None
    assert "WAITING_FOR_TOOL->PROCESSING (tool_result)" in turn.transition_lines()
    second = llm.prompts[1]
    assert second[-1].role == "tool" and second[-1].content.startswith("It is 14:05 on Monday")
    assert turn.reply.startswith("It is two oh five p m on Monday")


def test_a_good_answer_after_a_tool_is_kept(make: Any) -> None:
    def script(messages: Sequence[ChatMessage]) -> list[LlmDelta]:
        if messages[-1].role == "user":
            return [LlmDelta(tool_call=TIME_CALL)]
        return say("It is five past two in the afternoon.")

    turn = make(FakeLlm(script), policy=TurnPolicy(speak_tool_results=False)).ask_text(
        "What time is it?")
    assert turn.reply == "It is five past two in the afternoon."


def test_an_llm_failure_takes_the_error_path_with_its_code(make: Any) -> None:
    def script(messages: Sequence[ChatMessage]) -> list[LlmDelta]:
        raise LlmError("llm_crashed", "The model crashed.", "Reinstall it.")

    turn = make(FakeLlm(script)).ask_text("hello")
    assert turn.error is not None
    assert turn.error.describe() == "[llm_crashed] The model crashed. Fix: Reinstall it."
    assert turn.reply == "" and len(turn.audio) == 0
    assert turn.transition_lines()[-2:] == ["PROCESSING->ERROR (llm_failed)",
                                            "ERROR->LISTENING (apology_done)"]


def test_an_untyped_failure_gets_a_stage_code_and_a_fix(make: Any) -> None:
    def script(messages: Sequence[ChatMessage]) -> list[LlmDelta]:
        raise RuntimeError("boom")

    turn = make(FakeLlm(script)).ask_text("hello")
    assert turn.error is not None and turn.error.code == "llm_failed"
    assert "RuntimeError: boom" in turn.error.message and "doctor" in turn.error.fix


def test_a_tts_failure_takes_the_error_path(make: Any) -> None:
    turn = make(_answer(ANSWER), FakeTts(fail_on="Hi")).ask_text("hello")
    assert turn.error is not None and turn.error.code == "voice_broken"
    assert turn.transition_lines()[-2:] == ["PROCESSING->ERROR (tts_failed)",
                                            "ERROR->LISTENING (apology_done)"]
    assert turn.reply == ""


def test_a_stage_past_its_timeout_fails_the_turn(make: Any) -> None:
    gate = threading.Event()
    llm = FakeLlm(lambda messages: say("Too late."), gate=gate)
    executor = make(llm, policy=TurnPolicy(llm_first_token_timeout_s=0.05))
    try:
        turn = executor.ask_text("hello")
    finally:
        gate.set()
    assert turn.error is not None and turn.error.code == "llm_timeout"
    assert turn.transition_lines()[-2:] == ["PROCESSING->ERROR (llm_timeout)",
                                            "ERROR->LISTENING (apology_done)"]
    # The late answer of the cancelled run never reaches the next turn.
    llm.gate = None
    llm.script = lambda messages: say("On time.")
    assert executor.ask_text("again").reply == "On time."


def test_history_carries_what_was_said_into_the_next_turn(make: Any) -> None:
    llm = _answer(ANSWER)
    executor = make(llm)
    executor.ask_text("first question")
    executor.ask_text("second question")
    roles = [(m.role, m.content) for m in llm.prompts[1][1:]]
    assert roles == [("user", "first question"), ("assistant", ANSWER),
                     ("user", "second question")]


def test_an_empty_reply_is_never_silence(make: Any) -> None:
    turn = make(FakeLlm(lambda messages: [])).ask_text("hello")
    assert turn.error is None
    assert turn.reply == "Sorry, I didn't catch that. Could you say it another way?"
    assert turn.transition_lines()[-1] == "ASSISTANT_SPEAKING->LISTENING (reply_done)"


def test_a_question_without_an_asr_engine_is_a_typed_error(make: Any) -> None:
    turn = make(_answer(ANSWER)).ask_audio(np.zeros(800, dtype=np.float32))
    assert turn.error is not None and turn.error.code == "asr_not_loaded"


# --- the real default models ---------------------------------------------------------------------


@pytest.fixture
def real(llm: Any, tts: Any, asr: Any) -> Iterator[HeadlessExecutor]:
    """A fresh executor (an empty history) on the session's real engines.

    The LLM is warmed on the system prompt as ``load_engines`` and the app's LLM worker do,
    and the stage timeouts are generous: these tests prove the real engines answer through
    the machine, not how fast a shared CI machine is (the timeout path is tested above).
    """
    tools = default_tools()
    llm.warm(SYSTEM_PROMPT, tools.specs)
    patient = TurnPolicy(asr_timeout_s=120, llm_first_token_timeout_s=120, tool_timeout_s=120,
                         tts_timeout_s=120)
    executor = HeadlessExecutor(llm, tts, tools, asr, policy=patient)
    yield executor
    executor.close()


@pytest.mark.models
@pytest.mark.slow
def test_real_models_answer_a_typed_question(real: HeadlessExecutor) -> None:
    turn = real.ask_text("What is the capital of France?")
    assert turn.error is None, turn.error
    assert "paris" in turn.reply.lower()
    assert turn.transition_lines()[-1] == "ASSISTANT_SPEAKING->LISTENING (reply_done)"
    assert turn.sample_rate == 22050 and turn.reply_audio_s > 0.8
    assert np.abs(turn.audio.astype(np.int32)).max() > 1000  # real speech, not silence


@pytest.mark.models
@pytest.mark.slow
def test_real_models_call_the_time_tool(real: HeadlessExecutor) -> None:
    turn = real.ask_text("What time is it?")
    assert turn.error is None, turn.error
    assert turn.tool_calls == ("get_current_time",)
    assert "PROCESSING->WAITING_FOR_TOOL (tool_call)" in turn.transition_lines()
    assert says_the_hour(turn.reply), turn.reply



@pytest.mark.models
@pytest.mark.slow
def test_real_models_answer_a_spoken_question(real: HeadlessExecutor, speak: Any) -> None:
    turn = real.ask_audio(speak("What is the capital of Italy?"))
    assert turn.error is None, turn.error
    assert "italy" in turn.transcript.lower() and "rome" in turn.reply.lower()
    assert turn.timings_ms["asr"] > 0


def test_each_turn_knows_todays_date_and_time_zone(make: Any) -> None:
    llm = _answer(ANSWER)
    executor = make(llm, wall=lambda: FIXED_NOW)
    executor.ask_text("hello")
    system = llm.prompts[0][0]
    assert system.role == "system"
    assert system.content.endswith("Today is Monday, 30 November 2026; the time zone is UTC.")
