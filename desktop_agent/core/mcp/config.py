"""Your own tools' servers: ``mcp.json`` (the file other assistants read) and our choices.

Two sources, parsed here from text and tables (reading the files is
``adapters/mcp/mcp_files.py``'s job):

* ``mcp.json`` in the config folder, the shape Claude Desktop, Cursor and LM Studio write:
  ``{"mcpServers": {NAME: {"command", "args", "env", "cwd"} | {"url", "headers"}}}``;
  VS Code's top key ``servers`` is read too, ``type`` (stdio/http) is optional, and unknown
  keys are ignored.
* ``settings.toml``'s ``[mcp.servers.NAME]`` tables, our own choices, kept out of the shared
  file: ``enabled`` (true), ``trusted`` (false), ``pinned`` (arguments a voice cannot
  dictate: dropped from the grammar, injected at call time), ``timeout_s`` (30) and
  ``allow`` (per tool: "ask", "always" or "never").

A broken file is an ``McpError`` naming the file and the line; a bad entry is skipped with a
warning, the others still load. Pure: stdlib only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from desktop_agent.core.errors import McpError

FILE_NAME: Final = "mcp.json"
DEFAULT_TIMEOUT_S: Final = 30.0
MAX_TIMEOUT_S: Final = 600.0
SEPARATOR: Final = "__"
"""Between a server's name and its tool's: ``git__git_status`` (as other clients name them)."""
_SERVER_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")
"""A server's name: it prefixes tool names, so no '__', no '_' at its end, no spaces."""


class Allow(Enum):
    """What a tool may do without asking (``allow`` in ``[mcp.servers.NAME]``)."""

    ASK = "ask"
    """As its class says: a read runs at once, a write is read back and needs a yes."""
    ALWAYS = "always"
    """Runs without a read-back (never for a destructive or unannotated tool)."""
    NEVER = "never"
    """Never offered, never run."""


