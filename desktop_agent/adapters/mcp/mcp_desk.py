"""The user's MCP tools on the write path: offered, validated, read back, run once, logged.

``McpTools`` is what the rest of the app sees of the hub: each listed tool with its class
(``core.mcp.tools.classify``) and the spec the decision run is offered. ``McpDesk`` is a
``core.turns.tool_desk.WriteDesk`` for the ``server__tool`` names:

* ``prepare`` validates the call against the tool's ``inputSchema`` (jsonschema, with the
  pinned arguments in) and reads it back from the structured call;
* ``execute`` runs it at most once per idempotency key through the store's
  ``execute_once``, so it lands in the same action log as the built-in writes. A call that
  timed out or lost its connection is logged with "outcome unknown" (the key then replays
  that, it is never sent again); a server that was not running is an error and nothing is
  logged (nothing was sent).

``read`` runs a read tool at once. Runs on: the tool thread (the hub's ``call`` blocks it).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from desktop_agent.adapters.mcp.mcp_client import CallResult, McpHub
from desktop_agent.core.errors import AgentError, McpError
from desktop_agent.core.mcp.config import ServerChoice
from desktop_agent.core.mcp.tools import (
    McpTool,
    ToolClass,
    call_arguments,
    classify,
    read_back,
    retry_allowed,
    spec_of,
    split_name,
    spoken_result,
)
from desktop_agent.core.ports import ToolCall, ToolSpec
from desktop_agent.core.tools.write_actions import PreparedAction

_LOGGER = logging.getLogger(__name__)
UNKNOWN_OUTCOME = "outcome unknown"


class ActionLog(Protocol):
    """The store's exactly-once log (``Store.execute_once`` fits)."""

    def execute_once(self, key: str, tool: str, args: Mapping[str, Any],
                     action: Any, now: float | None = None) -> Any:
        """Run ``action`` once per ``key`` and log it; a repeat replays the logged result."""
        ...


@dataclass(frozen=True, slots=True)
class Offered:
    """One tool as the app offers it."""

    tool: McpTool
    choice: ServerChoice
    klass: ToolClass
    spec: ToolSpec


class McpTools:
    """The listed tools of every ready server, classified."""

    def __init__(self, hub: McpHub) -> None:
        """Read the tools from ``hub`` (listed again by it whenever a server restarts)."""
        self.hub = hub
        self._choices = {s.name: s.choice for s in hub.config.servers}

    def offered(self) -> tuple[Offered, ...]:
        """Every tool that may be offered (not ``never``), in server and listing order."""
        out = []
        for state in self.hub.states():
            choice = self._choices[state.name]
            for tool in state.tools:
                klass = classify(tool, choice)
                if klass is not ToolClass.NEVER:
                    out.append(Offered(tool, choice, klass, spec_of(tool, choice)))
        return tuple(out)

    def find(self, full_name: str) -> Offered:
        """The offered tool called ``full_name`` (``server__tool``).

        Raises:
            AgentError: ``unknown_tool`` when no ready server offers it.
        """
        parts = split_name(full_name)
        tool = self.hub.tool(*parts) if parts else None
        choice = self._choices.get(parts[0]) if parts else None
        if tool is None or choice is None or classify(tool, choice) is ToolClass.NEVER:
            raise AgentError("unknown_tool", f"There is no tool called {full_name}.")
        return Offered(tool, choice, classify(tool, choice), spec_of(tool, choice))

    def validated(self, call: ToolCall) -> tuple[Offered, dict[str, Any]]:
        """The tool and the arguments to send (pinned ones in), checked against its schema.

        Raises:
            AgentError: ``unknown_tool``, or ``bad_arguments`` with the schema's reason
                (meant for the model, and for ``mcp call``).
        """
        import jsonschema  # a dependency of mcp; only here when a server is configured

        found = self.find(call.name)
        if not isinstance(call.arguments, Mapping):
            raise AgentError("bad_arguments", f"{call.name} needs its arguments as an object.")
        args = call_arguments(call.arguments, found.choice.pinned)
        try:
            jsonschema.validate(args, dict(found.tool.input_schema))
        except jsonschema.ValidationError as err:
            where = ".".join(str(p) for p in err.absolute_path)
            raise AgentError("bad_arguments", f"{call.name}: {where + ': ' if where else ''}"
                             f"{err.message}.") from err
        except jsonschema.SchemaError as err:
            raise AgentError("bad_arguments", f"{call.name} has a schema that cannot be "
                             f"checked ({err.message}).") from err
        return found, args

    def read(self, call: ToolCall) -> tuple[str, bool]:
        """Run a read at once: (the text to speak, cut; or the error, is_error)."""
        try:
            found, args = self.validated(call)
            if found.klass is not ToolClass.READ:
                return f"{call.name} changes things: it must be confirmed first.", True
            parts = split_name(call.name)
            assert parts is not None
            may_retry = retry_allowed(found.tool, found.choice)
            return _said(self.hub.call(*parts, args, may_retry=may_retry), found.tool)
        except AgentError as err:
            return err.message, True


class McpDesk:
    """``WriteDesk`` for MCP writes over an action log (the store)."""

    def __init__(self, tools: McpTools, log: ActionLog) -> None:
        """Prepare and run ``tools``' writes, logged in ``log``."""
        self.tools = tools
        self.log = log

    def prepare(self, call: ToolCall) -> PreparedAction:
        """Validate ``call``; the read-back is built from the call, never from a result."""
        found, args = self.tools.validated(call)
        said = {k: v for k, v in args.items() if k not in found.choice.pinned}
        return PreparedAction(call.name, said, read_back(found.tool, said, found.choice.pinned))

    def revise(self, action: PreparedAction, text: str) -> PreparedAction:
        """A spoken change to an MCP call is not understood: the user asks again."""
        raise AgentError("not_a_change", "That tool's request cannot be changed; ask again.")

    def execute(self, action: PreparedAction, key: str) -> str:
        """Run ``action`` at most once for ``key``; the sentence of what happened.

        Raises:
            AgentError: the tool is gone, its arguments no longer fit, or its server is not
                running (nothing sent, nothing logged).
        """
        found, args = self.tools.validated(ToolCall(action.tool, dict(action.args)))
        parts = split_name(action.tool)
        assert parts is not None

        def run(_store: object) -> str:
            try:
                text, is_error = _said(self.tools.hub.call(
                    *parts, args, may_retry=retry_allowed(found.tool, found.choice)), found.tool)
            except McpError as err:
                if err.code == "mcp_not_ready":
                    raise
                _LOGGER.warning("turn=0 %s %s: %s", action.tool, UNKNOWN_OUTCOME, err.code)
                return (f"Sorry, {found.tool.label} on {found.tool.server}: "
                        f"{UNKNOWN_OUTCOME} ({err.message}). I will not try it again.")
            return f"{found.tool.label} failed: {text}" if is_error else text
        return str(self.log.execute_once(key, action.tool, args, run).result)


def _said(result: CallResult, tool: McpTool) -> tuple[str, bool]:
    if result.is_error:
        return result.text or "It failed.", True
    return spoken_result(result.text, result.structured) if result.text else "Done.", False
