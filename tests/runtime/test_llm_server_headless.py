"""A server LLM that is down or slow, through the app's turn machine (headless executor).

The engine is the real ``OpenAiLlm``; the "servers" are a closed port and a loopback
server of our own that accepts the request and never answers. The turn must fail the way
a local engine's failure does: ERROR with the engine's code, the spoken apology, back to
LISTENING; a slow server first gets the filler at ``filler_after_s``.
"""

from __future__ import annotations

from desktop_agent.adapters.llm.llm_openai import OpenAiLlm
from desktop_agent.adapters.store.tools_builtin import default_tools
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.runtime.headless import HeadlessExecutor
from tests.adapters.llm.llm_server_rig import free_port, scripted, stalls
from tests.fakes.tts import FakeTts

FAILED_TURN = [
    "LISTENING->USER_SPEAKING (ptt_pressed)",
    "USER_SPEAKING->PROCESSING (ptt_released)",
]


def _apologies(executor: HeadlessExecutor) -> list[str]:
    """Record the apologies the machine asks to be spoken (headless answers them at once)."""
    said: list[str] = []
    speak = executor.speak_apology

    def record(command: cmd.SpeakApology) -> None:
        said.append(command.text)
        speak(command)

    executor._handlers.add(cmd.SpeakApology, record)
    return said


def test_a_server_that_is_down_fails_the_turn_with_an_apology_then_listens() -> None:
    engine = OpenAiLlm(f"http://127.0.0.1:{free_port()}/v1", connect_timeout_s=2)
    with HeadlessExecutor(engine, FakeTts(), default_tools()) as executor:
        apologies = _apologies(executor)
        turn = executor.ask_text("Tell me a joke.")
        assert turn.error is not None and turn.error.code == "server_unreachable"
        assert "llm.server_url" in turn.error.fix
        assert turn.transition_lines() == [*FAILED_TURN, "PROCESSING->ERROR (llm_failed)",
                                           "ERROR->LISTENING (apology_done)"]
        assert len(apologies) == 1 and apologies[0]
        assert turn.reply == ""
        # Back to listening: the next question is taken (and fails the same way).
        assert executor.ask_text("Are you there?").error is not None


def test_a_slow_server_gets_the_filler_then_the_stage_timeout_and_an_apology() -> None:
    policy = TurnPolicy(filler_after_s=0.2, llm_first_token_timeout_s=1.5)
    tts = FakeTts()
    with scripted(stalls) as server:
        engine = OpenAiLlm(server.url, read_timeout_s=600)  # only the machine's timeout ends it
        with HeadlessExecutor(engine, tts, default_tools(), policy=policy) as executor:
            apologies = _apologies(executor)
            turn = executor.ask_text("Tell me a joke.")
            assert server.hung_up.wait(30), "the cancelled request's connection stayed open"
    assert turn.error is not None and turn.error.code == "llm_timeout"
    assert tts.texts == ["One moment."]
    assert turn.timings_ms["filler"] >= 200  # said once the wait passed filler_after_s
    assert turn.transition_lines() == [
        *FAILED_TURN, "PROCESSING->ASSISTANT_SPEAKING (playback_started)",
        "ASSISTANT_SPEAKING->ERROR (llm_timeout)", "ERROR->LISTENING (apology_done)"]
    assert len(apologies) == 1
    assert len(server.requests) == 1
