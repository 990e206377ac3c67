"""Listening evaluation of grounded answers: ``desktop-agent bench answers``.

``desktop-agent bench answers --knowledge DIR --questions Q.jsonl [--json] [--model M]
[--proposer llm|lexical]`` indexes DIR into a fresh SQLite index, then asks every question
through the real loop (``runtime.headless.HeadlessExecutor`` with the knowledge index and
the claim proposer: the turn machine, unit admission, Piper) and prints one object per
question and a final totals object:

- ``answer_correct``: answerable questions whose spoken units hold every key term
  (``answer_correct_grounded``: and the reply was grounded units: the clock's "It is ...
  on Tuesday" holds the key term "Tuesday" of a bin question but is no answer);
- ``condition_kept``: questions with a required condition that have it in the FIRST unit;
- ``refusal_correct``: unanswerable questions answered with the limitation only;
- ``supported_rate``: questions whose whole reply is grounded units (each with sources,
  or the limitation), not prose from the model's memory;
- ``stale_units_played``: units of a cut-off question that played after the cut (and
  units of an older generation played in the new answer), over the scripted
  interruptions;
- ``first_audio_ms_p50/p95``: from the question (typed: its endpoint) to the first reply
  audio, grounded (the machine's mark: the filler "One moment." when the answer took
  longer than the policy's ``filler_after_s``); ``answer_ready_ms_p50``: to the first
  unit's text; ``plain_first_audio_ms_p50`` and ``plain_answer_ready_ms_p50``: the same
  questions as plain turns (the same engines without the documents), for comparison;
- ``meaning``: the sentence-embedding model of meaning search (or why it is off: then
  the figures are word matching alone); ``index_s``: seconds to index the corpus,
  passage vectors included.

The questions file is JSONL, one object a line::

    {"id", "question", "answer_any": [[alternatives for key term 1], ...],
     "condition_any": [[...]], "source": "file name"}
    {"id", "question", "unanswerable": true}
    {"id", "question", "interrupt": {"after_units": 1, "question": "No, I meant E4."},
     "answer_any": ..., "condition_any": ...}

An ``interrupt`` entry (this project's extension) cuts the answer to ``question`` once
``after_units`` of its units were queued to play, with the interrupt's question (a
correction or a new question); its ``answer_any``/``condition_any`` are the key for that
final question. A key term counts when any alternative appears in the spoken text
(case-insensitive, on word boundaries; digits and number words both count: "two" = "2";
an hour "9" is found in "9:00").
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_agent.core.knowledge import LIMITATION
from desktop_agent.core.knowledge.claim_text import numbers, words
from desktop_agent.core.turns.policy import TurnPolicy

PLAIN_SAMPLE = 8
"""Answerable questions also asked as plain turns, for the latency comparison."""
BENCH_POLICY = TurnPolicy(llm_first_token_timeout_s=120.0, tts_timeout_s=60.0,
                          unit_max_age_s=300.0)
"""Generous stage limits: on a loaded machine the bench measures answers, not timeouts
(the latency figures are printed; the app keeps its own limits)."""


@dataclass(frozen=True, slots=True)
class Question:
    """One line of the questions file."""

    id: str
    question: str
    answer_any: tuple[tuple[str, ...], ...] = ()
    condition_any: tuple[tuple[str, ...], ...] = ()
    source: str = ""
    unanswerable: bool = False
    interrupt_after: int | None = None
    interrupt_question: str = ""


@dataclass(frozen=True, slots=True)
class Spoken:
    """What one question's turn said, as the bench scores it."""

    units: tuple[str, ...]
    """Texts of the units that played, in order (the final question's, after a cut)."""
    grounded: bool
    """True when every played piece was a grounded unit with sources, or the limitation."""
    reply: str = ""
    """The reply as heard (prose, when the turn was not grounded)."""
    stale_played: int = 0
    first_audio_ms: float | None = None
    dispositions: tuple[str, ...] = ()
    earlier: tuple[str, ...] = ()
    """'text -> disposition' of the cut-off question's units."""
    sources: tuple[str, ...] = field(default=())


