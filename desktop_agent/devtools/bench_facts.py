"""Plain questions of fact through the app's turn: ``desktop-agent bench facts``.

``desktop-agent bench facts [--speaker small,composite] [--questions Q.jsonl] [--quick]
[--json]`` asks every question of the held-out general-knowledge set (82 everyday
questions written before the work, ``data/heldout/general_knowledge.jsonl``; never edited)
through what ``ask --text`` runs (``HeadlessExecutor``: the turn machine, the built-in tools
on a scratch store, the voice), a fresh conversation per question, once per speaker
configuration in the same run:

- ``small``: ``models.speaker_llm = "off"``: the default LLM decides and speaks;
- ``composite``: ``models.speaker_llm = "auto"``: the speaking model writes the prose, the
  default LLM decides tools (``adapters/llm/llm_composite.py``). Not installed: an error
  with the fix.

Each question's ``check`` (no LLM judge)::

    {"kind": "contains", "any": [...], "none": [...]}  one of ``any`` appears, none of
                                                       ``none`` (phrases, any case)
    {"kind": "number", "value": 8, "tolerance": 0}     the first number said (digits or
                                                       words) is within ``tolerance`` of it

``right``: the whole reply passes, as said or as written (a year said "nineteen forty-five"
is "1945"). ``confident_false``: the first sentence fails its check
and is not a hedge ("I'm not sure", "I think", ...): a false thing said with confidence
before anything else could correct it. Latencies are from the end of the question:
``first_audio`` (the first reply audio the speaker took) and ``llm_first_token``, p50/p95.
One line (``--json``: object) per question, then one totals line per configuration.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_QUESTIONS: Final = Path(__file__).parent / "data" / "heldout" / "general_knowledge.jsonl"
SPEAKERS: Final = {"small": "off", "composite": "auto"}
"""Configuration name -> ``models.speaker_llm``."""
QUICK_N: Final = 6
"""Questions asked with ``--quick``."""
HEDGES: Final = re.compile(
    r"\b(not sure|not certain|unsure|i don'?t know|i do not know|no idea|i think|i believe|"
    r"probably|possibly|perhaps|might|may be|it depends|i can'?t|i cannot|i'?m unable)\b")
"""A first sentence that says any of these is not a confident statement."""
TIMEOUT_S: Final = 120.0
"""Generous stage limits: on a loaded machine the bench measures answers, not timeouts."""


@dataclass(frozen=True, slots=True)
class Question:
    """One line of the questions file."""

    qid: str
    question: str
    check: Mapping[str, Any]


def load_questions(path: Path) -> list[Question]:
    """The questions of ``path`` (JSONL). Raises ValueError naming a malformed line."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            check = row["check"]
            ok = (check["kind"] == "number" and isinstance(check["value"], int | float)) or (
                check["kind"] == "contains" and isinstance(check["any"], list))
            if not ok:
                raise ValueError(f"unknown check {check!r}")
            out.append(Question(str(row["id"]), str(row["question"]), check))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: {exc}") from None
    return out


