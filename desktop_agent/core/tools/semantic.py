"""Tools by meaning: the nearest tools' examples, for a request that no router rule reads.

The router's keyword rules (``core.tools.offers``) are precise but miss everyday phrasings
("in twenty minutes, ping me", "remember that the key is under the mat"). When they offer
nothing, the request is compared by meaning with every catalog entry's ``examples`` and with
``NO_TOOL_EXAMPLES`` (``core.tools.catalog``): sentence vectors from the ``Embedder`` port,
cosine similarity (``core.embed.nearest``). A tool's score is the mean similarity of its
``neighbours`` nearest examples. The tools offered are those that score at least
``min_score`` (more for a sentence that is not a request, less when the tool's own ``words``
rule reads the request's arguments), beat the no-tool examples by ``over_none``, and lie
within ``within`` of the best, at most ``max_tools`` of them, best first. They go to the
model's grammar-constrained decision like the rules' candidates, where "none" is always a
choice (``core.tools.decision``); a tool found by meaning is never called without that
decision unless the user's words spell out its arguments (its ``words`` rule).

The match also checks the rules: a rule's candidate without arguments (the time, the notes
list) is dropped when the request is nearer to the no-tool examples (``MeaningRouter.veto``):
the model cannot refuse such a tool, and it has no argument to check against the user's
words ("what's the time difference with Tokyo" is not "what time is it").

Two layers: ``ToolMeanings`` works on vectors alone (pure, tested with fake vectors);
``MeaningRouter`` asks the embedder for the request's vector (milliseconds, on the LLM
worker thread). Thresholds were chosen on the dev utterances, the project's own tuning set
and leave-one-out over the examples, then measured on a set written before any tuning
(``desktop-agent bench tools --sets dev,tune,blind --semantic both``); see
``MeaningSettings``. Pure: stdlib only (the embedder's rows are read as plain floats).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from desktop_agent.core.embed.nearest import ExampleIndex
from desktop_agent.core.ports import Embedder, ToolSpec
from desktop_agent.core.tools.catalog import BUILTIN, NO_TOOL_EXAMPLES
from desktop_agent.core.tools.router import asked_after_context, asks_no_tool, is_request
from desktop_agent.core.tools.tool_def import NO_TOOL, Catalog

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class MeaningSettings:
    """When a request is near enough to a tool's examples to offer the tool."""

    min_score: float = 0.45
    """Cosine similarity (mean of the ``neighbours`` nearest examples) a tool needs at least.
    Lower offers more requests to the model (recall) and more questions it must refuse."""
    not_asked: float = 0.05
    """Added to ``min_score`` for a sentence the router does not take for a request (a
    statement, ``core.tools.router.is_request``): "I love the smell of coffee" is not "note
    that ...", but "ring me in 45 seconds" is a request the router's words miss."""
    when_read: float = 0.3
    """The score enough for a tool whose ``words`` rule reads the request's arguments
    ("remember that the key is under the mat"): two signals agree."""
    read_bonus: float = 0.1
    """Added to the score, for ranking only, of a tool whose ``words`` rule reads a
    request's arguments: "nudge me in an hour to stretch" is a little nearer to the timer's
    examples (0.48) than the reminder's (0.41), but only the reminder's rule reads it."""
    over_none: float = 0.05
    """How much nearer than the no-tool examples a tool must be (may be negative)."""
    within: float = 0.05
    """A tool is offered beside the best one when it scores within this of it."""
    max_tools: int = 1
    """Tools offered at most. One: offered two or three near tools, the 0.5B called a wrong
    one as often as the right one (6 and 6 of 15 tuning requests; the examples separate
    topics, "notes", better than intents, "read" or "delete" them); offered one, it says
    "none" or makes the call, and a call with words the user did not say is dropped. A
    larger model may choose better."""
    neighbours: int = 2
    """Examples per tool averaged into its score (one stray close example counts less)."""
    max_chars: int = 200
    """Longer text is read aloud or dictated, not asked: it is never matched."""
    veto_margin: float = 0.0
    """A tool without arguments that a keyword rule offers is dropped when the no-tool
    examples are nearer than its own by more than this: the model cannot refuse it (the
    0.5B called ``get_current_time`` for "what time does the bakery open" every time it
    was offered), and no argument is there to be checked against the user's words."""


