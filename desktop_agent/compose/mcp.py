"""The user's MCP servers, wired: config read, hub started in the background, tools and desk.

Nothing here runs when no server is configured: the ``mcp`` package is not even imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_agent.adapters.mcp.mcp_client import McpHub
from desktop_agent.adapters.mcp.mcp_desk import McpDesk, McpTools
from desktop_agent.adapters.mcp.mcp_files import load_mcp_config
from desktop_agent.core.mcp.config import McpConfig
from desktop_agent.core.mcp.tools import hints_line, may_always, refused_allows


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
    return {"servers": servers, "warnings": warnings}