def passes(check: Mapping[str, Any], text: str) -> bool:
    """True when ``text`` satisfies ``check`` (see the module docstring)."""
    from desktop_agent.core.reflection.stated_numbers import numbers_in

    if check["kind"] == "number":
        found = numbers_in(text)
        tolerance = Fraction(str(check.get("tolerance", 0)))
        return bool(found) and abs(found[0] - Fraction(str(check["value"]))) <= tolerance
    lower = text.lower().replace("\u2019", "'")
    return (any(p.lower() in lower for p in check["any"])
            and not any(p.lower() in lower for p in check.get("none", ())))


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` ('' for none)."""
    from desktop_agent.core.reflection.stated_numbers import sentences

    found = sentences(text)
    return found[0] if found else ""


def grade(question: Question, reply: str, written: str = "") -> dict[str, Any]:
    """``right`` and ``confident_false`` of one reply.

    ``reply`` is what was said ("nineteen forty-five", "H two O"), ``written`` the same
    words as the model wrote them ("1945", "H2O"; '' when not known): a check passes on
    either (a year said aloud is the year).
    """
    forms = [t for t in (reply, written) if t]
    firsts = [f for f in map(first_sentence, forms) if f]
    hedged = any(HEDGES.search(f.lower().replace("\u2019", "'")) for f in firsts)
    return {"right": any(passes(question.check, t) for t in forms),
            "confident_false": bool(firsts) and not hedged
            and not any(passes(question.check, f) for f in firsts)}


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) of ``values``, interpolated (None for no values)."""
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 1)
    return round(statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1], 1)


def totals(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The figures of one configuration's rows."""
    out: dict[str, Any] = {"n": len(rows)}
    out["right"] = round(sum(r["right"] for r in rows) / len(rows), 3) if rows else 0.0
    out["right_n"] = sum(r["right"] for r in rows)
    out["confident_false"] = sum(r["confident_false"] for r in rows)
    out["errors"] = sum(1 for r in rows if r.get("error"))
    out["tool_turns"] = sum(1 for r in rows if r["tools"])
    for key in ("first_audio_ms", "llm_first_token_ms"):
        values = [r[key] for r in rows if r.get(key) is not None]
        out[key] = {"p50": percentile(values, 0.5), "p95": percentile(values, 0.95)}
    return out


def _ask_all(name: str, questions: Sequence[Question], as_json: bool) -> dict[str, Any]:
    """Load one configuration's engines and ask every question in a fresh conversation."""
    from desktop_agent.adapters.store.store_sqlite import FILE_NAME
    from desktop_agent.adapters.store.tools_builtin import builtin_tools
    from desktop_agent.adapters.store.write_desk import StoreDesk
    from desktop_agent.compose.engines import load_engines
    from desktop_agent.compose.ledger import open_store
    from desktop_agent.core.errors import ModelError
    from desktop_agent.core.settings import Settings
    from desktop_agent.core.turns.policy import TurnPolicy
    from desktop_agent.runtime.headless import HeadlessExecutor

    base = Settings()
    settings = dataclasses.replace(base, models=dataclasses.replace(
        base.models, speaker_llm=SPEAKERS[name]))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store, _ = open_store(Path(tmp) / FILE_NAME)
        tools = builtin_tools(store)
        t0 = time.perf_counter()
        engines = load_engines(settings, ("llm", "tts"), tools=tools)
        load_s = time.perf_counter() - t0
        assert engines.llm is not None and engines.tts is not None
        if name == "composite" and "speaker" not in engines.models:
            from desktop_agent.adapters.models.model_resolver import install_hint

            raise ModelError("speaker_missing", "The speaking model is not installed, so "
                             "'composite' would be the small model alone.", install_hint())
        policy = TurnPolicy(llm_first_token_timeout_s=TIMEOUT_S, tts_timeout_s=TIMEOUT_S)
        for q in questions:
            with HeadlessExecutor(engines.llm, engines.tts, tools, policy=policy,
                                  desk=StoreDesk(store)) as ex:
                turn = ex.ask_text(q.question)
            written = turn.heard.heard_written if turn.heard is not None else ""
            row = {"speaker": name, "id": q.qid, "reply": turn.reply, "written": written,
                   **grade(q, turn.reply, written), "tools": list(turn.tool_calls),
                   "first_audio_ms": turn.timings_ms.get("first_audio"),
                   "llm_first_token_ms": turn.timings_ms.get("llm_first_token"),
                   **({"error": turn.error.code} if turn.error is not None else {})}
            rows.append(row)
            _print_row(row, as_json)
        store.close()
    speaker = engines.models.get("speaker", engines.models["llm"])
    return {"speaker": name, "decider_model": engines.models["llm"].model_id,
            "speaker_model": speaker.model_id, "load_s": round(load_s, 1), **totals(rows)}


def _print_row(row: Mapping[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(row, ensure_ascii=False), flush=True)
        return
    mark = ("ok " if row["right"] else "-- ") + ("FALSE" if row["confident_false"] else "     ")
    first = row["first_audio_ms"]
    print(f"{row['speaker']:<9} {row['id']:<6} {mark} "
          f"{'-' if first is None else f'{first:.0f}':>6} ms  {row['reply'][:90]!r}", flush=True)


def run_bench(questions_path: Path, speakers: Sequence[str], *, as_json: bool = False,
              quick: bool = False) -> int:
    """Ask the questions once per speaker configuration and print the figures."""
    questions = load_questions(questions_path)[:QUICK_N if quick else None]
    for total in [_ask_all(name, questions, as_json) for name in speakers]:
        if as_json:
            print(json.dumps({"totals": total}), flush=True)
        else:
            print("totals: " + ", ".join(f"{k}={v}" for k, v in total.items()), flush=True)
    return EXIT_OK


def run_cli(args: argparse.Namespace) -> int:
    """``bench facts`` from parsed arguments; a bad option or file exits 2 with the fix."""
    from desktop_agent.core.errors import AgentError

    path = args.questions or DEFAULT_QUESTIONS
    speakers = [s.strip() for s in args.speaker.split(",") if s.strip()]
    unknown = [s for s in speakers if s not in SPEAKERS]
    if unknown or not speakers:
        print(f"error: --speaker takes {', '.join(SPEAKERS)} (comma-separated), got "
              f"{args.speaker!r}", file=sys.stderr)
        return EXIT_USAGE
    try:
        load_questions(path)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return run_bench(path, speakers, as_json=args.json, quick=args.quick)
    except AgentError as exc:
        print(f"error: {exc.describe()}", file=sys.stderr)
        return EXIT_FAILED


def add_arguments(bench: argparse.ArgumentParser) -> None:
    """The options of ``bench facts`` (stdlib only at import: the parser stays quick)."""
    bench.add_argument("--speaker", default="small,composite",
                       help="(facts) speaker configurations, comma-separated: small (the "
                            "default LLM speaks), composite (the speaking model speaks)")
