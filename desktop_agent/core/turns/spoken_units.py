"""Spoken units of a grounded answer inside a reply: admission and what became of each.

A grounded answer arrives as immutable ``SpokenUnit`` s (``LlmToken.unit``), each spoken as
its clauses (the first plays while the rest is synthesised). A unit is admitted three times
(``core.knowledge.admit``): when it arrives, after each clause's synthesis, and right before
that clause is queued to the speaker; a unit from another generation
(an older question), past its age limit, or of a reply that was cut is dropped there and
its disposition published. When the reply ends (played out or cut), every unit that was
queued is settled from the samples the device consumed: heard, partly heard or unheard.

Pure bookkeeping over the reply's own records; the machine emits the commands.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from desktop_agent.core.knowledge.records import Disposition, admit

if TYPE_CHECKING:
    from desktop_agent.core.knowledge.records import SpokenUnit

class QueuedChunk(Protocol):
    """What settling needs of a queued chunk (``TtsChunkReady`` fits)."""

    @property
    def chunk_index(self) -> int:
        """The chunk's place in the turn's speech."""
        ...

    @property
    def n_samples(self) -> int:
        """Audio samples in the chunk."""
        ...


HEARD = "heard"
PARTLY_HEARD = "partly_heard"
UNHEARD = "unheard"
"""Final dispositions of a unit that was queued to the speaker."""


@dataclass(slots=True)
class UnitSlot:
    """One unit of the reply and where it stands."""

    unit: SpokenUnit
    arrived_s: float
    """When the unit reached the machine (its age is measured from here)."""
    disposition: str = Disposition.READY.value
    """The last disposition published."""
    queued: bool = False
    """True once one of its chunks was queued to the speaker ('ready' was published)."""


@dataclass(slots=True)
class ReplyUnits:
    """The units of one reply, by chunk index (a unit's clauses share its slot)."""

    generation: int | None = None
    """The generation the reply speaks (its first unit's); other generations are stale."""
    slots: dict[int, UnitSlot] = field(default_factory=dict)

    def judge(self, unit: SpokenUnit, arrived_s: float, at_s: float, *, canceled: bool,
              max_age_s: float) -> Disposition:
        """Admit ``unit`` at ``at_s``: READY, or why it must not play."""
        if self.generation is None:
            self.generation = unit.generation
        return admit(unit, current_generation=self.generation, canceled=canceled,
                     age_s=max(0.0, at_s - arrived_s), max_age_s=max_age_s)

    def settle(self, queued: Sequence[QueuedChunk],
               played_samples: int) -> Iterator[tuple[UnitSlot, str]]:
        """Final dispositions of the queued units from the samples the device consumed.

        Args:
            queued: The chunks queued on the speaker, in order.
            played_samples: Samples of the stream the device consumed.
        """
        spans: dict[int, tuple[UnitSlot, int, int]] = {}  # id(slot) -> slot, first, end
        start = 0
        for chunk in queued:
            end = start + chunk.n_samples
            slot = self.slots.get(chunk.chunk_index)
            if slot is not None:
                first = spans[id(slot)][1] if id(slot) in spans else start
                spans[id(slot)] = (slot, first, end)
            start = end
        for slot, first, end in spans.values():
            if slot.disposition != Disposition.READY.value:
                continue
            if played_samples >= end:
                final = HEARD
            elif played_samples > first:
                final = PARTLY_HEARD
            else:
                final = UNHEARD
            slot.disposition = final
            yield slot, final

    def cancel_pending(self, queued_indices: set[int]) -> Iterator[tuple[UnitSlot, str]]:
        """Units none of whose chunks were queued (still synthesising, waiting): canceled."""
        queued = {id(self.slots[i]) for i in queued_indices if i in self.slots}
        seen: set[int] = set()
        for slot in self.slots.values():
            if id(slot) in queued or id(slot) in seen:
                continue
            seen.add(id(slot))
            if slot.disposition == Disposition.READY.value:
                slot.disposition = Disposition.CANCELED.value
                yield slot, slot.disposition
