"""``desktop-agent bench soak``: many turns under faults and load, on a virtual sound card.

Starts a private PulseAudio daemon (devtools/pulse_daemon.py), ``load`` busy processes if
asked, and the soak (devtools/soak_run.py) in a child process, so that even a crash of the
app's process is counted rather than taking the benchmark down with it. Prints one JSON
object: ``turns``, ``stuck_turns``, ``crashes`` (the child died, a worker or capture
thread stopped, or an exception escaped to a last-resort handler), ``overrun_replies``,
``rss_loaded_mb`` (engines loaded), ``rss_start_mb`` (after two warm-up turns that are not
counted), ``rss_mid_mb`` (after half the turns: growth that stops is warm-up, growth
that goes on is a leak), ``rss_end_mb``, ``memory_first_last`` (anonymous and file-backed
RSS, live Python objects and Python's object arenas of 1 MiB after the first and the last
turn: which kind grows),
``p50``/``p95_first_audio_ms`` (from the endpoint), the faults injected and how the turns
ended; ``--details`` adds each stuck, overrun or crashed turn. Figures and counts, not
asserts: the test (tests/devtools/test_bench_soak.py) asserts on the counts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from desktop_agent.devtools.busy import busy_processes


def add_arguments(bench: argparse.ArgumentParser) -> None:
    """The soak's options on the ``bench`` parser."""
    bench.add_argument("--turns", type=int, default=300, help="(soak) how many turns")
    bench.add_argument("--load", type=int, default=0,
                       help="(soak, audio) keep this many busy processes running meanwhile")
    bench.add_argument("--seed", type=int, default=1, help="(soak) which faults, when")
    bench.add_argument("--llm", default=None,
                       help="(soak) LLM model id or GGUF path (default: settings)")
    bench.add_argument("--max-tokens", type=int, default=40,
                       help="(soak) longest reply in tokens (keeps 300 turns feasible)")
    bench.add_argument("--max-minutes", type=float, default=None,
                       help="(soak) start no turn after this many minutes (time-boxed)")
    bench.add_argument("--details", action="store_true",
                       help="(soak) list each stuck, overrun or crashed turn")


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return round(ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo), 1)


def summarize(lines: list[dict[str, Any]], child_status: int | None) -> dict[str, Any]:
    """The report, from the child's JSON lines and its exit status."""
    turns = [r for r in lines if "turn" in r]
    summary = next((r for r in lines if r.get("summary")), {})
    crashed = [r for r in turns if r["exceptions"] or not r["threads_alive"]]
    firsts = [r["first_audio_ms"] for r in turns if r.get("first_audio_ms") is not None]
    report: dict[str, Any] = {
        "turns": len(turns),
        "stuck_turns": sum(r["stuck"] for r in turns) + summary.get("stuck_between_turns", 0),
        "crashes": len(crashed) + (0 if child_status == 0 else 1),
        "overrun_replies": sum(r["overrun"] for r in turns),
        "rss_loaded_mb": summary.get("rss_loaded_mb"),
        "rss_start_mb": summary.get("rss_start_mb"),
        "rss_mid_mb": turns[len(turns) // 2].get("rss_mb") if turns else None,
        "rss_end_mb": summary.get("rss_end_mb"),
        "memory_first_last": [{k: r.get(k) for k in ("turn", "rss_anon_mb", "rss_file_mb",
                                                     "py_objects", "py_arenas")}
                              for r in (turns[:1] + turns[-1:])],
        "p50_first_audio_ms": _percentile(firsts, 0.5),
        "p95_first_audio_ms": _percentile(firsts, 0.95),
        "faults": dict(Counter(r["fault"] for r in turns)),
        "injected": summary.get("injected", {}),
        "ended_by": dict(Counter(r["ended_by"] for r in turns)),
        "spoken_turns": sum(r["spoken"] for r in turns),
        "turns_planned": summary.get("turns_planned"),
        "stopped_early": summary.get("stopped_early"),
        "llm": summary.get("llm"), "max_tokens": summary.get("max_tokens"),
        "child_exit_status": child_status,
    }
    report["details"] = [r for r in turns if r["stuck"] or r["overrun"] or r in crashed]
    return report


def run_soak(turns: int = 300, seed: int = 1, load: int = 0, llm: str | None = None,
             max_tokens: int = 40, quick_timeouts: bool = False,
             timeout_s: float | None = None, max_minutes: float | None = None
             ) -> dict[str, Any]:
    """Run the soak in a child process on a private PulseAudio daemon; return the report.

    ``quick_timeouts`` shortens the stage timeouts (tests: hangs cost seconds, not tens of
    seconds); ``timeout_s`` bounds the child (default: 3 minutes a turn).
    """
    from desktop_agent.devtools.pulse_daemon import PulseDaemon

    pulse = PulseDaemon().start()
    busy = busy_processes(load)
    busy.__enter__()
    out = Path(tempfile.mkdtemp(prefix="da-soak-out-")) / "turns.jsonl"
    env = dict(os.environ, **pulse.env)
    env.pop("PULSE_SINK", None)
    env.pop("PULSE_SOURCE", None)
    if quick_timeouts:
        env["DESKTOP_AGENT_SOAK_QUICK"] = "1"
    if max_minutes is not None:
        env["DESKTOP_AGENT_SOAK_UNTIL"] = str(time.time() + max_minutes * 60)
    cmd = [sys.executable, "-m", "desktop_agent.devtools.soak_run", str(out), str(turns),
           str(seed), str(max_tokens), llm or ""]
    t0 = time.monotonic()
    try:
        # The child's stderr (PortAudio and ALSA chatter about underruns, warnings) is kept
        # next to its turns, out of the report.
        with (out.parent / "soak.log").open("wb") as log:
            child = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
            try:
                status: int | None = child.wait(timeout_s or 180.0 * turns + 300)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(10)
                status = None
    finally:
        busy.__exit__(None, None, None)
        pulse.stop()
    lines = []
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            try:
                lines.append(json.loads(line))
            except ValueError:  # a line cut short by a crash
                continue
    report = summarize(lines, status)
    report.update(load=load, seed=seed, soak_s=round(time.monotonic() - t0, 1),
                  turns_file=str(out))
    return report


def run(args: argparse.Namespace) -> int:
    """``bench soak``: print the report (one JSON object with --json). 1 if stuck or crashed."""
    if args.turns < 1:
        raise SystemExit("--turns must be at least 1")
    report = run_soak(args.turns, args.seed, args.load, args.llm, args.max_tokens,
                      max_minutes=args.max_minutes)
    if not args.details:
        report.pop("details")
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"  {key:<22} {value}")
    return 1 if report["stuck_turns"] or report["crashes"] else 0
