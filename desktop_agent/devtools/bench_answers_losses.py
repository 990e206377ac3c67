"""Where ``bench answers`` lost each miss: ``bench answers --plans`` (no LLM, no voice).

The shipped answer path is deterministic once the documents are indexed: retrieve the
passages, propose sentences (``LexicalProposer``) and worked-out numbers (``derive``), gate
them (``support``, ``addresses``), plan the units. ``--plans`` runs that path alone on every
question (milliseconds a question instead of a voiced turn) and names the stage where a
question went wrong, so a change is aimed at the stage that loses most:

- ``not_retrieved``: no retrieved passage holds the key terms (for a number that must be
  worked out: no passage of the expected file);
- ``not_proposed``: a retrieved passage holds them, but no claim said them;
- ``not_derived``: the key number is in no passage and no calculation gave it;
- ``refused``: a claim said them and the gate refused it (``refused_reasons`` counts why:
  the reason's first words);
- ``not_spoken``: accepted, but another claim was spoken instead (e.g. offered as detail);
- ``condition_dropped``: answered, without the condition in the first unit;
- ``answered_unanswerable``: a question no document answers got an answer.

Only counts and ids are printed by default; ``--json`` adds each question's plan.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from desktop_agent.devtools.bench_answers import Question, load_questions, paths, terms_present


def lost_at(q: Question, plan: Any) -> str | None:
    """The stage where ``plan`` went wrong for ``q`` (see the module docstring), or None."""
    spoken = " ".join(u.text for u in plan.units)
    if q.unanswerable:
        return "answered_unanswerable" if not plan.limitation else None
    if not plan.limitation and terms_present(q.answer_any, spoken):
        if q.condition_any and not terms_present(q.condition_any, plan.units[0].text):
            return "condition_dropped"
        return None
    claims = [*plan.claims, *(c for c, _ in plan.rejected)]
    said = [c for c in claims if terms_present(q.answer_any, c.text)]
    if said:
        refused = [c for c in said if c not in plan.claims]
        return "refused" if len(refused) == len(said) else "not_spoken"
    if any(terms_present(q.answer_any, p.text) for p in plan.passages):
        return "not_proposed"
    if q.source and any(Path(p.file).name == q.source for p in plan.passages):
        return "not_derived"
    return "not_retrieved"


def refusal_reason(q: Question, plan: Any) -> str:
    """The gate's first reason for the first refused claim holding ``q``'s key terms."""
    for claim, why in plan.rejected:
        if terms_present(q.answer_any, claim.text):
            first = why.split(";")[0]
            return " ".join(first.split()[:3])
    return ""


def run_plans(knowledge: Path, questions: Path, as_json: bool = False) -> int:
    """Index ``knowledge`` and plan every question of ``questions``; print the losses."""
    from desktop_agent.compose.knowledge import new_index
    from desktop_agent.core.knowledge import LexicalProposer, compose_answer
    from desktop_agent.core.tools.calc import evaluate

    qs = [q for q in load_questions(questions) if q.interrupt_after is None]
    with tempfile.TemporaryDirectory() as tmp:
        index = new_index(Path(tmp) / "knowledge.sqlite")
        index.index([str(knowledge)])
        meaning = index.meaning if index.meaning is not None and index.meaning.available \
            else None
        proposer = LexicalProposer(meaning)
        rows: list[dict[str, Any]] = []
        for n, q in enumerate(qs):
            t0 = time.perf_counter()
            plan = compose_answer(q.question, index, proposer, generation=n + 1,
                                  meaning=meaning, calculate=evaluate)
            row: dict[str, Any] = {"id": q.id, "lost_at": lost_at(q, plan),
                                   "ms": round((time.perf_counter() - t0) * 1000, 1)}
            if row["lost_at"] == "refused":
                row["reason"] = refusal_reason(q, plan)
            if as_json:
                row |= {"question": q.question,
                        "spoken": [u.text for u in plan.units],
                        "passages": [Path(p.file).name for p in plan.passages],
                        "rejected": [[c.text, why] for c, why in plan.rejected]}
            rows.append(row)
        index.close()
    for row in rows:
        print(json.dumps(row, ensure_ascii=False) if as_json else
              f"{row['id']:6} {row['lost_at'] or 'ok'} {row.get('reason', '')}", flush=True)
    print(json.dumps(summary(qs, rows)), flush=True)
    return 0


def summary(qs: Sequence[Question], rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The totals of a ``--plans`` run: rates as in ``bench answers`` and the loss counts."""
    answerable = [r for q, r in zip(qs, rows, strict=True) if not q.unanswerable]
    unanswerable = [r for q, r in zip(qs, rows, strict=True) if q.unanswerable]
    right = sum(r["lost_at"] in (None, "condition_dropped") for r in answerable)
    lost = Counter(r["lost_at"] for r in rows if r["lost_at"])
    reasons = Counter(r["reason"] for r in rows if r.get("reason"))
    ms = sorted(r["ms"] for r in rows)
    return {"n": len(rows),
            "answer_correct": round(right / len(answerable), 3) if answerable else None,
            "refusal_correct": round(sum(r["lost_at"] is None for r in unanswerable)
                                     / len(unanswerable), 3) if unanswerable else None,
            "lost": dict(lost.most_common()), "refused_reasons": dict(reasons.most_common()),
            "plan_ms_p50": ms[len(ms) // 2] if ms else None}


def run_cli(args: Any) -> int:
    """``bench answers --plans`` from the parsed command line."""
    knowledge, questions = paths(args)
    return run_plans(knowledge, questions, as_json=args.json)
