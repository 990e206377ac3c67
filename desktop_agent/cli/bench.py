"""``desktop-agent bench SUITE``: which benchmark runs (they live in devtools/)."""

from __future__ import annotations

import argparse

from desktop_agent.cli.exit_codes import EXIT_OK


def _bench(args: argparse.Namespace) -> int:
    if args.suite == "soak":
        from desktop_agent.devtools.bench_soak import run as run_soak

        return run_soak(args)
    if args.suite == "idle":
        from desktop_agent.devtools.bench_idle import run as run_idle

        run_idle(seconds=args.seconds, as_json=args.json,
                 sound_server=not args.no_sound_server)
        return EXIT_OK
    if args.suite == "audio":
        from desktop_agent.devtools.bench_audio import run

        run(json_out=args.json, quick=args.quick, load=args.load)
        return EXIT_OK
    if args.suite == "embed":
        from desktop_agent.devtools.bench_embed import run as run_embed

        return run_embed(as_json=args.json, quick=args.quick)
    if args.suite == "verdicts":
        from desktop_agent.devtools.bench_verdicts import run_cli as run_verdicts

        return run_verdicts(args)
    if args.suite == "facts":
        from desktop_agent.devtools.bench_facts import run_cli as run_facts

        return run_facts(args)
    if args.suite == "answers" and args.plans:
        from desktop_agent.devtools.bench_answers_losses import run_cli as run_plans

        return run_plans(args)
    if args.suite == "answers":
        from desktop_agent.devtools.bench_answers import run_cli

        return run_cli(args)
    if args.suite == "mcp":
        from desktop_agent.devtools.bench_mcp import run_bench as run_mcp

        return run_mcp(as_json=args.json, model=args.model, threads=args.threads,
                       retrieval_only=args.retrieval_only, questions=args.questions)
    if args.suite == "tools":
        from desktop_agent.devtools.bench_tools import run_bench as run_tools

        return run_tools(as_json=args.json, model=args.model, llm_only=args.llm_only,
                         sets=tuple(args.sets.split(",")), semantic=args.semantic,
                         threads=args.threads, decider=args.decider)
    from desktop_agent.devtools.bench_turns import run_bench

    return run_bench(as_json=args.json, wav_dir=args.wav_dir, quick=args.quick,
                     llm_server=args.llm_server, hands_free=args.hands_free, asr=args.asr,
                     asr_server=args.asr_server, tts_server=args.tts_server)