def load_questions(path: Path) -> list[Question]:
    """The questions of a JSONL file (blank lines skipped)."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        d = json.loads(line)
        cut = d.get("interrupt") or {}
        out.append(Question(
            id=str(d.get("id", n)), question=d["question"],
            answer_any=tuple(tuple(a) for a in d.get("answer_any") or ()),
            condition_any=tuple(tuple(a) for a in d.get("condition_any") or ()),
            source=d.get("source", ""), unanswerable=bool(d.get("unanswerable")),
            interrupt_after=int(cut["after_units"]) if cut else None,
            interrupt_question=str(cut.get("question", "")) if cut else ""))
    return out


def _canon(text: str) -> str:
    """Lower-case words with number words as digits, space-separated and padded."""
    toks = words(text)
    out: list[str] = []
    i = 0
    while i < len(toks):
        j = i
        while j < len(toks) and numbers([toks[j]]) and not toks[j][0].isdigit():
            j += 1
        if j > i:
            out += numbers(toks[i:j])
            i = j
        else:
            tok = toks[i]
            out.append(numbers([tok])[0] if tok[0].isdigit() else tok)
            i += 1
    return " " + " ".join(out) + " "


def term_present(alternatives: Sequence[str], text: str) -> bool:
    """True when any alternative appears in ``text`` (see the module docstring).

    An hour alone ("9", "nine") is also found as the full hour ("9:00 am").
    """
    hay = _canon(text)
    keys = [_canon(a) for a in alternatives]
    keys += [f" {k.strip()}:00 " for k in keys if k.strip().isdigit() and int(k) <= 24]
    return any(k.strip() and k in hay for k in keys)


def terms_present(groups: Sequence[Sequence[str]], text: str) -> bool:
    """True when every key term (a group of alternatives) is in ``text``."""
    return all(term_present(g, text) for g in groups)


def is_limitation(units: Sequence[str]) -> bool:
    """True when the reply is the truthful limitation and nothing else."""
    return list(units) == [LIMITATION]


def score(q: Question, spoken: Spoken) -> dict[str, Any]:
    """One question's result: the flags the totals count (None: not applicable)."""
    text = " ".join(spoken.units) if spoken.units else spoken.reply
    limitation = is_limitation(spoken.units)
    row: dict[str, Any] = {"id": q.id, "question": q.question,
                           "spoken": list(spoken.units) or [spoken.reply],
                           "answer_correct": None, "condition_kept": None,
                           "refusal_correct": None, "supported": spoken.grounded,
                           "stale_units_played": spoken.stale_played,
                           "first_audio_ms": spoken.first_audio_ms}
    if q.interrupt_after is not None:
        row["interrupt"] = q.interrupt_question
        row["earlier_units"] = list(spoken.earlier)
    if q.unanswerable:
        row["refusal_correct"] = limitation
        return row
    row["answer_correct"] = not limitation and terms_present(q.answer_any, text)
    if q.condition_any:
        first = spoken.units[0] if spoken.units else spoken.reply
        row["condition_kept"] = not limitation and terms_present(q.condition_any, first)
    return row


