"""A small in-memory knowledge index and passages for the grounded-answer tests."""

from __future__ import annotations

from collections.abc import Sequence

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge import Claim
from desktop_agent.core.knowledge.claim_text import topic_terms
from desktop_agent.core.knowledge.index import Passage

BOILER = Passage(
    "boiler@aa#0-300", "/docs/boiler_manual.pdf", "boiler_manual.pdf",
    "Water pressure\n"
    "The normal operating pressure is between 1 and 1.5 bar when the boiler is cold.\n"
    "To top up, open the filling loop valve under the boiler until the gauge reads\n"
    "1.5 bar, then close it. Never top up while the boiler is hot: wait until it has\n"
    "cooled down first.", 0, 300, page=1)
CODES = Passage(
    "boiler@aa#300-500", "/docs/boiler_manual.pdf", "boiler_manual.pdf",
    "Fault code Meaning What to do\n"
    "E1 Ignition failure Press reset once; if it returns, call an engineer.\n"
    "E2 Low water pressure Top up to 1.5 bar (only when cold).\n"
    "E4 Flue blocked Do not use the boiler; call an engineer.", 300, 500, page=2)
CLUB = Passage(
    "club@bb#0-200", "/docs/club_rules.md", "club_rules.md",
    "## Guests\n\n"
    "- Each member may bring up to two guests per visit.\n"
    "- Guests pay £8 per visit, paid at the clubhouse before play.\n"
    "- Guests may not book courts.\n", 0, 200)
HOUSE = Passage(
    "house@cc#0-120", "/docs/house_notes.txt", "house_notes.txt",
    "Wifi\nThe wifi network is called Larch-Home. The router is in the hall cupboard.", 0, 120)
ALL = (BOILER, CODES, CLUB, HOUSE)


class MemoryIndex:
    """A ``KnowledgeIndex`` over fixed passages: passages sharing a topic word, by count."""

    def __init__(self, passages: Sequence[Passage] = ALL) -> None:
        self.passages = tuple(passages)
        self.queries: list[str] = []

    def search(self, query: str, limit: int = 5) -> list[Passage]:
        self.queries.append(query)
        terms = set(topic_terms(query))
        scored = [(len(terms & set(topic_terms(p.text + " " + p.title))), i, p)
                  for i, p in enumerate(self.passages)]
        return [p for n, _, p in sorted(scored, key=lambda s: (-s[0], s[1])) if n][:limit]

    def passage(self, passage_id: str) -> Passage | None:
        return next((p for p in self.passages if p.passage_id == passage_id), None)


class FixedProposer:
    """Proposes the same claims for any question (records what it was given)."""

    def __init__(self, claims: Sequence[Claim]) -> None:
        self.claims = list(claims)
        self.calls: list[tuple[str, tuple[Passage, ...]]] = []

    def propose(self, question: str, passages: Sequence[Passage],
                cancel: CancelToken | None = None) -> list[Claim]:
        self.calls.append((question, tuple(passages)))
        return list(self.claims)
