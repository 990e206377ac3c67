"""Settings' "Your own tools" section, wired: the servers as they stand, save, import.

``McpSettings`` gives the dialog its three callables (``SettingsChoices.mcp_servers``,
``save_mcp``, ``import_mcp``): the configured servers (``mcp.json`` with settings.toml's
``[mcp.servers]``, read again only after a save or an import) joined with the running
hub's states, our choices written to settings.toml, another app's file imported. Choices and
imported servers take effect when the app starts again (the running servers keep theirs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_agent.adapters import paths
from desktop_agent.adapters.mcp.mcp_client import ServerState
from desktop_agent.adapters.mcp.mcp_files import import_servers, load_mcp_config, save_choices
from desktop_agent.core.mcp.config import Allow, McpConfig, ServerConfig
from desktop_agent.core.mcp.tools import classify, hints_line, may_always
from desktop_agent.runtime.view_api import McpChoice, McpServerRow, McpToolRow

AT_NEXT_START = "they take effect when the app starts again"


class McpSettings:
    """The servers for Settings, from the config folder and the running hub (if any).

    Args:
        hub_states: The running hub's ``states`` (None: no server was started).
        config_dir: The config folder (None: ``paths.config_dir()``).

    Runs on: GUI thread (quick reads; a save or an import writes one small file).
    """

    def __init__(self, hub_states: Any = None, config_dir: Path | None = None) -> None:
        """Read the configuration once (again after each save or import)."""
        self._states = hub_states
        self._dir = config_dir
        self._stamp: tuple[float, ...] = ()
        self._config = McpConfig()
        self._reload()

    def _reload(self) -> None:
        self._stamp, self._config = self._files_stamp(), load_mcp_config(self._dir)

    def _files_stamp(self) -> tuple[float, ...]:
        folder = self._dir or paths.config_dir()
        out = []
        for name in ("mcp.json", "settings.toml"):
            try:
                out.append((folder / name).stat().st_mtime)
            except OSError:
                out.append(0.0)
        return tuple(out)

    def servers(self) -> tuple[McpServerRow, ...]:
        """Every configured server: our choices, its state now, its tools as last listed.

        The files are read again when either changed (edited by hand, or by ``mcp import``).
        """
        if self._files_stamp() != self._stamp:
            self._reload()
        states = {s.name: s for s in self._states()} if self._states is not None else {}
        return tuple(_row(s, states.get(s.name)) for s in self._config.servers)

    def save(self, choices: dict[str, McpChoice]) -> str:
        """Write ``choices``; the sentence to show. Raises AgentError."""
        save_choices(choices, self._dir)
        self._reload()
        names = ", ".join(sorted(choices))
        return f"Saved your choices for {names}; {AT_NEXT_START}."

    def import_file(self, path: str) -> str:
        """Add another app's servers to ``mcp.json``; the sentence to show. Raises AgentError."""
        added, notes = import_servers(Path(path).expanduser(), self._dir)
        self._reload()
        said = (f"Added {', '.join(added)} (not trusted: every tool asks first); "
                f"{AT_NEXT_START}." if added else "No server was added.")
        return " ".join((said, *notes))


def _row(server: ServerConfig, state: ServerState | None) -> McpServerRow:
    choice = server.choice
    tools = tuple(McpToolRow(
        name=t.name, full_name=t.full_name, label=t.label,
        runs_as=classify(t, choice).value,
        allow=choice.allow.get(t.name, Allow.ASK).value,
        may_always=may_always(t), annotations=hints_line(t),
    ) for t in (state.tools if state is not None else ()))
    status, text = status_line(server, state)
    return McpServerRow(
        name=server.name,
        where=server.entry.url or " ".join((server.entry.command, *server.entry.args)),
        enabled=choice.enabled, trusted=choice.trusted, status=status, status_text=text,
        tools=tools)


def status_line(server: ServerConfig, state: ServerState | None) -> tuple[str, str]:
    """(status, the line the user reads) for ``server`` in ``state`` (None: not started)."""
    if not server.choice.enabled:
        return "off", "Off: not started."
    if state is None:
        return "not_started", f"Not running: {AT_NEXT_START}."
    if state.status == "ready":
        count = len(state.tools)
        return "running", f"Running, {count} tool{'s' if count != 1 else ''}."
    if state.status == "starting":
        if state.starts > 1:
            return "restarting", f"Restarting (start {state.starts})\u2026"
        return "starting", "Starting\u2026"
    pause = f" Trying again in {state.retry_in_s:g} s." if state.retry_in_s else ""
    return "failed", f"Failed: {state.message}{pause} Its log: {state.log_path}"
