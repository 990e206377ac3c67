"""The reflector's answer: a verdict, its guidance, and where the flagged claim was said."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Literal, Protocol

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.ports import ChatMessage

MODES: Final = ("off", "on", "checkable")
"""Settings values: never reflect, always reflect, reflect when a literal check applies."""


class Verdict(StrEnum):
    """What happens to the speaking stream."""

    GOOD = "good"
    """Silent: the reply ends when its audio ends."""
    REFINE = "refine"
    """Flow on: continue with connective words and fold the guidance in."""
    REPAIR = "repair"
    """Cut at the next word boundary and continue with a spoken self-repair."""
    WORKING = "working"
    """Unfinished, not wrong: keep speaking and check again when the segment ends."""


@dataclass(frozen=True, slots=True)
class Judgement:
    """One reflection on the utterance so far."""

    verdict: Verdict
    guidance: str = ""
    """What is wrong or missing and the correct substance ('' when good)."""
    correction: str = ""
    """A sentence with the correct substance, spoken as the continuation ('23 times 47 is
    1081'); '' when the model must write the continuation from ``guidance``."""
    flagged_word: int | None = None
    """Index of the first whitespace-separated word of the flagged claim in the utterance
    (what the confession gate compares with the words heard); None when not located."""
    checker: str = "model"
    """What decided: 'arithmetic', 'letters', 'units', 'dates', 'words', 'word_problem',
    'model', 'none'."""


class VerdictJudge(Protocol):
    """A model that judges an utterance when no literal check applies (adapters)."""

    def judge(self, question: str, utterance: str, cancel: CancelToken | None) -> Judgement:
        """The verdict on ``utterance`` as an answer to ``question``. Runs on: a worker."""
        ...


class GrammarWriter(Protocol):
    """The model writing under a grammar, greedily (adapters): the reflector's own runs.

    A word problem's expression and a sentence that keeps a word constraint are written this
    way (``core.reflection.grammars`` has the grammars, ``word_problems`` the prompts).
    """

    def write(self, messages: Sequence[ChatMessage], grammar: str,
              cancel: CancelToken | None = None, max_tokens: int = 64) -> str | None:
        """The model's greedy reply to ``messages`` under the GBNF ``grammar``.

        Returns None when cancelled, and '' when the grammar would force an answer the
        model does not mean (words glued together). Raises ``LlmError`` when the model
        fails. Runs on: a worker (the model's thread).
        """
        ...


@dataclass(frozen=True, slots=True)
class Writers:
    """Two models writing under a grammar, each task by the one measured better at it."""

    computations: GrammarWriter
    """A word problem's expression and program (beside a speaking model: the larger one)."""
    sentences: GrammarWriter
    """A sentence that keeps a word constraint (the small model: fewer sentences cut short)."""


def writer_for(writer: GrammarWriter | Writers | None,
               task: Literal["computations", "sentences"]) -> GrammarWriter | None:
    """The writer of ``task`` ('computations' or 'sentences') in ``writer``."""
    if isinstance(writer, Writers):
        return writer.sentences if task == "sentences" else writer.computations
    return writer
