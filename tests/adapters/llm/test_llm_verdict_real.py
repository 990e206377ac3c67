"""The model reflector on the real default model: its fixed grammar always yields a verdict."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop_agent.adapters.llm.llm_verdict import LlamaVerdictJudge, parse_verdict
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.reflection.verdict import Verdict

pytestmark = [pytest.mark.models, pytest.mark.slow]

CASES = [
    ("What is the capital of Norway?", "The capital of Norway is Stockholm."),
    ("Who wrote Hamlet?", "Hamlet was written by"),
]


def test_each_answer_has_the_fixed_shape_and_repeats_exactly(llm: Any) -> None:
    judge = LlamaVerdictJudge(llm)
    verdicts = []
    for question, utterance in CASES:
        got = judge.judge(question, utterance, CancelToken(TurnId(1)))
        raw = judge.last_raw or ""
        assert set(json.loads(raw)) == {"verdict", "guidance"}, raw
        assert parse_verdict(raw) == got
        assert got.verdict in set(Verdict)
        assert got.checker == "model"
        if got.verdict is Verdict.GOOD:
            assert got.guidance == ""
        verdicts.append(got)
        print(f"{question!r} / {utterance!r} -> {got.verdict.value}: {got.guidance!r}")
    assert judge.judge(*CASES[0], None) == verdicts[0]  # greedy: the same answer again


def test_a_cancelled_reflection_runs_nothing(llm: Any) -> None:
    judge = LlamaVerdictJudge(llm)
    token = CancelToken(TurnId(1))
    token.cancel("barge-in")
    assert judge.judge(*CASES[0], token).verdict is Verdict.GOOD
    assert judge.last_raw is None


def test_a_truncated_or_broken_answer_never_invents_a_repair() -> None:
    assert parse_verdict('{"verdict": "repair", "guidance": "Oslo is the cap').verdict \
        is Verdict.REPAIR
    assert parse_verdict("not json").verdict is Verdict.GOOD
    assert parse_verdict('{"verdict": "good", "guidance": "fine"}').guidance == ""
    assert parse_verdict('{"verdict": "refine", "guidance": " Add the year. "}').guidance \
        == "Add the year."
