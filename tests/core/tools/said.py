"""What the rules make of one request: the tools offered and the call its words decide."""

from __future__ import annotations

from typing import Any

from desktop_agent.core.tools.decision import plan_decision
from desktop_agent.core.tools.router import candidate_tools
from desktop_agent.core.tools.specs import BUILTIN_SPECS


def offered(text: str) -> list[str]:
    """The names of the tools ``candidate_tools`` offers for ``text``."""
    return [s.name for s in candidate_tools(text, BUILTIN_SPECS)]


def decided(text: str) -> tuple[str, dict[str, Any]] | None:
    """The call ``plan_decision`` makes from the words of ``text``: (name, arguments)."""
    tools = candidate_tools(text, BUILTIN_SPECS)
    call = plan_decision(text, tools).call if tools else None
    return (call.name, dict(call.arguments)) if call is not None else None
