"""The records of a grounded spoken answer: claims, quotes, spoken units, the plan.

Everything here is frozen: a unit handed to synthesis is never edited afterwards, and a
new question (or a repeat) gets new units with a new generation, never changed old ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Final, Literal, Protocol

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge.index import Passage

Role = Literal["answer", "condition", "detail"]
"""What a claim is to the question: the answer, a condition that keeps the answer true,
or optional detail (offered, not pushed)."""

ROLES: tuple[Role, ...] = ("answer", "condition", "detail")


Calculate = Callable[[str], "Fraction | float"]
"""Works out an arithmetic expression exactly ("6 * 1/2" -> 3): the project's calculator,
``core.tools.calc.evaluate``, handed in by the caller (``core.tools`` sits above this
package). Raises ``AgentError`` when it cannot."""

CALCULATION_FILE: Final = "calc:"
"""``Quote.file`` (and the start of ``Quote.passage_id``) of a calculation's evidence."""


@dataclass(frozen=True, slots=True)
class Calculation:
    """A number worked out from numbers the passages state ("half of 6 euros is 3 euros")."""

    expression: str
    """Arithmetic over the stated numbers, as the calculator (``core/tools/calc``) reads it:
    "6 * 1 / 2"."""
    result: str
    """The result as spoken in the claim, e.g. "3" or "12.50"."""
    unit: str = ""
    """The unit of every amount in it ("euros", "£"), '' for plain numbers."""
    said: str = ""
    """The calculation in words, shown as evidence: "half of 6 euros = 3 euros"."""
    operands: tuple[str, ...] = ()
    """The numbers taken from the passages ("6"; a percentage's "25"): each must be in a
    cited passage and in ``expression``."""


@dataclass(frozen=True, slots=True)
class Claim:
    """One proposed statement and the passages it cites."""

    key: str
    """Unique within one answer, e.g. "c1"."""
    text: str
    """The statement as it would be spoken."""
    evidence: tuple[str, ...]
    """Passage ids (``Passage.passage_id``) the claim is checked against."""
    role: Role = "answer"
    calculation: Calculation | None = None
    """Set on a derived claim: its result is not in the passages, its operands are."""


@dataclass(frozen=True, slots=True)
class Quote:
    """The words of one passage that support a unit (shown, never spoken)."""

    passage_id: str
    file: str
    title: str
    quote: str
    """The supporting words, verbatim from ``Passage.text``."""
    page: int | None = None


@dataclass(frozen=True, slots=True)
class SpokenUnit:
    """One piece of speech, planned once and never changed."""

    key: str
    """"u1", "u2", ... in speaking order; "o1", ... for offered units."""
    generation: int
    """The answer generation this unit belongs to; a newer question makes it stale."""
    text: str
    """What is spoken: no source names, no ids."""
    claim_keys: tuple[str, ...]
    evidence: tuple[str, ...]
    """Passage ids of the unit's claims, in order, without repeats."""
    quotes: tuple[Quote, ...]

    @property
    def words(self) -> int:
        """Words in ``text`` (the unit of the word budget)."""
        return len(self.text.split())


@dataclass(frozen=True, slots=True)
class Verdict:
    """The support gate's decision on one claim."""

    ok: bool
    reasons: tuple[str, ...]
    """Why a claim was refused (empty when ``ok``); each names the missing item."""
    quoted: bool = False
    """True when the claim's words are a passage's words (only case and punctuation differ)."""
    quotes: tuple[Quote, ...] = ()
    """The supporting sentence of each cited passage."""


@dataclass(frozen=True, slots=True)
class AnswerPlan:
    """A grounded answer to one question: what to say, what to offer, and why."""

    question: str
    generation: int
    units: tuple[SpokenUnit, ...]
    """Spoken in order. A limitation plan has exactly one unit, with no claims."""
    offer: tuple[SpokenUnit, ...] = ()
    """Optional detail, spoken only when the user asks for it."""
    limitation: bool = False
    """True: nothing in the documents supports an answer; the one unit says so."""
    passages: tuple[Passage, ...] = ()
    """The passages retrieved for the question."""
    claims: tuple[Claim, ...] = ()
    """The claims that passed the support gate, in the order they are used."""
    rejected: tuple[tuple[Claim, str], ...] = ()
    """Claims the gate (or the relevance check) refused, each with the reason."""


class ClaimProposer(Protocol):
    """Proposes claims that answer ``question`` from ``passages`` (e.g. a local LLM)."""

    def propose(self, question: str, passages: Sequence[Passage],
                cancel: CancelToken | None = None) -> Sequence[Claim]:
        """Claims citing ``passages`` by id; [] when they do not answer the question.

        Runs on: a worker thread (the LLM's). May return unsupported claims: the gate
        decides.
        """
        ...


class Disposition(Enum):
    """What happened to a unit at an admission point (after synthesis, before playback)."""

    READY = "ready"
    """Play it."""
    STALE = "stale"
    """A newer question (generation) came: drop it."""
    CANCELED = "canceled"
    """Its turn was cancelled (barge-in, stop): drop it."""
    EXPIRED = "expired"
    """Too old to be useful (synthesis or the queue took too long): drop it."""


def admit(unit: SpokenUnit, *, current_generation: int, canceled: bool, age_s: float,
          max_age_s: float) -> Disposition:
    """Decide whether ``unit`` may be played now.

    Args:
        unit: The synthesised unit.
        current_generation: The generation of the question being answered now.
        canceled: True when the unit's turn was cancelled.
        age_s: Seconds since the unit was planned.
        max_age_s: Oldest a unit may be and still play.

    Returns:
        CANCELED first (a cancelled turn never plays, whatever its generation), then
        STALE for another generation, then EXPIRED, else READY.
    """
    if canceled:
        return Disposition.CANCELED
    if unit.generation != current_generation:
        return Disposition.STALE
    if age_s > max_age_s:
        return Disposition.EXPIRED
    return Disposition.READY
