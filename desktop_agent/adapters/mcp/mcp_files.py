"""Read the MCP configuration: ``mcp.json`` and settings.toml's ``[mcp]``, in the config folder.

The config folder is ``adapters.paths.config_dir()`` (``DESKTOP_AGENT_CONFIG_DIR`` respected),
where settings.toml lives. Reading never raises: a missing file is no servers, a broken one is
a warning that names the file and the line (``core.mcp.config``), and the app starts without
tools of its own. The per-server logs are in ``log_dir()/mcp/NAME.log``.
"""

from __future__ import annotations

import logging
import os
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from desktop_agent.adapters import paths
from desktop_agent.core.errors import McpError, SettingsError
from desktop_agent.core.mcp.config import (
    FILE_NAME,
    McpConfig,
    combine,
    merged_servers,
    parse_choices,
    parse_mcp_json,
    updated_choices,
)

_LOGGER = logging.getLogger(__name__)
SETTINGS_FILE = "settings.toml"


def mcp_json_path(config_dir: Path | None = None) -> Path:
    """Where ``mcp.json`` is read from."""
    return (config_dir or paths.config_dir()) / FILE_NAME


def server_log_path(name: str, log_dir: Path | None = None) -> Path:
    """The file a server's stderr is appended to."""
    return (log_dir or paths.log_dir()) / "mcp" / f"{name}.log"


def load_mcp_config(config_dir: Path | None = None) -> McpConfig:
    """The configured servers with our choices, and a warning per problem. Never raises."""
    folder = config_dir or paths.config_dir()
    json_path = folder / FILE_NAME
    warnings: list[str] = []
    try:
        text = json_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as err:
        warnings.append(f"Could not read {json_path} ({err}); no tools of your own are loaded.")
        text = ""
    try:
        entries, skipped = parse_mcp_json(text, str(json_path))
    except McpError as err:
        warnings.append(err.describe())
        entries, skipped = (), ()
    warnings += skipped
    choices, refused = parse_choices(_mcp_table(folder / SETTINGS_FILE, warnings))
    config = combine(entries, choices, (*warnings, *refused))
    for warning in config.warnings:
        _LOGGER.warning("turn=0 %s", warning)
    return config


def import_servers(source: Path, config_dir: Path | None = None
                   ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Add the servers of another app's file (Claude Desktop, Cursor, LM Studio) to ours.

    Writes ``mcp.json`` atomically; names it already has are kept. Every imported server
    is untrusted until you say otherwise in settings.toml.

    Returns:
        The names added, and a sentence per server not added.

    Raises:
        McpError: ``mcp_import_failed`` (a file that cannot be read or written) or
            ``mcp_config_invalid`` (either file is not a JSON object of servers).
    """
    target = mcp_json_path(config_dir)
    try:
        theirs = source.read_text(encoding="utf-8")
        ours = target.read_text(encoding="utf-8") if target.exists() else ""
    except (OSError, UnicodeDecodeError) as err:
        raise McpError("mcp_import_failed", f"Could not read {source}: {err}.",
                       "Give the path of a Claude Desktop, Cursor or LM Studio MCP file.") from err
    text, added, notes = merged_servers(ours, theirs, str(source))
    if added:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".mcp-", suffix=".tmp", dir=target.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, target)
        except OSError as err:
            raise McpError("mcp_import_failed", f"Could not write {target}: {err}.",
                           "Check that the config folder is writable.") from err
    return added, notes


def save_choices(choices: Mapping[str, tuple[bool, bool, Mapping[str, str]]],
                 config_dir: Path | None = None) -> Path:
    """Write each server's (enabled, trusted, allow) in settings.toml's ``[mcp.servers]``.

    The rest of the file is kept as it is (``timeout_s`` and ``pinned`` too); the write is
    atomic. They take effect when the app starts again.

    Raises:
        SettingsError: ``settings_write_failed`` (the file cannot be read or written).
        McpError: ``mcp_choice_invalid`` (an allow word that is not ask/always/never).
    """
    from desktop_agent.adapters.store.settings_store import save_kept_table

    path = (config_dir or paths.config_dir()) / SETTINGS_FILE
    warnings: list[str] = []
    table = _mcp_table(path, warnings)
    if warnings:  # never overwrite a file we could not read: the user's choices are in it
        raise SettingsError("settings_write_failed", warnings[0],
                            "Correct or remove settings.toml, then save again.")
    for name, (enabled, trusted, allow) in choices.items():
        table = updated_choices(table, name, enabled=enabled, trusted=trusted, allow=allow)
    return save_kept_table("mcp", table, path)


def _mcp_table(path: Path, warnings: list[str]) -> Any:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        warnings.append(f"Could not read [mcp] in {path} ({err}); every server is untrusted.")
        return {}
    return data.get("mcp", {})