def _pct(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def totals(rows: Sequence[dict[str, Any]], plain_ms: Sequence[float] = ()) -> dict[str, Any]:
    """The totals object over the per-question rows (see the module docstring)."""
    def rate(key: str) -> float | None:
        vals = [r[key] for r in rows if r[key] is not None]
        return round(sum(bool(v) for v in vals) / len(vals), 3) if vals else None

    first = [r["first_audio_ms"] for r in rows if r["first_audio_ms"] is not None]
    answerable = [r for r in rows if r["answer_correct"] is not None]
    grounded_right = sum(bool(r["answer_correct"] and r["supported"]) for r in answerable)
    return {
        "n": len(rows),
        "answer_correct": rate("answer_correct"),
        "answer_correct_grounded": round(grounded_right / len(answerable), 3)
        if answerable else None,
        "condition_kept": rate("condition_kept"),
        "refusal_correct": rate("refusal_correct"),
        "supported_rate": rate("supported"),
        "stale_units_played": sum(int(r["stale_units_played"]) for r in rows),
        "answerable": sum(r["answer_correct"] is not None for r in rows),
        "with_condition": sum(r["condition_kept"] is not None for r in rows),
        "unanswerable": sum(r["refusal_correct"] is not None for r in rows),
        "interruptions": sum("interrupt" in r for r in rows),
        "first_audio_ms_p50": _pct(first, 0.5),
        "first_audio_ms_p95": _pct(first, 0.95),
        "plain_first_audio_ms_p50": round(statistics.median(plain_ms), 1) if plain_ms else None,
    }


def spoken_from_turn(turn: Any, interrupt_after: int | None = None) -> Spoken:
    """Score input from a ``HeadlessTurn`` (units with dispositions, earlier units)."""
    played = [u for u in turn.units if u.disposition == "played"]
    newest = max((u.generation for u in turn.units), default=0)
    stale = sum(1 for u in played if u.generation != newest)
    earlier = tuple(turn.earlier_units)
    if interrupt_after is not None:
        stale += sum(1 for u in earlier[interrupt_after:] if u.disposition == "played")
    grounded = bool(played) and all(
        u.sources or u.text == LIMITATION for u in played)
    return Spoken(
        units=tuple(u.text for u in played), grounded=grounded, reply=turn.reply,
        stale_played=stale, first_audio_ms=turn.timings_ms.get("first_audio"),
        dispositions=tuple(u.disposition for u in turn.units),
        earlier=tuple(f"{u.text} -> {u.disposition}" for u in earlier),
        sources=tuple(sorted({Path(q.file).name for u in played for q in u.sources})))


def run_bench(knowledge: Path, questions: Path, as_json: bool = False,
              model: str | None = None, proposer: str = "lexical") -> int:
    """Index ``knowledge``, ask every question through the headless loop, print the figures."""
    import dataclasses

    from desktop_agent.compose.engines import load_engines
    from desktop_agent.compose.knowledge import new_index
    from desktop_agent.core.errors import AgentError
    from desktop_agent.core.settings import Settings
    from desktop_agent.runtime.headless import HeadlessExecutor
    from desktop_agent.runtime.headless_units import Interrupt

    qs = load_questions(questions)
    settings = Settings()
    if model:
        settings = dataclasses.replace(settings, models=dataclasses.replace(
            settings.models, llm=model))
    engines = load_engines(settings, ("llm", "tts"))
    assert engines.llm is not None and engines.tts is not None
    with tempfile.TemporaryDirectory() as tmp:
        index = new_index(Path(tmp) / "knowledge.sqlite")
        report = index.index([str(knowledge)])
        if report.problems:
            raise AgentError("bench_corpus", "Some documents could not be indexed: " + "; ".join(
                f"{p.file}: {p.reason}" for p in report.problems),
                "Fix or remove those files in the knowledge folder.")
        claims = _proposer(proposer, engines.llm, index.meaning)
        rows = []
        # One executor for the run: its LLM lane runs one job at a time, so a slow job is
        # never overlapped by the next question's on the same llama.cpp context.
        with HeadlessExecutor(engines.llm, engines.tts, engines.tools, policy=BENCH_POLICY,
                              knowledge=index, proposer=claims) as ex:
            for q in qs:
                cut = Interrupt(q.interrupt_after, q.interrupt_question) \
                    if q.interrupt_after is not None else None
                ex.machine.history.clear()  # each question on its own, as a fresh ask
                if hasattr(claims, "last_pick"):
                    claims.last_pick = None  # a turn the model did not answer shows none
                t0 = time.perf_counter()
                turn = ex.ask_text(q.question, interrupt=cut)
                wall = (time.perf_counter() - t0) * 1000
                row = score(q, spoken_from_turn(turn, q.interrupt_after))
                row["wall_ms"] = round(wall, 1)
                row["answer_ready_ms"] = turn.timings_ms.get("llm_first_token")
                if turn.error is not None:
                    row["error"] = turn.error.code
                if getattr(claims, "last_pick", None) is not None:
                    row["pick"] = dataclasses.asdict(claims.last_pick)
                rows.append(row)
                _print_row(row, as_json)
        plain: list[float] = []
        plain_ready: list[float] = []
        with HeadlessExecutor(engines.llm, engines.tts, engines.tools,
                              policy=BENCH_POLICY) as ex:
            for q in [q for q in qs if q.answer_any and q.interrupt_after is None][
                    :PLAIN_SAMPLE]:
                turn = ex.ask_text(q.question)
                if "first_audio" in turn.timings_ms:
                    plain.append(turn.timings_ms["first_audio"])
                if "llm_first_token" in turn.timings_ms:
                    plain_ready.append(turn.timings_ms["llm_first_token"])
        index.close()
    ready = [r["answer_ready_ms"] for r in rows if r.get("answer_ready_ms") is not None]
    meaning = index.meaning
    total = {"model": engines.models["llm"].model_id, "proposer": proposer,
             "meaning": (meaning.model_id if meaning is not None and meaning.available
                         else getattr(meaning, "problem", "off")),
             "index_s": report.seconds,
             **totals(rows, plain),
             "answer_ready_ms_p50": _pct(ready, 0.5),
             "answer_ready_ms_p95": _pct(ready, 0.95),
             "plain_answer_ready_ms_p50": _pct(plain_ready, 0.5),
             "errors": sum("error" in r for r in rows)}
    if as_json:
        print(json.dumps({"totals": total}), flush=True)
    else:
        for key, value in total.items():
            print(f"{key}: {value}")
    return 0


def _proposer(kind: str, llm: Any, meaning: Any = None) -> Any:
    from desktop_agent.core.knowledge import LexicalProposer

    if kind == "lexical":
        return LexicalProposer(meaning)
    from desktop_agent.adapters.llm.llm_claims import LlmClaimProposer
    from desktop_agent.compose.reflection import local_model

    return LlmClaimProposer(local_model(llm))  # the small model, beside a speaking one


def _print_row(row: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(row, ensure_ascii=False), flush=True)
        return
    flags = [row[k] for k in ("answer_correct", "refusal_correct") if row[k] is not None]
    mark = "ok " if all(flags) and row["condition_kept"] is not False else "BAD"
    ms = row["first_audio_ms"]
    print(f"{mark} {row['id']:4} {ms if ms is not None else -1:7.0f} ms  "
          f"{row['question'][:45]:45}  {' | '.join(row['spoken'])[:110]}", flush=True)


def paths(args: Any) -> tuple[Path, Path]:
    """The documents folder and the questions file of the command line (checked)."""
    from desktop_agent.core.errors import AgentError

    knowledge = args.knowledge or Path("tests/data/knowledge/corpus")
    questions = args.questions or Path("tests/data/knowledge/questions.jsonl")
    if not knowledge.is_dir():
        raise AgentError("bench_usage", f"No documents folder at {knowledge}.",
                         "Pass --knowledge DIR (e.g. tests/data/knowledge/corpus).")
    if not questions.is_file():
        raise AgentError("bench_usage", f"No questions file at {questions}.",
                         "Pass --questions Q.jsonl (e.g. tests/data/knowledge/questions.jsonl).")
    return knowledge, questions


def run_cli(args: Any) -> int:
    """``bench answers`` from the parsed command line (checks the paths first)."""
    knowledge, questions = paths(args)
    return run_bench(knowledge, questions, as_json=args.json,
                     model=str(args.model) if args.model else None, proposer=args.proposer)
