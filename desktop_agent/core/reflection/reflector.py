"""The reflector: a literal check when one applies, a word problem's computation, the model."""

from __future__ import annotations

import dataclasses
import logging
from typing import Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AgentError
from desktop_agent.core.reflection.checks import SentenceCheck, find_check
from desktop_agent.core.reflection.grammars import sentence_grammar
from desktop_agent.core.reflection.reflector_prompts import sentence_messages
from desktop_agent.core.reflection.stated_numbers import words_of
from desktop_agent.core.reflection.verdict import (
    GrammarWriter,
    Judgement,
    Verdict,
    VerdictJudge,
    Writers,
    writer_for,
)
from desktop_agent.core.reflection.word_problems import find_word_problem, judge_word_problem

_LOGGER = logging.getLogger(__name__)
DANGLING: Final = frozenset({
    "a", "an", "the", "of", "to", "and", "or", "but", "with", "in", "on", "at", "for", "by",
    "from", "is", "are", "was", "were", "my", "your", "our", "their", "its", "his", "her",
    "that", "this", "very", "so"})
"""Words a finished sentence does not end with: a grammar-written sentence that ends with
one was cut short to keep the word count."""


def applies(mode: str, question: str) -> bool:
    """Whether a reply to ``question`` is reflected under the setting ``mode``.

    Under 'checkable': questions a literal check understands, and word problems (their
    computation is the model's, written under a grammar; without a model to write it, the
    reply is gated but never corrected).
    """
    if mode == "on":
        return True
    return mode == "checkable" and (find_check(question) is not None
                                    or find_word_problem(question) is not None)


def reflect(question: str, utterance: str, judge: VerdictJudge | None,
            cancel: CancelToken | None = None,
            writer: GrammarWriter | Writers | None = None) -> Judgement:
    """Judge ``utterance`` as an answer to ``question``.

    A literal check decides when one applies (the model cannot see its own arithmetic or
    letter-count mistakes); a sentence that breaks a word constraint is rewritten by
    ``writer`` under a grammar that keeps it. A word problem is computed from the question
    by ``writer`` (``word_problems``). Otherwise ``judge`` (the model) decides, and without
    one the utterance stands ('good', checker 'none').

    Runs on: a worker (the model may take a second); the checks alone are microseconds.
    """
    check = find_check(question)
    if check is not None:
        got = check.judge(utterance)
        sentences = writer_for(writer, "sentences")
        if isinstance(check, SentenceCheck) and got.verdict is Verdict.REPAIR \
                and sentences is not None:
            sentence = write_sentence(question, check, sentences, cancel)
            if sentence:
                return dataclasses.replace(got, correction=sentence)
        return got
    problem = find_word_problem(question)
    computations = writer_for(writer, "computations")
    if problem is not None and (computations is not None or judge is None):
        return judge_word_problem(problem, utterance, computations, cancel)
    if judge is None:
        return Judgement(Verdict.GOOD, checker="none")
    return judge.judge(question, utterance, cancel)


def write_sentence(question: str, check: SentenceCheck, writer: GrammarWriter,
                   cancel: CancelToken | None = None) -> str:
    """A sentence for ``question`` that keeps ``check``, written under its grammar.

    '' when none could be written: cancelled, the model failed, or no sentence keeps the
    check (the reply then goes on as before: a model continuation, checked again).
    """
    try:
        grammar = sentence_grammar(check)
        text = writer.write(sentence_messages(question, check), grammar, cancel,
                            max_tokens=4 * (check.n or 12) + 8)
    except (AgentError, ValueError) as exc:
        _LOGGER.warning("turn=%s no sentence for %s: %s",
                        cancel.turn_id if cancel is not None else 0, check, exc)
        return ""
    text = (text or "").strip()
    words = words_of(text)
    if not words or check.problem(text) or words[-1].lower() in DANGLING:
        return ""  # cut short by the grammar ("A cat is a."): not worth saying
    return text
