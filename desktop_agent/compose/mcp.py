"""The user's MCP servers, wired: config read, hub started in the background, tools and desk.

Nothing here runs when no server is configured: the ``mcp`` package is not even imported.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from desktop_agent.adapters.mcp.mcp_client import McpHub
from desktop_agent.adapters.mcp.mcp_desk import McpDesk, McpTools, Offered
from desktop_agent.adapters.mcp.mcp_files import load_mcp_config
from desktop_agent.core.errors import AgentError
from desktop_agent.core.mcp.config import McpConfig
from desktop_agent.core.mcp.tools import (
    ToolClass,
    hints_line,
    may_always,
    refused_allows,
    split_name,
    too_many,
)
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.registry import Tool, ToolRegistry
from desktop_agent.core.tools.write_actions import PreparedAction
from desktop_agent.core.turns.tool_desk import WriteDesk

_LOGGER = logging.getLogger(__name__)
START_WAIT_S = 30.0
"""How long ``ask`` and ``replay`` wait for the servers to list their tools."""


def start_mcp(config: McpConfig | None = None, *, config_dir: Path | None = None,
              log_dir: Path | None = None) -> McpTools | None:
    """Start every enabled server in the background (returns at once); None when none."""
    config = config or load_mcp_config(config_dir)
    if not config.enabled:
        return None
    hub = McpHub(config, log_dir=log_dir)
    hub.start()
    return McpTools(hub)


def mcp_desk(tools: McpTools, store: Any) -> McpDesk:
    """The write desk of ``tools``, logging in ``store``'s action log."""
    return McpDesk(tools, store)


class RoutingDesk:
    """``WriteDesk`` that sends ``server__tool`` actions to the MCP desk, the rest to ours."""

    def __init__(self, builtin: WriteDesk | None, mcp: McpDesk | None) -> None:
        """Route between ``builtin`` (None: the built-in writes are unavailable) and ``mcp``
        (None until the servers have listed their tools: the app sets it then)."""
        self.builtin, self.mcp = builtin, mcp

    def _desk(self, name: str) -> WriteDesk:
        if split_name(name) is not None:
            if self.mcp is None:
                raise AgentError("mcp_not_ready", "Your own tools are still starting.")
            return self.mcp
        if self.builtin is None:
            raise AgentError("store_unavailable", "My notes and timers are not available.")
        return self.builtin

    def prepare(self, call: ToolCall) -> PreparedAction:
        """Validate ``call`` and build its read-back, on its own desk."""
        return self._desk(call.name).prepare(call)

    def revise(self, action: PreparedAction, text: str) -> PreparedAction:
        """Apply a spoken change to ``action``, on its own desk."""
        return self._desk(action.tool).revise(action, text)

    def execute(self, action: PreparedAction, key: str) -> str:
        """Run ``action`` once for ``key``, on its own desk."""
        return self._desk(action.tool).execute(action, key)


def wire_mcp(registry: ToolRegistry, desk: WriteDesk | None, store: Any,
             config: McpConfig | None, *, wait_s: float = START_WAIT_S
             ) -> tuple[WriteDesk | None, McpTools | None]:
    """Add ``config``'s servers' tools to ``registry``; the desk that also runs them.

    For ``ask`` and ``replay``: waits up to ``wait_s`` for the servers to list their tools
    (a server that is not up by then has none this run). Returns ``desk`` unchanged and
    None when ``config`` is None or names no enabled server; close ``tools.hub`` when done.
    """
    tools = start_mcp(config) if config is not None else None
    if tools is None:
        return desk, None
    tools.hub.wait_settled(wait_s)
    own = McpDesk(tools, store)
    for offered in tools.offered():
        if _grammar_problem(offered):
            continue
        registry.add(Tool(offered.spec, _runner(tools, own, offered)))
    return RoutingDesk(desk, own), tools


