"""``desktop-agent ask`` and ``replay``: one turn, or a scripted conversation, headless."""

from __future__ import annotations

import argparse
import json
import sys

from desktop_agent.cli.exit_codes import EXIT_OK


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
    from desktop_agent.adapters.desktop.desktop_desk import DesktopDesk
    from desktop_agent.adapters.desktop.desktop_tools import LastReply, add_desktop_tools
    from desktop_agent.adapters.mcp.mcp_files import load_mcp_config
    from desktop_agent.adapters.store.store_sqlite import FILE_NAME, default_store_path
    from desktop_agent.adapters.store.tools_builtin import builtin_tools
    from desktop_agent.adapters.store.write_desk import StoreDesk
    from desktop_agent.compose.engines import load_engines
    from desktop_agent.compose.kept_history import keep_history
    from desktop_agent.compose.knowledge import check_folders, make_proposer, open_index
    from desktop_agent.compose.ledger import open_store
    from desktop_agent.compose.mcp import wire_mcp
    from desktop_agent.compose.reflection import reflectors_for
    from desktop_agent.core.turns.policy import TurnPolicy
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
    # your notes and timers (a write is only read back here), and the desktop, as the app's
    last_reply = LastReply()
    tools = add_desktop_tools(builtin_tools(store), last_answer=last_reply)
    desk, own = wire_mcp(tools, DesktopDesk(StoreDesk(store), log=store), store,
                         load_mcp_config())  # and your own tools (MCP)
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
    # Checked as in the window (Settings: reflection, "checkable" by default): the model
    # judge and the constrained writing on the small model, as the app's LLM worker builds.
    reflection = settings.interaction.reflection
    judge, writer = reflectors_for(engines.llm, reflection)
    with HeadlessExecutor(engines.llm, engines.tts, tools, engines.asr,
                          policy=TurnPolicy(reflection=reflection), judge=judge, writer=writer,
                          max_tokens=args.max_tokens, desk=desk,
                          knowledge=index, proposer=proposer) as executor:
        last_reply.bind(executor.machine.history)
        keep_history(store, settings, executor.machine.history)  # as Privacy says
        turn = executor.ask_text(args.text) if audio is None else executor.ask_audio(audio)
        pending = executor.machine.pending_action(executor.machine_time())
    if own is not None:
        own.hub.close()
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
    from desktop_agent.adapters.mcp.mcp_files import load_mcp_config

    run_replay(args.script, data_dir=args.data_dir, settings=settings, out=sys.stdout,
               mcp=load_mcp_config())
    return EXIT_OK
