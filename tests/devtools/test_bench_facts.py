"""``bench facts``' grader: right answers, confident false first sentences, latencies."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from desktop_agent.devtools.bench_facts import (
    DEFAULT_QUESTIONS,
    Question,
    grade,
    load_questions,
    passes,
    percentile,
    run_cli,
    totals,
)

PLANET = {"kind": "contains", "any": ["mercury"], "none": ["venus", "mars"]}
LEGS = {"kind": "number", "value": 8}
LIGHT = {"kind": "number", "value": 300000, "tolerance": 1000}


def test_the_held_out_set_loads_whole() -> None:
    questions = load_questions(DEFAULT_QUESTIONS)
    assert len(questions) == 82 and len({q.qid for q in questions}) == 82
    assert {q.check["kind"] for q in questions} == {"contains", "number"}


@pytest.mark.parametrize(("check", "text", "ok"), [
    (PLANET, "Mercury is the closest planet to the Sun.", True),
    (PLANET, "The closest planet to the sun is Mars.", False),
    (PLANET, "Mercury, then Venus.", False),  # a "none" phrase spoils it
    (LEGS, "A spider has eight legs.", True),
    (LEGS, "A spider has 8 legs, and 2 body parts.", True),
    (LEGS, "A spider has four legs, not 8.", False),  # the first number said counts
    (LEGS, "Spiders have many legs.", False),
    (LIGHT, "About 299,792 kilometres per second.", True),
    (LIGHT, "About 186,000 miles per second.", False),
])
def test_a_reply_passes_its_check(check: dict[str, object], text: str, ok: bool) -> None:
    assert passes(check, text) is ok


def test_a_false_first_sentence_is_confident_unless_it_hedges() -> None:
    q = Question("gk-03", "how many legs has a spider got?", LEGS)
    assert grade(q, "A spider has four legs. Actually, eight.") == {
        "right": False, "confident_false": True}
    assert grade(q, "I'm not sure, maybe six. Spiders have 8 legs.")["confident_false"] is False
    assert grade(q, "Spiders have eight legs. They are arachnids.") == {
        "right": True, "confident_false": False}
    assert grade(q, "")["confident_false"] is False


def test_a_number_said_aloud_passes_as_the_model_wrote_it() -> None:
    # The reply is graded as said and as written: "nineteen forty-five" is the year 1945.
    year = Question("ft-015", "what year did world war two end",
                    {"kind": "contains", "any": ["1945"], "none": []})
    said = "World War Two ended on September second, nineteen forty-five."
    assert grade(year, said) == {"right": False, "confident_false": True}  # words alone
    assert grade(year, said, "World War Two ended on September 2, 1945.") == {
        "right": True, "confident_false": False}
    water = Question("ft-048", "what's the chemical formula for water",
                     {"kind": "contains", "any": ["h2o"], "none": []})
    assert grade(water, "It is H two O.", "It is H2O.")["right"] is True
    # Either form may carry the falsehood: a wrong year is wrong however it is written.
    assert grade(year, "It ended in nineteen forty-four.", "It ended in 1944.") == {
        "right": False, "confident_false": True}


def test_totals_count_and_take_percentiles() -> None:
    rows = [{"right": r, "confident_false": f, "tools": t, "first_audio_ms": a,
             "llm_first_token_ms": a - 100}
            for r, f, t, a in [(True, False, [], 600.0), (False, True, [], 700.0),
                               (True, False, ["calculator"], 900.0)]]
    out = totals(rows)
    assert (out["n"], out["right"], out["right_n"], out["confident_false"]) == (3, 0.667, 2, 1)
    assert out["tool_turns"] == 1 and out["first_audio_ms"]["p50"] == 700.0
    assert out["llm_first_token_ms"]["p50"] == 600.0
    assert percentile([], 0.5) is None and percentile([5.0], 0.95) == 5.0
    assert percentile([float(v) for v in range(1, 101)], 0.95) == pytest.approx(95.05, abs=0.1)


def test_a_wrong_speaker_or_question_file_exits_2(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(questions=None, speaker="small,big", json=False, quick=True)
    assert run_cli(args) == 2 and "--speaker takes small, composite" in capsys.readouterr().err
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"id": "x", "question": "?", "check": {"kind": "vibes"}}\n')
    args = argparse.Namespace(questions=bad, speaker="small", json=False, quick=True)
    assert run_cli(args) == 2 and "q.jsonl:1" in capsys.readouterr().err
