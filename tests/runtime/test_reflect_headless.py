"""Verdict-gated speech through the headless executor (fake LLM and voice, real checks)."""

from __future__ import annotations

from collections.abc import Sequence

from desktop_agent.adapters.store.tools_builtin import current_time_tool
from desktop_agent.core.ports import ChatMessage, LlmDelta
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.runtime.headless import HeadlessExecutor
from desktop_agent.runtime.headless_units import Interrupt
from tests.fakes.llm import FakeLlm, say
from tests.fakes.tts import FakeTts

QUESTION = "How many r's are in strawberry?"


def _speaker(messages: Sequence[ChatMessage]) -> list[LlmDelta]:
    if messages[-1].content.startswith("QUESTION:"):
        return say("and that is all.")  # a continuation run: never needed here
    return say("There are 2 r's in strawberry. Berries are tasty.")


def _executor(reflection: str) -> HeadlessExecutor:
    return HeadlessExecutor(FakeLlm(_speaker), FakeTts(),
                            ToolRegistry([current_time_tool(lambda: None)]),  # type: ignore[arg-type]
                            policy=TurnPolicy(reflection=reflection))


def test_a_wrong_count_is_repaired_and_the_history_keeps_all_that_was_heard() -> None:
    with _executor("checkable") as ex:
        turn = ex.ask_text(QUESTION)
        history = ex.machine.history.messages[-1].content
    kinds = [(r.kind, r.verdict or r.text) for r in turn.reflections]
    assert kinds[0] == ("reflecting", "There are 2 r's in strawberry.")
    assert [r.verdict for r in turn.reflections if r.kind == "verdict"] == ["repair", "good"]
    assert "Berries" not in turn.reply  # the speaker was stopped after the opening
    assert turn.reply.endswith("The letter r appears three times in strawberry.")
    assert turn.heard is not None and history == turn.heard.heard_written
    assert "3 times in strawberry" in history
    (cont,) = [r for r in turn.reflections if r.kind == "continuation"]
    # The confession follows the samples played: it is there exactly when "2" was heard.
    assert cont.confessed == history.startswith("There are 2")


def test_reflection_off_says_the_speakers_words() -> None:
    with _executor("off") as ex:
        turn = ex.ask_text(QUESTION)
    assert turn.reflections == ()
    assert turn.reply == "There are two r's in strawberry. Berries are tasty."


def test_a_barge_in_on_the_opening_cancels_the_loop() -> None:
    with _executor("checkable") as ex:
        turn = ex.ask_text(QUESTION, interrupt=Interrupt(0, "never mind", after_chunks=1))
    new = turn.transitions[-1].turn_id  # the question asked after the cut
    assert [r for r in turn.reflections if r.turn_id != new and r.kind != "reflecting"] == []
    assert turn.transcript == "never mind"
