"""The grammar writer on the real default model: word problems checked end to end.

Greedy decoding is deterministic, so these are the answers of this model with this llama.cpp;
a new model may need new examples here, never a looser assert.
"""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.adapters.llm.llm_grammar import LlamaGrammarWriter
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.reflection.checks import SentenceCheck, find_check
from desktop_agent.core.reflection.grammars import EXPRESSION
from desktop_agent.core.reflection.reflector import reflect
from desktop_agent.core.reflection.stated_numbers import last_number, words_of
from desktop_agent.core.reflection.verdict import Verdict
from desktop_agent.core.reflection.word_problem_prompts import expression_messages
from desktop_agent.core.reflection.word_problems import find_word_problem

pytestmark = [pytest.mark.models, pytest.mark.slow]

APPLES = "Tom has 12 apples and gives 5 to his sister. How many apples does he have left?"
PENCILS = "A box holds 24 pencils. How many pencils are in 7 boxes?"
FLOUR = "A recipe needs 250 grams of flour per cake. How many grams do I need for 6 cakes?"


@pytest.fixture(scope="module")
def writer(llm: Any) -> LlamaGrammarWriter:
    return LlamaGrammarWriter(llm)


@pytest.mark.parametrize(("question", "right", "wrong", "value"), [
    (APPLES, "So he has 7 apples left.", "He has 9 apples left.", 7),
    (PENCILS, "7 boxes hold 168 pencils.", "That makes 150 pencils.", 168),
    (FLOUR, "You need 1500 grams of flour.", "You need 150 grams of flour for 6 cakes.", 1500),
])
def test_a_wrong_answer_is_repaired_and_a_right_one_left_alone(
        writer: LlamaGrammarWriter, question: str, right: str, wrong: str, value: int) -> None:
    good = reflect(question, right, None, None, writer)
    assert good.verdict is Verdict.GOOD and good.checker == "word_problem"
    bad = reflect(question, wrong, None, None, writer)
    print(f"{question!r}: {bad}")
    assert bad.verdict is Verdict.REPAIR and last_number(bad.correction) == value
    assert bad.flagged_word is not None and wrong.split()[bad.flagged_word][0].isdigit()


def test_an_answer_not_given_yet_is_completed(writer: LlamaGrammarWriter) -> None:
    got = reflect(PENCILS, "Each box holds 24 pencils.", None, None, writer)
    assert got.verdict is Verdict.REFINE and last_number(got.correction) == 168


def test_a_kept_prefix_answers_as_a_cold_prompt_does(llm: Any) -> None:
    problem = find_word_problem(PENCILS)
    other = find_word_problem(APPLES)
    assert problem is not None and other is not None
    cold = LlamaGrammarWriter(llm).write(expression_messages(problem.text), EXPRESSION)
    warm = LlamaGrammarWriter(llm)
    assert warm.write(expression_messages(other.text), EXPRESSION) == "12 - 5"
    llm.prefill([ChatMessage("system", "You are a voice assistant.")])  # the cache moves on

    assert warm.write(expression_messages(problem.text), EXPRESSION) == cold == "24 * 7"
    assert warm.last_stats["prompt_tokens"] < 40  # the question only, not the examples


def test_the_speakers_cache_is_put_back_after_a_run(llm: Any) -> None:
    import numpy as np

    llm.prefill([ChatMessage("system", "You are a voice assistant."),
                 ChatMessage("user", "What is the capital of France?"),
                 ChatMessage("assistant", "Paris.")])
    inner = llm._llm
    before = list(inner._input_ids)
    inner.n_tokens = len(before) - 1
    inner.eval([before[-1]])
    want = np.ctypeslib.as_array(inner._ctx.get_logits(), shape=(inner.n_vocab(),)).copy()
    problem = find_word_problem(FLOUR)
    assert problem is not None
    assert LlamaGrammarWriter(llm).write(expression_messages(problem.text), EXPRESSION) == "250 * 6"
    assert list(inner._input_ids) == before
    # Only the last token again: the rest must come from the KV cache put back.
    inner.n_tokens = len(before) - 1
    inner.eval([before[-1]])
    got = np.ctypeslib.as_array(inner._ctx.get_logits(), shape=(inner.n_vocab(),))
    assert int(got.argmax()) == int(want.argmax())
    assert float(np.abs(got - want).max()) < 1e-2


def test_a_sentence_written_under_its_grammar_keeps_the_constraint(
        writer: LlamaGrammarWriter) -> None:
    for question in ("Give me a sentence of exactly four words about cats.",
                     "Write one sentence of exactly seven words about rain.",
                     # The model's first plan runs past five words: words are chosen again.
                     "Write one sentence of exactly five words about coffee.",
                     "Write a sentence of five words where each word is longer than the one "
                     "before.",
                     'Write a sentence that starts with the word "Yesterday".'):
        check = find_check(question)
        assert isinstance(check, SentenceCheck)
        got = reflect(question, "Cats purr.", None, None, writer)
        print(f"{question!r}: {got.correction!r}")
        assert got.verdict is Verdict.REPAIR and got.correction
        assert not check.problem(got.correction) and words_of(got.correction)


def test_a_cancelled_run_writes_nothing(writer: LlamaGrammarWriter) -> None:
    token = CancelToken(TurnId(1))
    token.cancel("barge-in")
    problem = find_word_problem(FLOUR)
    assert problem is not None
    assert writer.write(expression_messages(problem.text), EXPRESSION, token) is None
    assert reflect(FLOUR, "It's 3 grams.", None, token, writer).verdict is Verdict.GOOD
