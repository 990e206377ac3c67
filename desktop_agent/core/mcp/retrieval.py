"""Which of the user's MCP tools a request could need: BM25 over their words, at most three.

A 0.5B model shown every tool calls the wrong one, and rendering a server's whole tool list
costs seconds of prefill; so the decision run is offered at most ``MAX_CANDIDATES`` MCP tools,
those whose words score above ``SCORE_FLOOR`` for the request (none: the model never sees an
MCP tool). A tool's words are its server's name, its name and title, its description and its
argument names, split at '_' and cut into terms by the same rules as the knowledge index's
full-text queries (``core.text.fts_query.fts_terms``: stop words and question words dropped),
with a light plural/verb-ending fold so "commits" finds "commit". BM25 with the usual k1 and
b; IDF is the non-negative form, so a word every tool has (the server's name) scores little.

Pure: stdlib only. The constants were set on the dev phrasings, before any held-out one was read.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from desktop_agent.core.ports import ToolSpec
from desktop_agent.core.text.fts_query import fts_terms

MAX_CANDIDATES: Final = 3
SCORE_FLOOR: Final = 0.8
"""A tool scoring at or below this is not offered (one word that every few tools share
scores ~0.9-1.1, depending on how many tools there are; one only it has, 2-3)."""
K1: Final = 1.2
B: Final = 0.75
_ENDINGS: Final = (("ies", "y"), ("ing", ""), ("es", ""), ("ed", ""), ("s", ""))


def fold(term: str) -> str:
    """A crude stem: one plural or verb ending off, then a final 'e'.

    "stages", "staged", "staging", "stage" -> "stag"; "branches" -> "branch".
    """
    for end, repl in _ENDINGS:
        if term.endswith(end) and len(term) - len(end) >= 3 and not term.endswith("ss"):
            term = term[: -len(end)] + repl
            break
    return term[:-1] if term.endswith("e") and len(term) > 4 else term


def terms(text: str) -> list[str]:
    """The folded search terms of ``text`` ('_' and '-' split words, as in tool names)."""
    return [fold(t) for t in fts_terms(re.sub(r"[_\-./]+", " ", text))]


def tool_words(spec: ToolSpec) -> str:
    """What a tool is found by: its name (server included), description, argument names."""
    props = dict(spec.parameters).get("properties") or {}
    return " ".join([spec.name, spec.description, *props])


@dataclass(frozen=True, slots=True)
class Scored:
    """One tool's score for a request."""

    spec: ToolSpec
    score: float


class ToolIndex:
    """BM25 over a fixed set of tools (built per set; tens of tools cost microseconds)."""

    def __init__(self, specs: Sequence[ToolSpec]) -> None:
        """Index ``specs`` by ``tool_words``."""
        self.specs = tuple(specs)
        self._docs = [Counter(terms(tool_words(s))) for s in self.specs]
        self._lengths = [sum(d.values()) for d in self._docs]
        self._avg = (sum(self._lengths) / len(self._lengths)) if self._lengths else 1.0
        df: Counter[str] = Counter()
        for doc in self._docs:
            df.update(doc.keys())
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}

    def scores(self, request: str) -> list[Scored]:
        """Every tool's score for ``request``, best first (ties in index order)."""
        query = set(terms(request))
        out = []
        for spec, doc, length in zip(self.specs, self._docs, self._lengths, strict=True):
            score = 0.0
            for term in query & doc.keys():
                tf = doc[term]
                norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / max(self._avg, 1.0)))
                score += self._idf[term] * norm
            out.append(Scored(spec, score))
        return sorted(out, key=lambda s: -s.score)

    def commands(self, request: str) -> bool:
        """True when ``request`` opens with a word of a tool, and is not a question.

        "Commit my changes", "unstage everything": imperatives the built-in request rules
        do not know.
        """
        words = request.split()
        first = fold(re.sub(r"\W+", "", words[0].lower())) if words else ""
        return first in self._idf and not request.rstrip().endswith("?")

    def candidates(self, request: str, limit: int = MAX_CANDIDATES,
                   floor: float = SCORE_FLOOR) -> tuple[ToolSpec, ...]:
        """At most ``limit`` tools scoring above ``floor``, best first."""
        return tuple(s.spec for s in self.scores(request)[:limit] if s.score > floor)
