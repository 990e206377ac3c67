"""``desktop-agent mcp list|call``: your own tools (MCP servers) from a terminal.

    desktop-agent mcp list [--json]                    servers, status, tools and their class
    desktop-agent mcp call NAME TOOL --args '{...}'    call one tool (a write asks first)
    desktop-agent mcp import FILE                      add another app's servers (untrusted)

The servers are those of ``mcp.json`` in the config folder, with the choices of settings.toml's
``[mcp.servers.NAME]`` (docs/mcp.md). ``call`` reads a write back and runs it only after you
type "yes", once, logged in the assistant's action log (``--data-dir``, default the user data
dir). Exit status: 0 done, 2 bad input (arguments that are not JSON or do not fit the tool,
an unknown server or tool), 1 a failure (the tool's error, a server that did not start).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``mcp`` subcommand to the main parser's subparsers."""
    parser = subparsers.add_parser(
        "mcp", help="your own tools (MCP servers): list them, call one",
        description="The MCP servers of mcp.json in the config folder.")
    parser.add_argument("action", choices=["list", "call", "import"])
    parser.add_argument("names", nargs="*", metavar="NAME TOOL",
                        help="(call) the server's name and the tool's name; (import) the "
                             "file, e.g. ~/.config/Claude/claude_desktop_config.json")
    parser.add_argument("--args", default="{}", metavar="JSON",
                        help="(call) the tool's arguments as a JSON object")
    parser.add_argument("--json", action="store_true", help="(list) print JSON")
    parser.add_argument("--wait", type=float, default=30.0, metavar="S",
                        help="how long to wait for the servers to start (default 30)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="(call) where the action log is (default: the user data dir)")
    return parser


def run(args: argparse.Namespace) -> int:
    """Run one ``mcp`` action; the exit status."""
    from desktop_agent.adapters.mcp.mcp_files import load_mcp_config
    from desktop_agent.compose.mcp import start_mcp

    if args.action == "import":
        return _import(args.names)
    config = load_mcp_config()
    if args.action == "call" and len(args.names) != 2:
        print("mcp call needs a server's name and a tool's name: "
              "desktop-agent mcp call NAME TOOL --args '{...}'", file=sys.stderr)
        return EXIT_USAGE
    tools = start_mcp(config)
    try:
        if tools is not None:
            tools.hub.wait_settled(args.wait)
        if args.action == "list":
            return _list(config, tools, args.json)
        return _call(tools, args)
    finally:
        if tools is not None:
            tools.hub.close()


def _import(names: list[str]) -> int:
    from desktop_agent.adapters.mcp.mcp_files import import_servers, mcp_json_path

    if len(names) != 1:
        print("mcp import needs one file: desktop-agent mcp import "
              "~/.config/Claude/claude_desktop_config.json", file=sys.stderr)
        return EXIT_USAGE
    added, notes = import_servers(Path(names[0]).expanduser())
    for note in notes:
        print(f"not imported: {note}")
    if added:
        print(f"Added to {mcp_json_path()}: {', '.join(added)} (untrusted: every tool asks "
              "first; see docs/mcp.md to trust one).")
    else:
        print("Nothing added.")
    return EXIT_OK


def _list(config: Any, tools: Any, as_json: bool) -> int:
    from desktop_agent.compose.mcp import describe

    report = describe(config, tools)
    if as_json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return EXIT_OK
    for warning in report["warnings"]:
        print(f"warning: {warning}")
    if not report["servers"]:
        print("No servers. Add them to mcp.json in the config folder (see docs/mcp.md).")
    for s in report["servers"]:
        trust = "trusted" if s["trusted"] else "untrusted: every tool asks first"
        print(f"{s['name']} ({s['transport']}: {s['where']}) {s['status']}, {trust}")
        if s["message"]:
            print(f"  {s['message']}")
        for t in s["tools"]:
            print(f"  {t['name']:<36} {t['class']:<7} {t['annotations']}")
    return EXIT_OK


def _call(tools: Any, args: argparse.Namespace) -> int:
    from desktop_agent.core.errors import AgentError
    from desktop_agent.core.mcp.config import SEPARATOR
    from desktop_agent.core.mcp.tools import ToolClass
    from desktop_agent.core.ports import ToolCall

    try:
        arguments = json.loads(args.args)
    except ValueError as err:
        print(f"--args is not JSON: {err}", file=sys.stderr)
        return EXIT_USAGE
    if tools is None:
        print("[mcp_not_configured] No MCP server is configured. Fix: add one to mcp.json in "
              "the config folder (see docs/mcp.md).", file=sys.stderr)
        return EXIT_USAGE
    call = ToolCall(f"{args.names[0]}{SEPARATOR}{args.names[1]}", arguments)
    try:
        found, _ = tools.validated(call)
    except AgentError as err:
        state = {s.name: s for s in tools.hub.states()}.get(args.names[0])
        if state is not None and state.status != "ready":
            print(f"[mcp_not_ready] {args.names[0]} is {state.status}: {state.message}",
                  file=sys.stderr)
            return EXIT_FAILED
        print(err.describe(), file=sys.stderr)
        return EXIT_USAGE
    if found.klass is ToolClass.READ:
        text, is_error = tools.read(call)
        print(text)
        return EXIT_FAILED if is_error else EXIT_OK
    return _write(tools, call, found, args.data_dir)


def _write(tools: Any, call: Any, found: Any, data_dir: Path | None) -> int:
    from desktop_agent.adapters import paths
    from desktop_agent.adapters.store.store_sqlite import FILE_NAME
    from desktop_agent.compose.ledger import open_store
    from desktop_agent.compose.mcp import mcp_desk
    from desktop_agent.core.errors import AgentError
    from desktop_agent.core.mcp.tools import ToolClass, hints_line

    folder = data_dir or paths.data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    store, note = open_store(folder / FILE_NAME)
    if note:
        print(f"warning: {note}", file=sys.stderr)
    desk = mcp_desk(tools, store)
    try:
        action = desk.prepare(call)
        if found.klass is not ToolClass.ALWAYS:
            print(action.read_back)
            print(f"  tool: {call.name} ({hints_line(found.tool)})")
            for key, value in {**action.args, **found.choice.pinned}.items():
                pinned = " (pinned)" if key in found.choice.pinned else ""
                print(f"  {key}: {json.dumps(value, ensure_ascii=False)}{pinned}")
            print("Type yes to run it, anything else to cancel: ", end="", flush=True)
            answer = sys.stdin.readline().strip().lower()
            if answer not in ("y", "yes"):
                print("Cancelled: nothing was run.")
                return EXIT_OK
        print(desk.execute(action, f"mcp-cli-{uuid.uuid4().hex}"))
    except AgentError as err:
        print(err.describe(), file=sys.stderr)
        return EXIT_USAGE if err.code == "bad_arguments" else EXIT_FAILED
    finally:
        store.close()
    return EXIT_OK
