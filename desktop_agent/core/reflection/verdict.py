"""The reflector's answer: a verdict, its guidance, and where the flagged claim was said."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Protocol

from desktop_agent.core.cancel import CancelToken

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
    """What decided: 'arithmetic', 'letters', 'units', 'dates', 'words', 'model', 'none'."""


class VerdictJudge(Protocol):
    """A model that judges an utterance when no literal check applies (adapters)."""

    def judge(self, question: str, utterance: str, cancel: CancelToken | None) -> Judgement:
        """The verdict on ``utterance`` as an answer to ``question``. Runs on: a worker."""
        ...