class AppTools:
    """Your own tools in the window: servers started after it is up, tools added when listed.

    ``build_runtime`` makes the registry, the routing desk and the set of write names the
    turn machine reads; ``start`` returns at once, and a daemon thread waits for the
    servers (up to ``wait_s``) and then adds their tools to all three. A server slower than
    that has no tools in this run. ``close`` stops the servers.
    """

    def __init__(self, config: McpConfig, registry: ToolRegistry, desk: RoutingDesk,
                 write_names: set[str], store: Any, *, wait_s: float = 60.0,
                 log_dir: Path | None = None,
                 tool_limits: dict[str, float] | None = None) -> None:
        """Hold what the tools join; nothing starts before ``start``.

        ``tool_limits``: the turn machine's per-tool limits (each tool's server's
        ``timeout_s`` goes in as it joins).
        """
        self.config, self.registry, self.desk = config, registry, desk
        self.tool_limits = {} if tool_limits is None else tool_limits
        self.write_names, self.store, self.wait_s = write_names, store, wait_s
        self.log_dir = log_dir
        self.tools: McpTools | None = None
        self.added = threading.Event()
        """Set once the tools were added (or there were none to add)."""

    def start(self) -> None:
        """Start the servers and the waiting thread. Runs on: the GUI thread, returns at once."""
        self.tools = start_mcp(self.config, log_dir=self.log_dir)
        if self.tools is None:
            self.added.set()
            return
        threading.Thread(target=self._add_when_listed, name="mcp-tools", daemon=True).start()

    def _add_when_listed(self) -> None:
        tools = self.tools
        assert tools is not None
        tools.hub.wait_settled(self.wait_s)
        own = McpDesk(tools, self.store)
        for offered in tools.offered():
            if _grammar_problem(offered) or self.registry.spec(offered.spec.name):
                continue
            if offered.spec.writes:
                self.write_names.add(offered.spec.name)  # before the registry offers it
            if offered.spec.timeout_s is not None:
                self.tool_limits[offered.spec.name] = offered.spec.timeout_s
            self.registry.add(Tool(offered.spec, _runner(tools, own, offered)))
        self.desk.mcp = own
        self.added.set()

    def close(self) -> None:
        """Stop the servers (a few seconds at most)."""
        if self.tools is not None:
            self.tools.hub.close()


def _grammar_problem(offered: Offered) -> str:
    """Why the decision run could not constrain a call to this tool ('' when it can).

    llama-cpp-python's schema converter asserts on some schemas; such a tool is left out
    (with a warning) rather than failing the turn that offers it.
    """
    try:
        from desktop_agent.adapters.llm.llm_call_grammar import call_grammar

        call_grammar((offered.spec,))
    except ImportError:
        return ""  # no llama.cpp here: an LLM server decides, with its own grammar
    except Exception as exc:  # noqa: BLE001 - the converter raises anything
        _LOGGER.warning("turn=0 %s left out: no call grammar for its schema (%s)",
                        offered.spec.name, exc)
        return str(exc) or exc.__class__.__name__
    return ""


def _runner(tools: McpTools, desk: McpDesk, offered: Offered) -> Any:
    name = offered.spec.name

    def run(args: Mapping[str, Any]) -> str:
        call = ToolCall(name, dict(args))
        if offered.klass is ToolClass.ALWAYS:  # allowed to run unasked: still logged once
            return desk.execute(desk.prepare(call), f"mcp-always-{uuid.uuid4().hex}")
        text, is_error = tools.read(call)
        if is_error:
            raise AgentError("mcp_tool_failed", text)
        return text
    return run


def describe(config: McpConfig, tools: McpTools | None) -> dict[str, Any]:
    """Every server, its status and its tools with their class, JSON-able (``mcp list``)."""
    states = {s.name: s for s in tools.hub.states()} if tools else {}
    servers = []
    warnings = list(config.warnings)
    for server in config.servers:
        state = states.get(server.name)
        listed = list(state.tools) if state else []
        warnings += refused_allows(listed, server.choice)
        offered = {o.tool.name: o for o in tools.offered()} if tools else {}
        servers.append({
            "name": server.name, "transport": server.entry.transport,
            "where": server.entry.url or " ".join((server.entry.command, *server.entry.args)),
            "enabled": server.choice.enabled, "trusted": server.choice.trusted,
            "pinned": sorted(server.choice.pinned), "timeout_s": server.choice.timeout_s,
            "status": state.status if state else "disabled",
            "message": state.message if state else "",
            "log": state.log_path if state else "",
            "tools": [{
                "name": t.full_name, "title": t.title,
                "class": offered[t.name].klass.value if t.name in offered else "never",
                "annotations": hints_line(t), "may_always": may_always(t),
            } for t in listed],
        })
    if tools is not None and (crowded := too_many(len(tools.offered()))):
        warnings.append(crowded)
    return {"servers": servers, "warnings": warnings}
