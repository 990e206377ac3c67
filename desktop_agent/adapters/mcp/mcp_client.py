"""Connections to the user's MCP servers: started in the background, watched, restarted.

``McpHub`` runs one asyncio loop on its own daemon thread. Each enabled server gets a
supervisor task there: it starts the server (stdio: the command, its stderr appended to
``log_dir()/mcp/NAME.log``; http: the URL with its headers), lists its tools, lists them
again every ``ping_s`` (the 2026-07-28 protocol has no ping) and, when it exits or stops
answering, starts it again after a backoff (0.5 s, 1 s, 2 s, 5 s, 10 s, then every 30 s).
``start`` returns at once: the window never waits for a server.

Error contract: ``call`` runs on the caller's thread and blocks at most the timeout. A tool's
own failure is a result (``is_error``). ``McpError`` codes: ``mcp_not_ready`` (the server is
not running: nothing was sent), ``mcp_timeout`` and ``mcp_connection_lost`` (the request was
sent and no answer came: the outcome is unknown, and the server may still finish it, so it
is never sent again, except once after a lost connection when the caller says it may: a
trusted server's ``idempotentHint`` tool, ``core.mcp.tools.retry_allowed``). The ``mcp``
package (~1.5 s to import) is imported on the loop's thread, only when a server is
configured. Runs on: any thread (``call``, ``states``); the loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from desktop_agent.adapters.mcp.mcp_files import server_log_path
from desktop_agent.core.errors import McpError
from desktop_agent.core.mcp.config import McpConfig, ServerConfig, download_hint
from desktop_agent.core.mcp.tools import McpTool, turn_wait_s

_LOGGER = logging.getLogger(__name__)
BACKOFF_S: Final = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
RESULT_CHARS: Final = 2000
"""A tool's text result is cut here: a reply is spoken, not a document read aloud."""


@dataclass(frozen=True, slots=True)
class ServerState:
    """Where one server stands."""

    name: str
    transport: str
    status: str = "starting"
    """'starting', 'ready' or 'failed' (restarting after its backoff)."""
    message: str = ""
    """Why it failed, with what to do."""
    tools: tuple[McpTool, ...] = ()
    starts: int = 0
    """How many times it was started (1 + restarts)."""
    log_path: str = ""
    retry_in_s: float = 0.0
    """'failed': the pause before it is started again (the backoff), seconds."""


@dataclass(frozen=True, slots=True)
class CallResult:
    """A tool's answer: its text (cut at ``RESULT_CHARS``), structured content, error flag."""

    text: str
    is_error: bool = False
    structured: Any = None
    retried: bool = False


@dataclass
class _Server:
    config: ServerConfig
    state: ServerState
    client: Any = None
    ready: asyncio.Event | None = None
    broken: asyncio.Event | None = None
    tools: dict[str, McpTool] = field(default_factory=dict)
    tried: bool = False
    """Started once, ready or failed (``McpHub.wait_settled``)."""


