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

    def answer(self, call: ToolCall) -> tuple[str, bool]:
        """Run ``call`` for the model: ``(result, is_error)``, never an exception.

        A failure becomes a short apology the model reads back (it is told, and says
        sorry), so a broken tool fails its answer, not the turn.
        """
        try:
            return self.run(call), False
        except AgentError as exc:
            return f"Sorry, {exc.message}", True
        except Exception as exc:  # a tool's own bug: still an answer for the model
            return f"Sorry, the tool failed ({exc}).", True
