"""The ``desktop-agent`` command: ``main`` parses, dispatches and turns errors into exit codes.

The commands and their options are in ``parser.py``; each command group has its module
(``ask``, ``models``, ``bench``, ``knowledge``, ``mcp``, ``desktop_entry``, and ``instance``
for the commands that reach the running app). Errors are printed as '[code] message Fix:
...' with exit status 1; never a traceback (set DESKTOP_AGENT_DEBUG=1 to see one).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence

from desktop_agent.cli import instance
from desktop_agent.cli.ask import _ask, _replay
from desktop_agent.cli.bench import _bench
from desktop_agent.cli.exit_codes import EXIT_FAILED
from desktop_agent.cli.models import _models
from desktop_agent.cli.parser import _parser
from desktop_agent.core.errors import AgentError

__all__ = [
    "ask",
    "bench",
    "desktop_entry",
    "exit_codes",
    "instance",
    "knowledge",
    "mcp",
    "models",
    "parser",
    "main",
]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``desktop-agent`` console script."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] and words[0] in instance.COMMANDS:  # bound to a key: no big parser to build
        return instance.main(words)
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "ask" and args.text is not None and not args.text.strip():
        parser.error("argument --text: the question is empty")
    # DESKTOP_AGENT_DEBUG=1: debug logging, the only level whose lines show what was said
    # (core/privacy.said); -v: what happens, without the words.
    level = logging.INFO if args.verbose else logging.WARNING
    logging.basicConfig(level=logging.DEBUG if os.environ.get("DESKTOP_AGENT_DEBUG") else level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        return _dispatch(args)
    except AgentError as exc:
        print(exc.describe(), file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last line of defence: no traceback in the user's face
        if os.environ.get("DESKTOP_AGENT_DEBUG"):
            raise
        print(f"[internal_error] {exc.__class__.__name__}: {exc} Fix: run again with "
              "DESKTOP_AGENT_DEBUG=1 and report the traceback.", file=sys.stderr)
        return EXIT_FAILED


def _dispatch(args: argparse.Namespace) -> int:
    command = args.command or "gui"
    if command == "ask":
        return _ask(args)
    if command == "replay":
        return _replay(args)
    if command == "doctor":
        from desktop_agent.devtools.doctor import run_doctor

        return run_doctor(as_json=args.json, quick=args.quick)
    if command == "models":
        return _models(args.action, args.source)
    if command == "install-desktop-entry":
        from desktop_agent.cli import desktop_entry

        return desktop_entry.main(args)
    if command == "bench":
        return _bench(args)
    if command in instance.COMMANDS:  # after an option such as -v
        return instance.run(args)
    if command == "knowledge":
        from desktop_agent.cli.knowledge import run as run_knowledge

        return run_knowledge(args)
    if command == "mcp":
        from desktop_agent.cli.mcp import run as run_mcp

        return run_mcp(args)
    if command == "eval":
        from desktop_agent.devtools import eval_asr

        return eval_asr.main(args)
    screenshot_dir = getattr(args, "screenshot_dir", None)
    if screenshot_dir is not None:
        from desktop_agent.devtools import screenshot_turn

        return screenshot_turn.run(screenshot_dir)
    from desktop_agent.compose.desktop import run_gui

    return run_gui(start_hidden=bool(getattr(args, "start_hidden", False)))
