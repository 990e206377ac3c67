"""Scoreboard of verdict-gated speech: ``desktop-agent bench verdicts``.

``desktop-agent bench verdicts [--tasks T.jsonl] [--json] [--reflection checkable|on|off]
[--barge-in] [--plain N]`` asks every task through the real loop (``HeadlessExecutor``: the
turn machine, the default LLM and voice, the reflector) with the question typed, and grades
what was heard with ``verdict_grade`` (no LLM judge). One object per task::

    {"id", "blurt", "final", "blurt_correct", "final_correct", "verdicts", "reflections",
     "false_confession", "added_latency_ms", "verdict_ms", "first_audio_ms"}

then a totals object: ``n``, ``blurt_accuracy``, ``final_accuracy``, ``false_confessions``,
``mean_reflections``, ``mean_added_latency_ms``, ``verdict_ms_mean`` and ``_median``,
``first_audio_ms_mean`` and, with ``--plain N``, ``plain_first_audio_ms_mean`` of the first
N tasks asked with reflection off.

- ``blurt``: the opening (the speaker's first sentence or two, what plays while the
  reflector judges it); for a reply that was not reflected, the whole reply.
- ``final``: the whole heard utterance, repairs included (the written words of the audio
  the virtual speaker played).
- ``added_latency_ms``: from the end of the opening's generation (the first Reflect) to the
  end of the reply. For a good verdict it is the rest of the opening's synthesis plus the
  verdict; the reflector runs while the opening is synthesised and played, so on a real
  speaker most of it is hidden behind the opening's audio.
- ``verdict_ms``: from the end of the opening's generation to the first verdict (None for a
  reply that was not reflected): what the reflector itself costs (a literal check: the
  queue and microseconds; a word problem: the model's constrained runs).
- ``--barge-in``: the variant where the user cuts in once the opening's first chunk is
  queued and asks the question again: ``blurt`` is what was heard before the cut, ``final``
  the second answer; ``stale_reflections`` counts verdicts or continuations of the cut
  answer that still arrived (the loop must be cancelled: 0).

Task file: JSONL ``{"id", "question", "check": C}`` (``verdict_grade`` describes C); the
default is the project's own set (desktop_agent/devtools/data/verdict_tasks.jsonl);
``verdict_word_problems.jsonl`` beside it holds 30 word problems, spoken quantities and word
constraints.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from desktop_agent.devtools.verdict_grade import check_error, false_confession, grade

DEFAULT_TASKS: Final = Path(__file__).with_name("data") / "verdict_tasks.jsonl"
EXIT_OK, EXIT_USAGE = 0, 2
LLM_TIMEOUT_S: Final = 90.0
"""The LLM's first-output limit in the bench (the app's is 20 s): the scoreboard grades
answers, and on a busy machine a tool decision can take longer than the app would wait."""


@dataclass(frozen=True, slots=True)
class Task:
    """One line of the task file."""

    id: str
    question: str
    check: dict[str, Any]


def load_tasks(path: Path) -> list[Task]:
    """The tasks of ``path``; a bad line raises ValueError naming the line and the fix."""
    tasks = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            task = Task(str(row["id"]), str(row["question"]), dict(row["check"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: not a task ({exc}); each line must be "
                             '{"id": ..., "question": ..., "check": {...}}') from exc
        if why := check_error(task.check):
            raise ValueError(f"{path}:{number}: {why}")
        tasks.append(task)
    if not tasks:
        raise ValueError(f"{path}: no tasks")
    return tasks


def _heard(turn: Any) -> str:
    heard = turn.heard
    if heard is None:
        return ""
    return str(heard.heard_written or heard.heard_text)


def score_turn(task: Task, turn: Any, *, blurt: str | None = None,
               stale: int = 0) -> dict[str, Any]:
    """The task's object from a finished ``HeadlessTurn`` (``blurt``: the barge-in variant's)."""
    final = _heard(turn)
    mine = [r for r in turn.reflections if r.turn_id == turn.transitions[-1].turn_id] \
        if turn.transitions else list(turn.reflections)
    opening = [r for r in mine if r.kind == "reflecting"]
    if blurt is None:
        blurt = opening[0].text if opening else final
    verdicts = [r.verdict for r in mine if r.kind == "verdict"]
    added = 0.0
    if opening and turn.transitions:
        added = round((turn.transitions[-1].at_s - opening[0].at_s) * 1000, 1)
    first_verdict = next((r for r in mine if r.kind == "verdict"), None)
    verdict_ms = round((first_verdict.at_s - opening[0].at_s) * 1000, 1) \
        if opening and first_verdict is not None else None
    return {
        "id": task.id, "blurt": blurt, "final": final,
        "blurt_correct": grade(task.check, blurt, task.question),
        "final_correct": grade(task.check, final, task.question),
        "verdicts": verdicts, "reflections": len(opening),
        "false_confession": false_confession(task.check, final, task.question),
        "added_latency_ms": added, "verdict_ms": verdict_ms,
        "first_audio_ms": turn.timings_ms.get("first_audio"),
        "confessed": any(r.confessed for r in mine),
        "checkers": sorted({r.checker for r in mine if r.kind == "verdict"}),
        **({"stale_reflections": stale} if stale else {}),
        **({"error": turn.error.code} if turn.error is not None else {}),
    }


def totals(rows: list[dict[str, Any]], plain_first_audio: list[float]) -> dict[str, Any]:
    """The totals object of the scoreboard."""
    n = len(rows)
    first = [r["first_audio_ms"] for r in rows if r["first_audio_ms"] is not None]
    verdict = [r["verdict_ms"] for r in rows if r.get("verdict_ms") is not None]
    out: dict[str, Any] = {
        "n": n,
        "blurt_accuracy": round(sum(r["blurt_correct"] for r in rows) / n, 3) if n else 0.0,
        "final_accuracy": round(sum(r["final_correct"] for r in rows) / n, 3) if n else 0.0,
        "false_confessions": sum(r["false_confession"] for r in rows),
        "mean_reflections": round(sum(r["reflections"] for r in rows) / n, 2) if n else 0.0,
        "mean_added_latency_ms": round(statistics.fmean(
            [r["added_latency_ms"] for r in rows]), 1) if n else 0.0,
        "verdict_ms_mean": round(statistics.fmean(verdict), 1) if verdict else None,
        "verdict_ms_median": round(statistics.median(verdict), 1) if verdict else None,
        "first_audio_ms_mean": round(statistics.fmean(first), 1) if first else None,
        "stale_reflections": sum(r.get("stale_reflections", 0) for r in rows),
    }
    if plain_first_audio:
        out["plain_first_audio_ms_mean"] = round(statistics.fmean(plain_first_audio), 1)
    return out


def _model_of(writer: Any) -> str | None:
    """The model folder of a ``LlamaGrammarWriter`` (for the scoreboard), or None."""
    owner = getattr(writer, "_owner", None)
    return Path(owner.model_path).parent.name if owner is not None else None


def run_bench(tasks_path: Path, *, as_json: bool, reflection: str, barge_in: bool,
              plain: int) -> int:
    """Ask every task through the headless loop and print the scoreboard."""
    from desktop_agent.compose.engines import load_engines
    from desktop_agent.compose.reflection import reflectors_for
    from desktop_agent.core.reflection.verdict import writer_for
    from desktop_agent.core.settings import Settings
    from desktop_agent.core.turns.policy import TurnPolicy
    from desktop_agent.runtime.headless import HeadlessExecutor
    from desktop_agent.runtime.headless_units import Interrupt

    tasks = load_tasks(tasks_path)
    engines = load_engines(Settings(), ("llm", "tts"))
    assert engines.llm is not None and engines.tts is not None
    # As in the app: the model judge and the constrained sentences on the small model
    # (beside a speaking model: the composite's decider), the computations by the speaker.
    judge, writer = reflectors_for(engines.llm, reflection)
    policy = TurnPolicy(reflection=reflection, llm_first_token_timeout_s=LLM_TIMEOUT_S)
    rows = []
    for task in tasks:
        with HeadlessExecutor(engines.llm, engines.tts, engines.tools, policy=policy,
                              judge=judge, writer=writer) as ex:
            if barge_in:
                cut = Interrupt(after_units=0, text=task.question, after_chunks=1)
                turn = ex.ask_text(task.question, interrupt=cut)
                said = [m.content for m in ex.machine.history.messages if m.role == "assistant"]
                last = turn.transitions[-1].turn_id if turn.transitions else None
                stale = sum(1 for r in turn.reflections
                            if r.turn_id != last and r.kind != "reflecting")
                row = score_turn(task, turn, blurt=said[0] if len(said) > 1 else "",
                                 stale=stale)
            else:
                row = score_turn(task, ex.ask_text(task.question))
        rows.append(row)
        _print(row, as_json)
    plain_first = []
    for task in tasks[:plain]:
        with HeadlessExecutor(engines.llm, engines.tts, engines.tools,
                              policy=TurnPolicy(reflection="off",
                                                llm_first_token_timeout_s=LLM_TIMEOUT_S)) as ex:
            first = ex.ask_text(task.question).timings_ms.get("first_audio")
        if first is not None:
            plain_first.append(first)
    speaker = engines.models.get("speaker")
    total = {"model": engines.models["llm"].model_id,
             "speaker": speaker.model_id if speaker else engines.models["llm"].model_id,
             "computations_by": _model_of(writer_for(writer, "computations")),
             "sentences_by": _model_of(writer_for(writer, "sentences")),
             "reflection": reflection,
             "barge_in": barge_in, **totals(rows, plain_first)}
    if as_json:
        print(json.dumps({"totals": total}), flush=True)
    else:
        print("totals: " + ", ".join(f"{k}={v}" for k, v in total.items()), flush=True)
    return EXIT_OK


def _print(row: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(row), flush=True)
        return
    mark = lambda ok: "ok" if ok else "--"  # noqa: E731
    print(f"{row['id']:<10} blurt {mark(row['blurt_correct'])} final "
          f"{mark(row['final_correct'])} {','.join(row['verdicts']) or '-':<20} "
          f"+{row['added_latency_ms']:.0f} ms  {row['final']!r}", flush=True)


def add_arguments(bench: argparse.ArgumentParser) -> None:
    """The options of ``bench verdicts`` (stdlib only at import: the parser stays quick)."""
    bench.add_argument("--tasks", type=Path, default=None,
                       help="(verdicts) the tasks JSONL (default: the project's own set)")
    bench.add_argument("--reflection", choices=["checkable", "on", "off"],
                       default="checkable", help="(verdicts) which replies are reflected")
    bench.add_argument("--barge-in", action="store_true",
                       help="(verdicts) cut each opening with a scripted barge-in")
    bench.add_argument("--plain", type=int, default=0, metavar="N",
                       help="(verdicts) also ask the first N tasks with reflection off, "
                            "for the first-audio comparison")


def run_cli(args: argparse.Namespace) -> int:
    """``bench verdicts`` from parsed arguments; a bad task file exits 2 with the fix."""
    path = args.tasks or DEFAULT_TASKS
    try:
        load_tasks(path)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return run_bench(path, as_json=args.json, reflection=args.reflection,
                     barge_in=args.barge_in, plain=args.plain)
