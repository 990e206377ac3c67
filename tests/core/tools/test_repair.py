"""A request mended while it was said (core.tools.repair), alone and through the decision."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.decision import plan_decision
from desktop_agent.core.tools.repair import self_corrected
from desktop_agent.core.tools.router import candidate_tools

_SPECS = [t.spec for t in BUILTIN]


@pytest.mark.parametrize(("said", "meant"), [
    # the repair holds a number: it takes the place of the last number before the marker
    ("Put a timer on for ten, no, fifteen minutes.", "Put a timer on for fifteen minutes."),
    ("Put the volume on fifty, actually no, make it thirty percent.",
     "Put the volume on thirty percent."),
    ("set an alarm for six, no, seven thirty", "set an alarm for seven thirty"),
    ("a timer for five, no make it 6 minutes", "a timer for 6 minutes"),
    # the repair opens with a word said before it: the mended words run from there
    ("what's seventeen and a half percent of two forty, no wait, of two sixty?",
     "what's seventeen and a half percent of two sixty?"),
    ("remind me at five to call Bob, sorry, to call Jim", "remind me at five to call Jim"),
    ("open the calculator, I mean, the terminal", "open the terminal"),
    ("cancel the tea timer, I mean the egg timer", "cancel the egg timer"),
])
def test_a_repair_takes_the_place_of_what_it_mends(said: str, meant: str) -> None:
    assert self_corrected(said) == meant


@pytest.mark.parametrize("said", [
    "Set a timer, sorry, for ten minutes.",  # nothing to mend: no number before, no word
    "Set a timer for ten minutes, no more.",  # "no" inside a sentence is no marker
    "set a timer for five minutes, no need for 2 reminders",
    "delete the old notes, no, keep them",  # taken back, not mended: the args rule says so
    "cancel the tea timer, no wait, keep it",
    "open the terminal, actually no, don't",
    "Remind me to call Mum, I mean Mom, at five.",  # where the repair goes is not clear
    "No, I said fifteen minutes.",  # nothing before the marker
    "Is it two or three, no idea, whatever.",
    "Set a timer for 10 minutes, I mean it.",
    "What's the weather like?",
])
def test_what_is_not_clearly_mended_stays_as_said(said: str) -> None:
    assert self_corrected(said) == said


@pytest.mark.parametrize(("said", "tool", "args"), [
    ("Put a timer on for ten, no, fifteen minutes.", "set_timer",
     {"duration": "fifteen minutes"}),
    ("Put the volume on fifty, actually no, make it thirty percent.", "set_volume",
     {"setting": "30 percent"}),
    ("cancel the tea timer, I mean the egg timer", "cancel_timer", {"which": "egg"}),
])
def test_the_decision_reads_the_mended_request(said: str, tool: str, args: Any) -> None:
    candidates = candidate_tools(said, _SPECS)
    call = plan_decision(said, candidates).call
    assert call is not None and (call.name, call.arguments) == (tool, args)
