"""Headless bookkeeping of a grounded answer's spoken units, and a scripted interruption.

``UnitLog`` records every ``PublishUnit`` the machine emits (the last disposition of each
unit wins) so ``ask --json`` and ``bench answers`` can show each unit with its sources and
what became of it. ``Interrupt`` is a scripted barge-in: once ``after_units`` units of the
answer have been queued to the speaker, the user presses the key and says ``text``, as a
person who cuts in with a correction would.

Runs on: the headless executor's calling thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.turns.reports import PublishUnit

FINAL: dict[str, str] = {
    "heard": "played",
    "partly_heard": "played",
    "ready": "played",  # queued and the reply finished: the headless speaker consumed it
    "unheard": "unplayed",
}
"""The machine's dispositions as ``ask --json`` reports them (the others pass as they are)."""


@dataclass(frozen=True)
class Interrupt:
    """A scripted barge-in during a grounded answer."""

    after_units: int
    """Cut in once this many units have been queued to play (1: after the first; 0: while
    the answer is being prepared, before any of it plays: the words join the question)."""
    text: str
    """What the user says (typed; no ASR)."""
    after_chunks: int = 0
    """When above 0: cut in once this many chunks of the answer (the filler not counted)
    were queued to play (any reply, grounded or not: e.g. a reflected answer's opening)."""

    def due(self, *, preparing: bool, speaking: bool, chunks_played: int,
            units_queued: int) -> bool:
        """True when the user cuts in now.

        Args:
            preparing: The reply is being prepared (no audio yet).
            speaking: The reply is playing.
            chunks_played: Chunks of the reply queued to play (the filler not counted).
            units_queued: Units of the answer queued to play.
        """
        reached = (chunks_played >= self.after_chunks if self.after_chunks
                   else units_queued >= self.after_units)
        before_audio = not self.after_chunks and self.after_units == 0 and preparing
        return before_audio or (speaking and reached)


@dataclass(frozen=True)
class UnitRecord:
    """One spoken unit of an answer and what became of it."""

    text: str
    generation: int
    sources: tuple[Any, ...]
    """The unit's ``Quote`` s: file, passage id, the supporting words."""
    disposition: str
    """'played', 'unplayed', 'stale', 'canceled' or 'expired'."""
    turn_id: int
    key: str

    def as_json(self) -> dict[str, Any]:
        """The ``units`` entry of ``ask --json``."""
        return {"text": self.text, "generation": self.generation,
                "disposition": self.disposition,
                "sources": [{"file": q.file, "passage_id": q.passage_id, "quote": q.quote,
                             "page": q.page} for q in self.sources]}


@dataclass
class UnitLog:
    """Every unit published during one ``ask`` (across an interruption), in order."""

    order: list[tuple[TurnId, str]] = field(default_factory=list)
    last: dict[tuple[TurnId, str], PublishUnit] = field(default_factory=dict)
    queued: dict[TurnId, int] = field(default_factory=dict)
    """Units admitted to play ('ready'), per turn."""

    def record(self, c: PublishUnit) -> None:
        """Keep ``c`` as its unit's latest disposition."""
        key = (c.turn_id, c.unit.key)
        if key not in self.last:
            self.order.append(key)
        self.last[key] = c
        if c.disposition == "ready":
            self.queued[c.turn_id] = self.queued.get(c.turn_id, 0) + 1

    def records(self, turn_id: TurnId | None = None, *, before: bool = False
                ) -> tuple[UnitRecord, ...]:
        """Units of ``turn_id`` (all when None; with ``before``, of the turns before it)."""
        out = []
        for key in self.order:
            c = self.last[key]
            if turn_id is not None and (c.turn_id >= turn_id if before else c.turn_id != turn_id):
                continue
            out.append(UnitRecord(text=c.unit.text, generation=c.unit.generation,
                                  sources=tuple(c.unit.quotes),
                                  disposition=FINAL.get(c.disposition, c.disposition),
                                  turn_id=int(c.turn_id), key=c.unit.key))
        return tuple(out)