@dataclass(frozen=True, slots=True)
class ServerEntry:
    """One server of ``mcp.json``: a command to start (stdio) or a URL (streamable HTTP)."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def transport(self) -> str:
        """'stdio' (a command) or 'http' (a URL)."""
        return "http" if self.url else "stdio"


@dataclass(frozen=True, slots=True)
class ServerChoice:
    """Our choices for one server (``[mcp.servers.NAME]``); the defaults are the safe ones."""

    enabled: bool = True
    trusted: bool = False
    """False: every tool is a confirmed write, whatever its annotations say."""
    pinned: Mapping[str, Any] = field(default_factory=dict)
    """Arguments the voice cannot dictate (a repository's path): never in the grammar,
    always injected at call time."""
    timeout_s: float = DEFAULT_TIMEOUT_S
    """How long one call may take before it is given up (the server may still finish it)."""
    allow: Mapping[str, Allow] = field(default_factory=dict)
    """Per tool (its name on the server): ``Allow``; a tool not named is ``ASK``."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """A server as the app runs it: where it is and what we chose for it."""

    entry: ServerEntry
    choice: ServerChoice

    @property
    def name(self) -> str:
        """The server's name (the tools' prefix)."""
        return self.entry.name


@dataclass(frozen=True, slots=True)
class McpConfig:
    """Every configured server, in the file's order, and what could not be read."""

    servers: tuple[ServerConfig, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def enabled(self) -> tuple[ServerConfig, ...]:
        """The servers to start."""
        return tuple(s for s in self.servers if s.choice.enabled)


def parse_mcp_json(text: str, source: str = FILE_NAME) -> tuple[tuple[ServerEntry, ...],
                                                                 tuple[str, ...]]:
    """The servers of an ``mcp.json`` text, and a warning per entry that was skipped.

    Raises:
        McpError: ``mcp_config_invalid`` when the text is not JSON (the message names
            ``source`` and the line) or not an object of servers.
    """
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as err:
        raise McpError("mcp_config_invalid",
                       f"{source} is not valid JSON: {err.msg} at line {err.lineno}, "
                       f"column {err.colno}.",
                       f"Correct line {err.lineno} of {source}; until then no tools of "
                       "your own are loaded.") from err
    if not isinstance(data, dict):
        raise McpError("mcp_config_invalid", f"{source} must hold a JSON object.",
                       'Write {"mcpServers": {"name": {"command": ...}}}.')
    table = data.get("mcpServers", data.get("servers", {}))
    if not isinstance(table, dict):
        raise McpError("mcp_config_invalid", f'{source}: "mcpServers" must be an object.',
                       'Write {"mcpServers": {"name": {"command": ...}}}.')
    entries: list[ServerEntry] = []
    warnings: list[str] = []
    for name, raw in table.items():
        try:
            entries.append(_entry(str(name), raw))
        except ValueError as err:
            warnings.append(f"{source}: server {name!r} skipped: {err}.")
    return tuple(entries), tuple(warnings)


def _entry(name: str, raw: Any) -> ServerEntry:
    if not _SERVER_NAME.fullmatch(name) or SEPARATOR in name or name.endswith("_"):
        raise ValueError("a name is a letter, then letters, digits, '-' or single '_' "
                         "(at most 32, not ending in '_')")
    if not isinstance(raw, dict):
        raise ValueError("an entry must be an object")
    command, url = raw.get("command", ""), raw.get("url", raw.get("serverUrl", ""))
    if not isinstance(command, str) or not isinstance(url, str):
        raise ValueError('"command" and "url" are text')
    if bool(command) == bool(url):
        raise ValueError('give either "command" (a program to start) or "url"')
    if url and not re.match(r"https?://", url):
        raise ValueError(f"{url!r} is not an http:// or https:// address")
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError('"args" must be a list of text')
    cwd = raw.get("cwd", "")
    if not isinstance(cwd, str):
        raise ValueError('"cwd" must be text')
    return ServerEntry(name=name, command=command, args=tuple(args), env=_texts(raw, "env"),
                       cwd=cwd, url=url, headers=_texts(raw, "headers"))


def _texts(raw: Mapping[str, Any], key: str) -> dict[str, str]:
    value = raw.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValueError(f'"{key}" must map names to text')
    return {str(k): v for k, v in value.items()}


def parse_choices(table: Any) -> tuple[dict[str, ServerChoice], tuple[str, ...]]:
    """Our choices per server from settings.toml's ``[mcp]`` table, and what was refused.

    A refused value keeps its safe default (untrusted, asks) and is reported.
    """
    servers = table.get("servers", {}) if isinstance(table, dict) else {}
    if not isinstance(servers, dict):
        return {}, ("settings.toml: [mcp.servers] must be a table of servers.",)
    choices: dict[str, ServerChoice] = {}
    warnings: list[str] = []
    for name, raw in servers.items():
        if not isinstance(raw, dict):
            warnings.append(f"settings.toml: [mcp.servers.{name}] must be a table.")
            continue
        choices[str(name)] = _choice(str(name), raw, warnings)
    return choices, tuple(warnings)


def _choice(name: str, raw: Mapping[str, Any], warnings: list[str]) -> ServerChoice:
    where = f"settings.toml: mcp.servers.{name}"
    values: dict[str, Any] = {}
    for key in ("enabled", "trusted"):
        if key in raw:
            if isinstance(raw[key], bool):
                values[key] = raw[key]
            else:
                warnings.append(f"{where}.{key} must be true or false.")
    if "timeout_s" in raw:
        t = raw["timeout_s"]
        if isinstance(t, int | float) and not isinstance(t, bool) and 0 < t <= MAX_TIMEOUT_S:
            values["timeout_s"] = float(t)
        else:
            warnings.append(f"{where}.timeout_s must be a number of seconds, above 0 and at "
                            f"most {MAX_TIMEOUT_S:g}; using {DEFAULT_TIMEOUT_S:g}.")
    pinned = raw.get("pinned", {})
    if isinstance(pinned, dict):
        values["pinned"] = dict(pinned)
    else:
        warnings.append(f"{where}.pinned must be a table of argument = value.")
    allow: dict[str, Allow] = {}
    raw_allow = raw.get("allow", {})
    for tool, word in (raw_allow.items() if isinstance(raw_allow, dict) else ()):
        try:
            allow[str(tool)] = Allow(word)
        except ValueError:
            warnings.append(f"{where}.allow.{tool} must be \"ask\", \"always\" or \"never\".")
    if not isinstance(raw_allow, dict):
        warnings.append(f"{where}.allow must be a table of tool = \"ask\" | \"always\" | "
                        "\"never\".")
    values["allow"] = allow
    unknown = sorted(set(raw) - {"enabled", "trusted", "timeout_s", "pinned", "allow"})
    warnings.extend(f"{where}.{k} is not a setting; ignored." for k in unknown)
    return ServerChoice(**values)


def combine(entries: tuple[ServerEntry, ...], choices: Mapping[str, ServerChoice],
            warnings: tuple[str, ...] = ()) -> McpConfig:
    """Each server of ``mcp.json`` with its choices (the defaults where none were made)."""
    names = {e.name for e in entries}
    orphans = tuple(f"settings.toml: [mcp.servers.{n}] names no server of {FILE_NAME}."
                    for n in choices if n not in names)
    servers = tuple(ServerConfig(e, choices.get(e.name, ServerChoice())) for e in entries)
    return McpConfig(servers, (*warnings, *orphans))


_DOWNLOADERS: Final = {"npx": "npm install -g {pkg}", "bunx": "bun add -g {pkg}",
                       "pnpx": "pnpm add -g {pkg}", "uvx": "uv tool install {pkg}",
                       "pipx": "pipx install {pkg}"}


def download_hint(command: str, args: tuple[str, ...]) -> str:
    """What to install instead when ``command`` downloads its server at start ('' if not).

    ``npx -y pkg``, ``uvx pkg``, ``pipx run pkg``, ``uv tool run pkg``, ``pnpm dlx pkg``:
    they fetch the package from the network on the first start, so offline the server
    never starts.
    """
    prog = command.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".exe")
    rest = list(args)
    if prog == "uv" and rest[:2] == ["tool", "run"]:
        prog, rest = "uvx", rest[2:]
    elif prog == "pnpm" and rest[:1] == ["dlx"]:
        prog, rest = "pnpx", rest[1:]
    elif prog == "pipx" and rest[:1] == ["run"]:
        rest = rest[1:]
    elif prog not in _DOWNLOADERS or prog == "pipx":
        return ""
    pkg = next((a for a in rest if not a.startswith("-")), "<package>")
    return (f"'{' '.join((command, *args))}' downloads the server when it starts, which "
            f"needs the network. Install it once ({_DOWNLOADERS[prog].format(pkg=pkg)}) and "
            f"set \"command\" to the installed program.")