class McpHub:
    """Every enabled server of ``config``, supervised on one background loop."""

    def __init__(self, config: McpConfig, *, log_dir: Path | None = None,
                 backoff_s: Sequence[float] = BACKOFF_S, ping_s: float = 5.0) -> None:
        """Prepare (nothing starts before ``start``)."""
        self.config = config
        self._log_dir = log_dir
        self._backoff = tuple(backoff_s)
        self._ping_s = ping_s
        self._lock = threading.Lock()
        self._servers = {s.name: _Server(s, ServerState(
            s.name, s.entry.transport, log_path=str(server_log_path(s.name, log_dir))))
            for s in config.enabled}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._settled = threading.Event()

    # --- any thread ------------------------------------------------------------------------

    def start(self) -> None:
        """Start every server in the background; returns at once. Runs on: any thread."""
        if self._thread is not None or not self._servers:
            self._settled.set()
            return
        started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(started,), name="mcp-hub",
                                        daemon=True)
        self._thread.start()
        started.wait()

    def wait_settled(self, timeout_s: float) -> bool:
        """Wait until every server was started once (ready or failed); False on timeout."""
        return self._settled.wait(timeout_s)

    def states(self) -> tuple[ServerState, ...]:
        """Each enabled server's state, in the config's order."""
        with self._lock:
            return tuple(s.state for s in self._servers.values())

    def tool(self, server: str, name: str) -> McpTool | None:
        """The tool ``name`` of ``server`` as last listed, or None."""
        with self._lock:
            entry = self._servers.get(server)
            return None if entry is None else entry.tools.get(name)

    def call(self, server: str, tool: str, args: Mapping[str, Any],
             timeout_s: float | None = None, *, may_retry: bool = False) -> CallResult:
        """Call ``tool`` on ``server`` with ``args`` (already complete: pinned ones in).

        ``may_retry``: send it once more after a lost connection, once the server is back
        (only for a trusted server's ``idempotentHint`` tool: ``retry_allowed``).

        Raises:
            McpError: see the module's error contract.
        """
        entry = self._servers.get(server)
        loop = self._loop
        if entry is None or loop is None:
            raise McpError("mcp_not_ready", f"There is no running server called {server}.",
                           "Check mcp.json and `desktop-agent mcp list`.")
        limit = timeout_s if timeout_s is not None else entry.config.choice.timeout_s
        future = asyncio.run_coroutine_threadsafe(
            self._call(entry, tool, dict(args), limit, may_retry), loop)
        try:
            return future.result(turn_wait_s(limit))  # the loop enforces ``limit`` itself
        except TimeoutError as err:
            future.cancel()
            raise _timeout(server, tool, limit) from err

    def close(self) -> None:
        """Stop every server and the loop (waits a few seconds at most)."""
        loop, stop, thread = self._loop, self._stop, self._thread
        if loop is None or stop is None or thread is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop already ended
            loop.call_soon_threadsafe(stop.set)
        thread.join(10)

    # --- the loop thread -------------------------------------------------------------------

    def _run(self, started: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._stop = asyncio.Event()
        started.set()
        try:
            loop.run_until_complete(self._main())
        finally:
            loop.close()

    async def _main(self) -> None:
        assert self._stop is not None
        tasks = [asyncio.create_task(self._supervise(s)) for s in self._servers.values()]
        await self._stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _supervise(self, server: _Server) -> None:
        server.ready, server.broken = asyncio.Event(), asyncio.Event()
        failures = 0
        while True:
            self._set(server, status="starting", starts=server.state.starts + 1)
            message = await self._session(server)
            server.client = None
            server.ready.clear()
            failures = 0 if server.state.status == "ready" else failures + 1
            hint = download_hint(server.config.entry.command, server.config.entry.args)
            said = failures and hint and hint not in message  # a missing command says it
            reason = f"{message} {hint}".strip() if said else message
            pause = self._backoff[min(failures, len(self._backoff) - 1)]
            self._set(server, status="failed", message=reason, retry_in_s=pause)
            _LOGGER.warning("turn=0 mcp server %s stopped: %s", server.config.name, reason)
            self._tried(server)
            await asyncio.sleep(pause)

    async def _session(self, server: _Server) -> str:
        """Run one connection until it breaks; the reason it ended."""
        try:
            import mcp  # lazy: ~1.5 s, only when a server is configured
        except ImportError:
            return McpError("mcp_not_installed", "The mcp package is not installed.",
                            "Run scripts/setup.sh again, or pip install mcp==2.3.0.").describe()
        assert server.ready is not None and server.broken is not None
        server.broken.clear()
        try:
            async with contextlib.AsyncExitStack() as stack:
                transport = self._transport(server.config, stack)
                client = await stack.enter_async_context(mcp.Client(transport, cache=None))
                listed = await asyncio.wait_for(client.list_tools(), 60)
                tools = {t.name: _tool(server.config.name, t) for t in listed.tools}
                server.tools, server.client = tools, client
                self._set(server, status="ready", message="", tools=tuple(tools.values()))
                server.ready.set()
                self._tried(server)
                while not server.broken.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(server.broken.wait(), self._ping_s)
                        break
                    # The 2026-07-28 protocol has no ping: listing is the probe, and
                    # keeps the tool list current.
                    listed = await asyncio.wait_for(client.list_tools(), 30)
                    tools = {t.name: _tool(server.config.name, t) for t in listed.tools}
                    server.tools = tools
                    self._set(server, tools=tuple(tools.values()))
                return "the server stopped answering"
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - a server's failure is a status
            return _reason(exc, server.config)

    def _transport(self, config: ServerConfig, stack: contextlib.AsyncExitStack) -> Any:
        from mcp.client.stdio import StdioServerParameters, stdio_client
        from mcp.client.streamable_http import streamable_http_client

        entry = config.entry
        if entry.url:
            import httpx2

            http = httpx2.AsyncClient(headers=dict(entry.headers),
                                      timeout=httpx2.Timeout(30.0, read=None))
            stack.push_async_callback(http.aclose)
            return streamable_http_client(entry.url, http_client=http)
        if shutil.which(entry.command) is None:
            hint = download_hint(entry.command, entry.args)
            raise McpError("mcp_command_missing", f"{entry.command!r} is not installed.",
                           hint or f"Install it, or correct \"command\" of {entry.name}.")
        log = server_log_path(entry.name, self._log_dir)
        log.parent.mkdir(parents=True, exist_ok=True)
        errlog = stack.enter_context(log.open("a", encoding="utf-8"))
        params = StdioServerParameters(command=entry.command, args=list(entry.args),
                                       env=dict(entry.env) or None, cwd=entry.cwd or None)
        return stdio_client(params, errlog=errlog)

    async def _call(self, server: _Server, tool: str, args: dict[str, Any],
                    limit: float, may_retry: bool) -> CallResult:
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        name = server.config.name
        for attempt in (0, 1):
            client = server.client
            if client is None:
                raise McpError("mcp_not_ready", f"The {name} server is not running "
                               f"({server.state.message or server.state.status}).",
                               f"See `desktop-agent mcp list` and {server.state.log_path}.")
            try:
                result = await client.call_tool(tool, args, read_timeout_seconds=limit)
            except MCPError as err:
                if err.code == REQUEST_TIMEOUT:
                    raise _timeout(name, tool, limit) from err
                if err.code != CONNECTION_CLOSED:
                    return CallResult(f"{name} refused the call: {err.message}", True)
                assert server.broken is not None and server.ready is not None
                server.broken.set()
                if attempt or not may_retry:
                    raise McpError("mcp_connection_lost",
                                   f"The {name} server closed the connection during "
                                   f"{tool}; whether it was done is unknown.",
                                   f"See {server.state.log_path}; it is being restarted.") from err
                with contextlib.suppress(TimeoutError):  # idempotent: one retry, once back
                    await asyncio.wait_for(_next_ready(server), limit)
                continue
            return _result(result, retried=bool(attempt))
        raise AssertionError("unreachable")

    def _set(self, server: _Server, **changes: Any) -> None:
        with self._lock:
            server.state = replace(server.state, **changes)

    def _tried(self, server: _Server) -> None:
        server.tried = True
        if all(s.tried for s in self._servers.values()):
            self._settled.set()


async def _next_ready(server: _Server) -> None:
    assert server.ready is not None
    while server.ready.is_set():  # the old connection's flag, until its session ends
        await asyncio.sleep(0.05)
    await server.ready.wait()


def _timeout(server: str, tool: str, limit: float) -> McpError:
    return McpError("mcp_timeout", f"{server} did not answer {tool} within {limit:g} s; "
                    "whether it was done is unknown.",
                    f"Raise timeout_s in [mcp.servers.{server}] if it needs longer.")


def _tool(server: str, tool: Any) -> McpTool:
    notes = tool.annotations
    return McpTool(
        server=server, name=tool.name, description=tool.description or "",
        title=tool.title or (notes.title if notes is not None else None) or "",
        input_schema=dict(tool.input_schema or {}),
        read_only=None if notes is None else notes.read_only_hint,
        destructive=None if notes is None else notes.destructive_hint,
        idempotent=None if notes is None else notes.idempotent_hint,
        open_world=None if notes is None else notes.open_world_hint)


def _result(result: Any, *, retried: bool) -> CallResult:
    parts = [getattr(block, "text", "") for block in result.content or ()]
    text = "\n".join(p for p in parts if p).strip()
    if len(text) > RESULT_CHARS:
        text = text[:RESULT_CHARS].rstrip() + " ..."
    return CallResult(text, bool(result.is_error), result.structured_content, retried)


def _reason(exc: BaseException, config: ServerConfig) -> str:
    """One sentence for why a server stopped (the first real error inside a group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, McpError):
        return exc.describe()
    where = config.entry.url or config.entry.command
    return f"{config.name} ({where}) failed: {exc.__class__.__name__}: {exc}".strip()