def labelled_examples(catalog: Catalog = BUILTIN,
                      no_tool: Sequence[str] = NO_TOOL_EXAMPLES
                      ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every example of ``catalog`` and ``no_tool``: (labels, texts), in catalog order."""
    pairs = [(t.name, e) for t in catalog for e in t.examples] + [(NO_TOOL, e) for e in no_tool]
    return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def examples_digest(model_id: str, labels: Sequence[str], texts: Sequence[str]) -> str:
    """A key for the examples' vectors: the model and every labelled example (sha256 hex)."""
    h = hashlib.sha256(model_id.encode("utf-8"))
    for label, text in zip(labels, texts, strict=True):
        h.update(b"\0" + label.encode("utf-8") + b"\1" + text.encode("utf-8"))
    return h.hexdigest()


class ToolMeanings:
    """Labelled example vectors, and the rule that picks the tools to offer for a vector."""

    def __init__(self, labels: Sequence[str], vectors: Iterable[Iterable[float]],
                 settings: MeaningSettings | None = None) -> None:
        """Index the examples (``labelled_examples`` order; ``NO_TOOL`` for no tool).

        Raises:
            ValueError: the counts or vector lengths differ (``ExampleIndex``).
        """
        self.settings = settings or MeaningSettings()
        self._index = ExampleIndex(labels, vectors)
        self.tools: tuple[str, ...] = tuple(dict.fromkeys(
            label for label in labels if label != NO_TOOL))
        """The tools that have examples, in example order."""

    def __len__(self) -> int:
        """Number of examples (no-tool ones included)."""
        return len(self._index)

    def scores(self, vector: Iterable[float]) -> dict[str, float]:
        """Each label's score for ``vector``: the mean of its ``neighbours`` best cosines."""
        per: dict[str, list[float]] = {}
        for label, score in zip(self._index.labels, self._index.scores(vector), strict=True):
            per.setdefault(label, []).append(score)
        n = max(1, self.settings.neighbours)
        return {label: sum(sorted(s, reverse=True)[:n]) / min(n, len(s))
                for label, s in per.items()}

    def pick(self, vector: Iterable[float], allowed: Collection[str] | None = None, *,
             asked: bool = True, read: Collection[str] = ()) -> tuple[str, ...]:
        """The tools to offer for ``vector``, best first (empty: no tool is near enough).

        Args:
            vector: the request's sentence vector.
            allowed: the tools that may be offered (the turn's tools); None: all.
            asked: the sentence is a request (False: it needs ``not_asked`` more).
            read: the tools whose ``words`` rule reads the request's arguments.
        """
        return self.choose(self.scores(vector), allowed, asked=asked, read=read)

    def choose(self, scores: dict[str, float], allowed: Collection[str] | None = None, *,
               asked: bool = True, read: Collection[str] = ()) -> tuple[str, ...]:
        """``pick`` on scores already computed (``scores``)."""
        cfg = self.settings
        base = cfg.min_score + (0.0 if asked else cfg.not_asked)
        none = scores.get(NO_TOOL, -1.0) + cfg.over_none

        def floor(tool: str) -> float:
            # Two signals agree only for a request: "The 14th of July is a holiday" is read
            # by day_of_week's rule, but nobody asked.
            return max(min(base, cfg.when_read) if asked and tool in read else base, none)

        def rank(tool: str) -> float:
            return scores[tool] + (cfg.read_bonus if asked and tool in read else 0.0)

        ranked = sorted(((rank(t), t) for t in scores if t != NO_TOOL
                         and (allowed is None or t in allowed)), key=lambda p: (-p[0], p[1]))
        if not ranked or scores[ranked[0][1]] < floor(ranked[0][1]):
            return ()
        best = ranked[0][0]
        return tuple(t for r, t in ranked[:cfg.max_tools]
                     if scores[t] >= floor(t) and r >= best - cfg.within)


class MeaningRouter:
    """Offers tools by meaning for a request the rules do not read (see the module docstring).

    Runs on: the LLM worker thread (one embedding, ~6 ms, and the scores, ~3 ms).
    """

    def __init__(self, embedder: Embedder, meanings: ToolMeanings) -> None:
        """Use ``embedder`` for requests; ``meanings`` holds its vectors of the examples."""
        self.embedder = embedder
        self.meanings = meanings
        self.last_scores: dict[str, float] = {}
        """The scores of the last request matched (for the log and the benchmark)."""

    @classmethod
    def from_catalog(cls, embedder: Embedder, catalog: Catalog = BUILTIN,
                     settings: MeaningSettings | None = None,
                     vectors: Iterable[Iterable[float]] | None = None) -> MeaningRouter:
        """Embed ``catalog``'s examples (all at once) unless their ``vectors`` are given.

        ``vectors`` must be ``embedder``'s, for ``labelled_examples(catalog)`` in order
        (e.g. kept on disk under ``examples_digest``).

        Raises:
            ModelError: the embedder's, when its model is missing or corrupt.
        """
        labels, texts = labelled_examples(catalog)
        rows = embedder.embed(texts) if vectors is None else vectors
        return cls(embedder, ToolMeanings(labels, rows, settings))

    def offer(self, text: str, specs: Sequence[ToolSpec], read: Collection[str] = ()
              ) -> tuple[ToolSpec, ...]:
        """The specs among ``specs`` to offer for ``text`` by meaning, best first.

        ``read``: the tools whose ``words`` rule reads the request's arguments.
        """
        t = self._scored(text)
        if t is None:
            return ()
        after = asked_after_context(t)  # "Sorry, what's ..."
        if asks_no_tool(after or t):
            return ()
        by_name = {s.name: s for s in specs}
        asked = is_request(t) or after is not None
        names = self.meanings.choose(self.last_scores, by_name, asked=asked, read=read)
        if names:
            _LOGGER.info("turn=0 tools by meaning: %s", ", ".join(
                f"{n} {self.last_scores[n]:.2f}" for n in names))
        return tuple(by_name[n] for n in names)

    def veto(self, text: str, offered: Sequence[ToolSpec]) -> tuple[ToolSpec, ...]:
        """A rule's candidates ``offered`` for ``text``, less the doubtful argument-less ones.

        Dropped: a tool without arguments that ``text`` is farther from than from the
        no-tool examples (by more than ``veto_margin``). Tools with arguments are kept: the
        model may refuse them, and their arguments must be the user's words.
        """
        if all(_takes_arguments(s) for s in offered) or self._scored(text) is None:
            return tuple(offered)
        none = self.last_scores.get(NO_TOOL, -1.0) - self.meanings.settings.veto_margin
        kept = tuple(s for s in offered if _takes_arguments(s)
                     or self.last_scores.get(s.name, 1.0) >= none)
        for s in offered:
            if s not in kept:
                _LOGGER.info("turn=0 %s dropped: nearer to no tool (%.2f < %.2f)", s.name,
                             self.last_scores.get(s.name, 0.0), none)
        return kept

    def _scored(self, text: str) -> str | None:
        """Embed ``text`` and keep its scores; None (no scores) when it is not matched."""
        t = " ".join(text.replace("\u2019", "'").split())
        self.last_scores = {}
        if not t or len(t) > self.meanings.settings.max_chars:
            return None
        (vector,) = self.embedder.embed([t])
        self.last_scores = self.meanings.scores(vector)
        return t


def _takes_arguments(spec: ToolSpec) -> bool:
    return bool(dict(spec.parameters).get("properties"))
