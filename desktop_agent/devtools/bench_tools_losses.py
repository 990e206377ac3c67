"""Where ``bench tools`` lost each miss, and the counts per tool (figures only, no texts).

A request is decided in stages (``core.tools.decision``): the keyword rules offer tools
(a meaning match may veto an argument-less one), or, when they are silent, the meaning match
may offer the nearest tool; then the user's words or the grammar-constrained model decide
the call, whose arguments must be words the user said. ``lost_at`` names the stage where an
utterance went wrong, so a change is aimed at the stage that loses most:

- ``no_such_tool``: the set expects a tool the catalog does not have;
- ``rules_offered_other``: the rules offered tools, not the expected one (the meaning match
  is not asked then);
- ``vetoed``: a rule offered it, and the meaning match dropped it (nearer to no tool);
- ``rules_silent``: nothing offered, and no meaning match ran (``--semantic off``);
- ``meaning_below_threshold``: the rules were silent, and the expected tool was the nearest
  by meaning but not near enough (``MeaningSettings``);
- ``meaning_nearest_none`` / ``meaning_nearest_other``: the rules were silent, and the
  no-tool examples, or another tool's, were nearer (none offered, or another offered);
- ``model_said_none``: offered, and the decision run answered "none";
- ``model_chose_other``: offered with others, and the model called another;
- ``call_dropped``: the model named it, and the call was dropped (arguments the user did
  not say, or unfinished JSON);
- ``args_from_words`` / ``args_by_model``: the right tool with other arguments than
  expected, cut from the words by a rule, or written by the model;
- ``false_call_by_rule`` / ``false_call_by_meaning``: a call where prose was due.

Pure: stdlib and the core's pure decision helpers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any, Protocol


class Decided(Protocol):
    """What ``lost_at`` reads of one outcome (``bench_tools.Outcome``)."""

    expected_tool: str | None
    tool: str | None
    offered: tuple[str, ...]
    by_meaning: bool
    rules: tuple[str, ...]
    nearest: str | None
    decision: str | None


def lost_at(o: Decided, args_ok: bool, known: Collection[str]) -> str | None:
    """The stage where ``o`` went wrong (see the module docstring), or None when it did not.

    Args:
        o: one outcome.
        args_ok: the call's arguments equal the expected ones (``bench_tools.args_equal``).
        known: the catalog's tool names.
    """
    from desktop_agent.core.tools.decision import FROM_WORDS, named_tool
    from desktop_agent.core.tools.tool_def import NO_TOOL

    expected = o.expected_tool
    if expected is None:
        if o.tool is None:
            return None
        return "false_call_by_meaning" if o.by_meaning else "false_call_by_rule"
    if o.tool == expected:
        if args_ok:
            return None
        return "args_from_words" if o.decision == FROM_WORDS else "args_by_model"
    if expected not in known:
        return "no_such_tool"
    if expected not in o.offered:
        if expected in o.rules:
            return "vetoed"
        if o.rules:
            return "rules_offered_other"
        if o.nearest is None:
            return "rules_silent"
        if o.nearest == expected and not o.offered:
            return "meaning_below_threshold"
        return "meaning_nearest_none" if o.nearest == NO_TOOL else "meaning_nearest_other"
    if o.tool is not None:
        return "model_chose_other"
    if named_tool(o.decision or "") == expected:
        return "call_dropped"
    return "model_said_none"


def losses(outcomes: Sequence[Any], args_ok: Sequence[bool], known: Collection[str]
           ) -> dict[str, int]:
    """How many of ``outcomes`` were lost at each stage, most first (``lost_at``)."""
    counts = Counter(stage for o, ok in zip(outcomes, args_ok, strict=True)
                     if (stage := lost_at(o, ok, known)) is not None)
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def per_tool(outcomes: Sequence[Any]) -> dict[str, str]:
    """Per expected tool, "right/expected", and "+N" calls to it where it was not expected."""
    expected = Counter(o.expected_tool for o in outcomes if o.expected_tool)
    right = Counter(o.tool for o in outcomes if o.tool and o.tool == o.expected_tool)
    wrong = Counter(o.tool for o in outcomes if o.tool and o.tool != o.expected_tool)
    out = {}
    for tool in sorted(set(expected) | set(wrong)):
        extra = f" +{wrong[tool]}" if wrong[tool] else ""
        out[tool] = f"{right[tool]}/{expected[tool]}{extra}"
    return out
