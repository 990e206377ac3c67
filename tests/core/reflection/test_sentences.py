"""A broken word constraint is repaired by a sentence written under a grammar (a fake writer)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import LlmError
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.reflection.checks import SentenceCheck, find_check
from desktop_agent.core.reflection.gate import confess, has_confession, repair_text
from desktop_agent.core.reflection.grammars import EXPRESSION, PROGRAM, sentence_grammar
from desktop_agent.core.reflection.reflector import reflect
from desktop_agent.core.reflection.reflector_prompts import (
    CONTAINS_EXAMPLE,
    EXACT_EXAMPLES,
    GROWING_EXAMPLES,
    STARTS_EXAMPLE,
    continuation_messages,
    sentence_messages,
)
from desktop_agent.core.reflection.stated_numbers import last_sentence
from desktop_agent.core.reflection.verdict import Verdict, Writers

SIX = "Write one sentence of exactly six words about the sea."


class Writer:
    def __init__(self, text: str | None, fails: bool = False) -> None:
        self.text, self.fails = text, fails
        self.asked: list[tuple[list[ChatMessage], str]] = []

    def write(self, messages: Sequence[ChatMessage], grammar: str,
              cancel: CancelToken | None = None, max_tokens: int = 64) -> str | None:
        self.asked.append((list(messages), grammar))
        if self.fails:
            raise LlmError("llm_failed", "boom")
        return self.text


def test_a_broken_constraint_is_repaired_with_a_sentence_that_keeps_it() -> None:
    writer = Writer("The sea is calm and blue.")
    got = reflect(SIX, "The sea is vast and deep and blue.", None, None, writer)
    assert got.verdict is Verdict.REPAIR and got.checker == "words"
    assert got.correction == "The sea is calm and blue."  # said after the confession
    ((messages, grammar),) = writer.asked
    assert grammar == sentence_grammar(SentenceCheck("words", n=6))
    assert messages[-1].content == f"TASK: {SIX}\nWrite the sentence now."
    assert "8 words" not in " ".join(m.content for m in messages)  # no meta-talk to echo
    # A kept constraint asks nothing.
    assert reflect(SIX, "The sea is calm and blue.", None, None, writer).verdict is Verdict.GOOD
    assert len(writer.asked) == 1


@pytest.mark.parametrize("written", [
    "The waves roll onto the.",  # cut short by the grammar: a dangling word
    "The sea is blue.",  # does not keep the constraint (never trusted blindly)
    None,  # cancelled, or only glued words were left
    "",
])
def test_no_repair_sentence_when_the_writer_gives_none_worth_saying(written: str | None) -> None:
    got = reflect(SIX, "The sea is vast and deep and blue.", None, None, Writer(written))
    assert got.verdict is Verdict.REPAIR and got.correction == ""  # a continuation, as before


def test_a_failing_writer_or_none_leaves_the_repair_to_a_continuation() -> None:
    for writer in (Writer("x", fails=True), None):
        got = reflect(SIX, "The sea is vast and deep and blue.", None, None, writer)
        assert got.verdict is Verdict.REPAIR and got.correction == ""


def test_a_continuation_of_a_sentence_task_is_not_told_what_failed() -> None:
    messages = continuation_messages(SIX, "The sea is big.", "The sentence has 4 words; it "
                                     "needs exactly 6.", sentence_task=True)
    assert "4 words" not in " ".join(m.content for m in messages)
    assert messages[-1].content.startswith(f"TASK: {SIX}")


def test_each_example_keeps_the_constraint_it_shows() -> None:
    for n, (_, sentence) in EXACT_EXAMPLES.items():
        assert not SentenceCheck("words", n=n).problem(sentence), sentence
    for n, sentence in GROWING_EXAMPLES.items():
        assert not SentenceCheck("words", n=n, increasing=True).problem(sentence), sentence
    check = find_check(CONTAINS_EXAMPLE[0])
    assert isinstance(check, SentenceCheck) and not check.problem(CONTAINS_EXAMPLE[1])
    check = find_check(STARTS_EXAMPLE[0])
    assert isinstance(check, SentenceCheck) and not check.problem(STARTS_EXAMPLE[1])


def test_the_example_matches_the_constraint() -> None:
    seven = sentence_messages("Seven words about rain, please, in one sentence: exactly 7 words.",
                              SentenceCheck("words", n=7))
    assert seven[2].content == EXACT_EXAMPLES[7][1]
    assert len(sentence_messages(SIX)) == 2  # no check: no example
    assert len(sentence_messages(SIX, SentenceCheck("words", n=30))) == 2  # none that long


def test_a_constraint_no_sentence_can_keep_has_no_grammar() -> None:
    with pytest.raises(ValueError):
        sentence_grammar(SentenceCheck("words", n=18, increasing=True))  # 18 growing lengths
    got = reflect("Write a sentence of 18 words where each word is longer than the one "
                  "before.", "I am not.", None, None, Writer("never asked"))
    assert got.verdict is Verdict.REPAIR and got.correction == ""


@pytest.mark.parametrize("gbnf", [
    EXPRESSION, PROGRAM, sentence_grammar(SentenceCheck("words", n=6)),
    sentence_grammar(SentenceCheck("words", n=5, increasing=True, contains=("house",))),
    sentence_grammar(SentenceCheck("words", contains=("river", "moon"), starts="the")),
])
def test_every_rule_a_grammar_names_is_defined(gbnf: str) -> None:
    # llama.cpp's parser is the real test (tests/adapters/llm/test_reflector_grammars.py);
    # this one runs everywhere.
    defined = {line.split(" ::= ")[0] for line in gbnf.splitlines()}
    bodies = " ".join(line.split(" ::= ", 1)[1] for line in gbnf.splitlines())
    names = set(re.findall(r"(?<![\w\"\[-])([a-z][a-z0-9-]*)(?![\w\"\]])",
                           re.sub(r'"[^"]*"|\[[^\]]*\]', " ", bodies)))
    assert "root" in defined and names <= defined, names - defined


def test_an_unfinished_sentence_is_redone_without_a_confession() -> None:
    # The speaker stopped after "A dense forest" (it repeated a reply cut by a barge-in).
    question = "Describe a forest in exactly nine words."
    said = "A dense forest"
    got = reflect(question, said, None, None,
                  Writer("The forest is deep and green with tall trees."))
    assert got.verdict is Verdict.REPAIR and got.flagged_word == 3  # past the words said
    heard = len(said.split())
    assert not confess(got.flagged_word, heard, heard)
    final = f"{said} {repair_text(got.correction, said, confessing=False)}"
    assert not has_confession(final)
    assert not SentenceCheck("words", n=9).problem(last_sentence(final))
    # A finished sentence that breaks the constraint is flagged where it starts.
    done = reflect(question, "Sure. A dense forest grows here.", None, None, Writer(""))
    assert done.flagged_word == 1


def test_with_two_writers_each_task_goes_to_its_own() -> None:
    # Beside a speaking model the computations are the larger model's and the sentences the
    # small one's (compose.reflection): a sentence task never asks the computing writer.
    sentences, computations = Writer("The sea is calm and blue."), Writer("3.5 * 60")
    writers = Writers(computations=computations, sentences=sentences)
    got = reflect(SIX, "The sea is vast and deep and blue.", None, None, writers)
    assert got.correction == "The sea is calm and blue."
    assert len(sentences.asked) == 1 and computations.asked == []
    got = reflect("How many minutes are in three and a half days of work if each day is 8 "
                  "hours?", "It is 180 minutes.", None, None, writers)
    assert got.checker == "word_problem"
    assert computations.asked and len(sentences.asked) == 1
