"""Where ``bench answers --plans`` loses each miss: the stages on made plans, and one real run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.core.knowledge import LIMITATION
from desktop_agent.core.knowledge.index import Passage
from desktop_agent.core.knowledge.records import AnswerPlan, Claim, SpokenUnit
from desktop_agent.devtools.bench_answers import Question
from desktop_agent.devtools.bench_answers_losses import lost_at, refusal_reason, run_plans

POOL = Passage("p1", "/docs/pool.md", "pool.md", "The pool opens at 7 am. Lanes cost 4 euros.",
               0, 40)
HOURS = Claim("c1", "The pool opens at 7 am.", ("p1",))
PRICE = Claim("c2", "Lanes cost 4 euros.", ("p1",))


def _q(**kw: object) -> Question:
    return Question(id="q", question="When does the pool open?", **kw)  # type: ignore[arg-type]


def _plan(spoken: str, claims: tuple[Claim, ...] = (), rejected: tuple = (),
          passages: tuple[Passage, ...] = (POOL,)) -> AnswerPlan:
    unit = SpokenUnit("u1", 1, spoken, (), (), ())
    return AnswerPlan("q", 1, (unit,), limitation=spoken == LIMITATION, passages=passages,
                      claims=claims, rejected=rejected)


def test_an_answer_with_its_key_terms_is_not_lost() -> None:
    assert lost_at(_q(answer_any=(("7",),)), _plan(HOURS.text, (HOURS,))) is None


def test_a_key_term_in_a_retrieved_passage_that_no_claim_said_was_not_proposed() -> None:
    assert lost_at(_q(answer_any=(("7",),)), _plan(PRICE.text, (PRICE,))) == "not_proposed"


def test_a_refused_claim_with_the_key_terms_is_lost_at_the_gate_with_its_reason() -> None:
    q = _q(answer_any=(("7",),))
    plan = _plan(LIMITATION, rejected=((HOURS, "does not address the question (open); x"),))
    assert lost_at(q, plan) == "refused"
    assert refusal_reason(q, plan) == "does not address"


def test_an_accepted_claim_that_was_not_spoken_is_lost_in_planning() -> None:
    assert lost_at(_q(answer_any=(("7",),)), _plan(PRICE.text, (PRICE, HOURS))) == "not_spoken"


def test_a_number_in_no_passage_is_not_derived_when_the_file_was_found_else_not_retrieved(
        ) -> None:
    q = _q(answer_any=(("2",),), source="pool.md")
    assert lost_at(q, _plan(LIMITATION)) == "not_derived"
    assert lost_at(q, _plan(LIMITATION, passages=())) == "not_retrieved"


def test_a_dropped_condition_and_an_answered_unanswerable_question_are_lost() -> None:
    q = _q(answer_any=(("4",),), condition_any=(("only",),))
    assert lost_at(q, _plan(PRICE.text, (PRICE,))) == "condition_dropped"
    assert lost_at(_q(unanswerable=True), _plan(PRICE.text, (PRICE,))) == "answered_unanswerable"
    assert lost_at(_q(unanswerable=True), _plan(LIMITATION)) is None


@pytest.mark.timeout(120)
def test_plans_run_on_the_fixture_corpus_prints_rates_and_losses(
        capsys: pytest.CaptureFixture[str]) -> None:
    data = Path(__file__).parents[1] / "data" / "knowledge"
    assert run_plans(data / "corpus", data / "questions.jsonl") == 0
    lines = capsys.readouterr().out.strip().splitlines()
    total = json.loads(lines[-1])
    rows = lines[:-1]
    assert total["n"] == len(rows) > 30
    assert total["answer_correct"] > 0.8 and total["refusal_correct"] > 0.8
    bad = [r for r in rows if not r.split()[1] == "ok"]
    assert sum(total["lost"].values()) == len(bad)
