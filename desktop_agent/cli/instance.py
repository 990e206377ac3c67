"""``desktop-agent ptt start|stop|toggle|cancel``, ``dictate start|stop|toggle``, ``show``,
``quit``: reach the running app.

Each sends one line over the control socket (adapters/desktop/instance_client.py) and prints
the app's answer. Nothing here imports Qt or an engine, and nothing starts the app: with none
running the command says so and exits ``EXIT_NO_INSTANCE``. Bind ``desktop-agent ptt toggle``
(or ``start`` on press and ``stop`` on release) to a desktop shortcut: docs/anywhere.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Final

from desktop_agent.adapters.desktop.instance_client import send
from desktop_agent.adapters.desktop.instance_protocol import DICTATE_ACTIONS, PTT_ACTIONS, Request
from desktop_agent.cli.exit_codes import EXIT_FAILED, EXIT_NO_INSTANCE, EXIT_OK
from desktop_agent.core.errors import AgentError

COMMANDS: Final = ("ptt", "dictate", "show", "quit")
"""The subcommands that talk to the running app."""


def add_parser(sub: Any) -> None:
    """Register the client subcommands on the CLI's subparsers."""
    ptt = sub.add_parser("ptt", help="push-to-talk in the running app (bind it to a shortcut)")
    ptt.add_argument("action", choices=PTT_ACTIONS,
                     help="start: press the talk key; stop: release it; toggle: press if up, "
                          "else release; cancel: drop the turn")
    dictate = sub.add_parser("dictate", help="dictate into the window that has the focus "
                                             "(bind it to a shortcut)")
    dictate.add_argument("action", choices=DICTATE_ACTIONS,
                         help="start: listen, and type the words into the focused window "
                              "once stopped; stop: stop listening; toggle: either")
    show = sub.add_parser("show", help="raise the running app's window")
    quit_ = sub.add_parser("quit", help="close the running app")
    show.set_defaults(action="")
    quit_.set_defaults(action="")
    for parser in (ptt, dictate, show, quit_):
        parser.add_argument("--timing", action="store_true",
                            help="print the round trip in milliseconds to stderr")


def run(args: argparse.Namespace) -> int:
    """Send the command and print the answer. Returns the exit status."""
    words = f"{args.command} {args.action}".strip()
    token = os.environ.get("XDG_ACTIVATION_TOKEN", "") if args.command == "show" else ""
    started = time.perf_counter()
    try:
        reply = send(Request(words, token))
    except AgentError as exc:
        print(exc.describe(), file=sys.stderr)
        return EXIT_NO_INSTANCE if exc.code == "no_instance" else EXIT_FAILED
    finally:
        if args.timing:
            print(f"round trip {1000 * (time.perf_counter() - started):.1f} ms", file=sys.stderr)
    print(reply.describe(), file=sys.stdout if reply.ok else sys.stderr)
    return EXIT_OK if reply.ok else EXIT_FAILED


def main(argv: list[str]) -> int:
    """The quick path for ``ptt``, ``dictate``, ``show`` and ``quit``: only their own parser
    is built."""
    parser = argparse.ArgumentParser(prog="desktop-agent")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return run(parser.parse_args(argv))