def merged_servers(ours: str, theirs: str, source: str) -> tuple[str, tuple[str, ...],
                                                                 tuple[str, ...]]:
    """``mcp.json`` text with the servers of another app's file added ("import from").

    Servers are copied as that file writes them (unknown keys too: ours are ignored on
    reading); a name ``ours`` already has is kept as it is, and an entry we could not run is
    not copied.

    Returns:
        The new text, the names added, and a sentence per name not added.

    Raises:
        McpError: ``mcp_config_invalid`` when either text is not a JSON object of servers.
    """
    entries, skipped = parse_mcp_json(theirs, source)
    mine, _ = parse_mcp_json(ours, FILE_NAME)
    data = json.loads(ours) if ours.strip() else {}
    key = "mcpServers" if "mcpServers" in data or "servers" not in data else "servers"
    table = data.setdefault(key, {})
    raw = json.loads(theirs)
    raw = raw.get("mcpServers", raw.get("servers", {}))
    have = {e.name for e in mine} | set(table)
    added = [e.name for e in entries if e.name not in have]
    kept = [f"{e.name}: {FILE_NAME} has a server of that name; kept." for e in entries
            if e.name in have]
    for name in added:
        table[name] = raw[name]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n", tuple(added), (
        *skipped, *kept)


def updated_choices(table: Any, name: str, *, enabled: bool, trusted: bool,
                    allow: Mapping[str, str]) -> dict[str, Any]:
    """settings.toml's ``[mcp]`` table with server ``name``'s choices set (Settings' Save).

    ``allow`` maps a tool (its name on the server) to "ask", "always" or "never"; "ask" is
    the default, so it is written by leaving the tool out. What else the table holds
    (``timeout_s``, ``pinned``, other servers, the allow of tools not in ``allow``: a server
    not running lists none) is kept.

    Raises:
        McpError: ``mcp_choice_invalid`` for an ``allow`` word that is not one of the three.
    """
    out = dict(table) if isinstance(table, dict) else {}
    servers = dict(out.get("servers") or {}) if isinstance(out.get("servers"), dict) else {}
    server = dict(servers.get(name) or {}) if isinstance(servers.get(name), dict) else {}
    kept = server.get("allow")
    words = dict(kept) if isinstance(kept, dict) else {}
    for tool, word in allow.items():
        try:
            chosen = Allow(word)
        except ValueError as err:
            raise McpError("mcp_choice_invalid", f"{name}: {tool} cannot be {word!r}.",
                           'Choose "ask", "always" or "never".') from err
        if chosen is Allow.ASK:
            words.pop(tool, None)
        else:
            words[tool] = chosen.value
    server.update(enabled=enabled, trusted=trusted)
    if words:
        server["allow"] = words
    else:
        server.pop("allow", None)
    servers[name] = server
    out["servers"] = servers
    return out
