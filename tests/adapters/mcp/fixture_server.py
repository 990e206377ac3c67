"""A small MCP server of ours for the tests: a read, a counted write, slow, crashing, typed.

Run as ``python fixture_server.py COUNT_FILE`` (stdio) or ``python fixture_server.py
COUNT_FILE --http PORT`` (streamable HTTP on 127.0.0.1). Every run of ``record`` appends a
line to COUNT_FILE, so a test counts executions on the real file. ``crash`` (and
``fail_once`` the first time) ends the process (the supervisor must start it again);
``slow`` sleeps (a timeout); ``add`` takes integers (bad arguments are refused by the server).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

COUNT = Path(sys.argv[1])
server = MCPServer("fixture")


@server.tool(title="Echo words", annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    """Say the text back, upper-cased."""
    return text.upper()


@server.tool(title="Record a line", annotations=ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False))
def record(line: str, folder: str = "") -> str:
    """Write a line in the record book."""
    with COUNT.open("a", encoding="utf-8") as f:
        f.write(f"{line}|{folder}\n")
    return f"recorded {line}"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def wipe(what: str) -> str:
    """Wipe something (destructive)."""
    return f"wiped {what}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
def slow(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "slept"


@server.tool(title="Slow write", annotations=ToolAnnotations(
    read_only_hint=False, destructive_hint=False))
def slow_record(line: str, seconds: float) -> str:
    """Write a line after a pause."""
    time.sleep(seconds)
    with COUNT.open("a", encoding="utf-8") as f:
        f.write(f"{line}|slow\n")
    return "recorded late"


@server.tool(title="Crash the server", annotations=ToolAnnotations(read_only_hint=True))
def crash() -> str:
    """Crash the fixture server on purpose."""
    sys.stderr.write("fixture: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
def fail_once(marker: str) -> str:
    """Exit the first time (``marker`` does not exist yet), answer after."""
    if not Path(marker).exists():
        Path(marker).write_text("crashed", encoding="utf-8")
        os._exit(3)
    return "survived"


@server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


if __name__ == "__main__":
    sys.stderr.write("fixture: started\n")
    sys.stderr.flush()
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run(transport="streamable-http", host="127.0.0.1", port=port)
    else:
        server.run()
