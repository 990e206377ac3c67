"""Word problems through the headless loop on the real model (fake voice): the heard answer.

The speaker's own answer varies with the model; what is checked is the loop's contract:
whatever was said first, the last number heard is the right one, and a confession is heard
only after a wrong number was.
"""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.adapters.llm.llm_grammar import LlamaGrammarWriter
from desktop_agent.adapters.store.tools_builtin import current_time_tool
from desktop_agent.core.reflection.gate import has_confession
from desktop_agent.core.reflection.stated_numbers import last_number, numbers_in
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.runtime.headless import HeadlessExecutor
from tests.fakes.tts import FakeTts

pytestmark = [pytest.mark.models, pytest.mark.slow]


@pytest.mark.parametrize(("question", "value"), [
    ("I buy 3 notebooks at 4 dollars each and a pen for 2 dollars. How much do I spend in "
     "total?", 14),
    ("A recipe needs 250 grams of flour per cake. How many grams do I need for 6 cakes?", 1500),
    ("Sara earns 18 dollars an hour. How much does she earn in a 7 hour shift?", 126),
])
def test_the_last_number_heard_is_the_answer(llm: Any, question: str, value: int) -> None:
    policy = TurnPolicy(reflection="checkable", llm_first_token_timeout_s=120.0)
    with HeadlessExecutor(llm, FakeTts(), ToolRegistry([current_time_tool(lambda: None)]),  # type: ignore[arg-type]
                          policy=policy, writer=LlamaGrammarWriter(llm)) as ex:
        turn = ex.ask_text(question)
    heard = turn.heard.heard_written if turn.heard is not None else ""
    print(f"{question!r}: {heard!r}")
    assert turn.error is None
    assert last_number(heard) == value
    checkers = {r.checker for r in turn.reflections if r.kind == "verdict"}
    assert checkers == {"word_problem"}
    if has_confession(heard):
        before = heard[: heard.lower().find("not right")]
        assert any(n != value and n not in numbers_in(question) for n in numbers_in(before))
