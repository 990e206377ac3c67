"""Tool registry rules: reads run at once, writes need a confirmed read-back (a later issue)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall, ToolSpec

ToolFn = Callable[[Mapping[str, Any]], str]
"""A tool implementation: arguments in, a short JSON or text result out."""


@dataclass(frozen=True, slots=True)
class Tool:
    """A spec and the function that runs it."""

    spec: ToolSpec
    run: ToolFn


class ToolRegistry:
    """The tools the LLM may call, by name."""

    def __init__(self, tools: list[Tool] | None = None) -> None:
        """Register ``tools`` in order (names must be unique)."""
        self._tools: dict[str, Tool] = {}
        for tool in tools or []:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        """Register ``tool``; names are unique."""
        if tool.spec.name in self._tools:
            raise ValueError(f"tool {tool.spec.name!r} registered twice")
        self._tools[tool.spec.name] = tool

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """Specs for the LLM prompt, in a stable order (prefix caching needs it)."""
        return tuple(self._tools[name].spec for name in sorted(self._tools))

    def run(self, call: ToolCall) -> str:
        """Run a read-only tool. Writes are refused until confirmation exists."""
        tool = self._tools.get(call.name)
        if tool is None:
            raise AgentError("unknown_tool", f"The model asked for an unknown tool {call.name!r}.")
        if tool.spec.writes:
            raise AgentError("write_needs_confirmation",
                             f"{call.name} changes things and needs a spoken confirmation first.")
        return tool.run(call.arguments)
