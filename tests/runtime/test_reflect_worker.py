"""The LLM worker runs reflections: literal checks first, the model judge for facts."""

from __future__ import annotations

from typing import Any

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.reflection.verdict import Judgement, Verdict
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns.events import Reflected, StageFailed
from desktop_agent.core.turns.states import JobId
from desktop_agent.runtime.llm_worker import LlmWorker
from desktop_agent.runtime.payloads import ReflectJob


class _Judge:
    def __init__(self) -> None:
        self.calls = 0

    def judge(self, question: str, utterance: str, cancel: Any) -> Judgement:
        self.calls += 1
        if "fail" in question:
            raise RuntimeError("boom")
        return Judgement(Verdict.REPAIR, "Oslo is the capital.")


def _worker(judge: _Judge) -> tuple[LlmWorker, list[Any]]:
    worker = LlmWorker(lambda: None, ToolRegistry([]), "system")  # type: ignore[arg-type,return-value]
    worker.engine = object()  # type: ignore[assignment]
    worker.judge_factory = lambda engine: judge
    seen: list[Any] = []
    worker.sig_event_reported.connect(seen.append)
    return worker, seen


def _job(question: str, utterance: str, job: int = 7) -> ReflectJob:
    return ReflectJob(TurnId(1), JobId(job), question, utterance, CancelToken(TurnId(1)))


def test_a_checkable_question_is_judged_without_the_model(qtbot: Any) -> None:
    judge = _Judge()
    worker, seen = _worker(judge)
    worker.reflect(_job("What is 7 times 8?", "It is 54."))
    (event,) = seen
    assert isinstance(event, Reflected) and event.job == 7
    assert (event.verdict, event.checker, event.correction) == ("repair", "arithmetic",
                                                                "7 times 8 is 56")
    assert event.flagged_word == 2 and judge.calls == 0


def test_a_fact_goes_to_the_model_and_a_failure_is_reported(qtbot: Any) -> None:
    judge = _Judge()
    worker, seen = _worker(judge)
    worker.reflect(_job("Capital of Norway?", "Bergen."))
    worker.reflect(_job("Capital of fail?", "Bergen.", job=8))
    assert isinstance(seen[0], Reflected) and seen[0].guidance == "Oslo is the capital."
    assert isinstance(seen[1], StageFailed) and seen[1].job == 8
    assert judge.calls == 2


def test_a_cancelled_reflection_reports_nothing(qtbot: Any) -> None:
    worker, seen = _worker(_Judge())
    job = _job("What is 7 times 8?", "It is 54.")
    job.cancel.cancel("barge-in")
    worker.reflect(job)
    assert seen == []
