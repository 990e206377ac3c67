"""Tool registry rules: reads run at once, writes need a confirmed read-back.

Reads run on arguments checked against their spec (``validate_args``); a write runs only
as a confirmed, prepared action (``core.tools.write_actions``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall, ToolSpec

ToolFn = Callable[[Mapping[str, Any]], str]
"""A tool implementation: arguments in, a short JSON or text result out."""


def validate_args(spec: ToolSpec, args: Mapping[str, Any]) -> dict[str, Any]:
    """Check ``args`` against ``spec``'s JSON schema; return them cleaned.

    Understands the subset the built-in specs use: an object with ``properties``,
    ``required`` and ``additionalProperties: false``; strings with ``minLength`` and
    ``maxLength`` (checked after stripping the spaces around them); numbers (a numeric
    string such as "5" is accepted as 5, a bool is not a number). A spec without a schema
    accepts anything.

    Args:
        spec: The tool's spec.
        args: The arguments the model sent.

    Returns:
        A new dict: strings stripped, numbers as int or float.

    Raises:
        AgentError: ``bad_arguments``, with a short message meant for the model.
    """
    schema = spec.parameters
    if not isinstance(args, Mapping):
        raise _bad(f"{spec.name} needs its arguments as an object.")
    props: Mapping[str, Any] = schema.get("properties", {})
    if not schema:
        return dict(args)
    out: dict[str, Any] = {}
    for name, value in args.items():
        rule = props.get(name)
        if rule is None:
            if schema.get("additionalProperties", True) is False:
                raise _bad(f"{spec.name} has no argument {name!r}.")
            out[name] = value
            continue
        out[name] = _check_value(spec.name, name, rule, value)
    missing = [name for name in schema.get("required", ()) if name not in out]
    if missing:
        raise _bad(f"{spec.name} needs {' and '.join(repr(m) for m in missing)}.")
    return out


def _check_value(tool: str, name: str, rule: Mapping[str, Any], value: Any) -> Any:
    kind = rule.get("type")
    if kind == "string":
        if not isinstance(value, str):
            raise _bad(f"{tool}: {name!r} must be text.")
        value = value.strip()
        if len(value) < int(rule.get("minLength", 0)):
            raise _bad(f"{tool}: {name!r} must not be empty.")
        if len(value) > int(rule.get("maxLength", len(value))):
            raise _bad(f"{tool}: {name!r} is too long (at most {rule['maxLength']} characters).")
        return value
    if kind in ("number", "integer"):
        number = _as_number(value)
        if number is None or (kind == "integer" and not isinstance(number, int)):
            raise _bad(f"{tool}: {name!r} must be a number.")
        return number
    return value


def _as_number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip().replace(",", "")
        try:
            number = float(text)
        except ValueError:
            return None
        if not math.isfinite(number):
            return None
        return int(number) if number.is_integer() and "." not in text else number
    return None


def _bad(message: str) -> AgentError:
    return AgentError("bad_arguments", message)


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
        """Register ``tool``; names are unique. Runs on: any thread.

        The table is replaced, never changed in place: a worker reading ``specs`` on
        another thread while your own tools are added sees the old table or the new one.
        """
        if tool.spec.name in self._tools:
            raise ValueError(f"tool {tool.spec.name!r} registered twice")
        self._tools = {**self._tools, tool.spec.name: tool}

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """Specs for the LLM prompt, in a stable order (prefix caching needs it)."""
        table = self._tools  # one table for the whole read (``add`` replaces it)
        return tuple(table[name].spec for name in sorted(table))

    def spec(self, name: str) -> ToolSpec | None:
        """The spec registered as ``name``, or None."""
        tool = self._tools.get(name)
        return None if tool is None else tool.spec

    def run(self, call: ToolCall) -> str:
        """Run a read-only tool on validated arguments.

        Writes are refused: they run only as a confirmed, prepared action
        (``core.tools.write_actions``).
        """
        tool = self._tools.get(call.name)
        if tool is None:
            raise AgentError("unknown_tool", f"The model asked for an unknown tool {call.name!r}.")
        if tool.spec.writes:
            raise AgentError("write_needs_confirmation",
                             f"{call.name} changes things and needs a spoken confirmation first.")
        return tool.run(validate_args(tool.spec, call.arguments))

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
