"""bench answers: the scoring arithmetic, on hand-made turns that pass and fail."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.knowledge import LIMITATION, Quote
from desktop_agent.devtools.bench_answers import (
    Question,
    Spoken,
    load_questions,
    score,
    spoken_from_turn,
    term_present,
    terms_present,
    totals,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "knowledge"
Q_PRESSURE = Question("b01", "What should the boiler pressure be?", (("1",), ("1.5",)),
                      (("cold",),), "boiler_manual.pdf")
Q_GUESTS = Question("c01", "How many guests?", (("two", "2"),))
Q_PASSWORD = Question("u01", "What is the wifi password?", unanswerable=True)
QUOTE = Quote("p#0-9", "/d/boiler_manual.pdf", "boiler_manual.pdf", "words", 1)


@pytest.mark.parametrize("alternatives, text, found", [
    (["two", "2"], "Each member may bring up to two guests.", True),
    (["2"], "Each member may bring up to two guests.", True),
    (["two"], "Bring up to 2 guests.", True),
    (["six"], "Bring up to 16 guests.", False),
    (["1.5"], "between 1 and 1.5 bar", True),
    (["1.5"], "between 1 and 15 bar", False),
    (["low water pressure"], "E2 Low water pressure Top up", True),
    (["low pressure"], "E2 Low water pressure", False),
    (["nine", "9"], "The coach leaves at 9:00 am.", True),
    (["9"], "The coach leaves at 9:30 am.", False),
    (["non-marking", "non marking"], "Non-marking tennis shoes", True),
    (["24"], "at least twenty-four hours before", True),
    (["friday"], "Fridays only", False),
    (["6:30", "six thirty"], "at 6:30 am", True),
    (["ten"], "until 10 pm", True),
])
def test_term_present(alternatives: list[str], text: str, found: bool) -> None:
    assert term_present(alternatives, text) is found


def test_every_key_term_must_be_present() -> None:
    assert terms_present((("1",), ("1.5",)), "between 1 and 1.5 bar")
    assert not terms_present((("1",), ("1.5",)), "up to 1.5 bar")


def test_an_answer_with_its_condition_in_the_first_unit_scores_both() -> None:
    row = score(Q_PRESSURE, Spoken(("Between 1 and 1.5 bar when the boiler is cold.",), True))
    assert row["answer_correct"] is True and row["condition_kept"] is True
    assert row["refusal_correct"] is None


def test_a_condition_said_only_in_the_second_unit_is_not_kept() -> None:
    row = score(Q_PRESSURE, Spoken(("Between 1 and 1.5 bar.", "Only when it is cold."), True))
    assert row["answer_correct"] is True and row["condition_kept"] is False


def test_a_limitation_for_an_answerable_question_is_wrong() -> None:
    row = score(Q_PRESSURE, Spoken((LIMITATION,), True))
    assert row["answer_correct"] is False and row["condition_kept"] is False


def test_refusal_needs_the_limitation_and_nothing_else() -> None:
    assert score(Q_PASSWORD, Spoken((LIMITATION,), True))["refusal_correct"] is True
    invented = Spoken(("The wifi password is hunter2.",), False)
    assert score(Q_PASSWORD, invented)["refusal_correct"] is False
    both = Spoken((LIMITATION, "But it might be hunter2."), True)
    assert score(Q_PASSWORD, both)["refusal_correct"] is False
    prose = Spoken((), False, reply="I couldn't find that, but try admin.")
    assert score(Q_PASSWORD, prose)["refusal_correct"] is False


def test_a_prose_reply_is_scored_on_its_text_but_not_supported() -> None:
    row = score(Q_GUESTS, Spoken((), False, reply="You can bring two guests."))
    assert row["answer_correct"] is True and row["supported"] is False


def test_totals_count_only_applicable_questions() -> None:
    rows = [score(Q_PRESSURE, Spoken(("Between 1 and 1.5 bar when cold.",), True,
                                     first_audio_ms=900.0)),
            score(Q_GUESTS, Spoken(("Up to three guests.",), True, first_audio_ms=1100.0)),
            score(Q_PASSWORD, Spoken((LIMITATION,), True, stale_played=1,
                                     first_audio_ms=700.0))]
    t = totals(rows, plain_ms=[600.0, 640.0, 700.0])
    assert t["n"] == 3
    assert t["answer_correct"] == 0.5 and t["answer_correct_grounded"] == 0.5
    by_chance = [score(Q_GUESTS, Spoken((), False, reply="It is two o'clock."))]
    assert totals(by_chance)["answer_correct"] == 1.0
    assert totals(by_chance)["answer_correct_grounded"] == 0.0
    assert t["condition_kept"] == 1.0 and t["with_condition"] == 1
    assert t["refusal_correct"] == 1.0 and t["unanswerable"] == 1
    assert t["supported_rate"] == 1.0
    assert t["stale_units_played"] == 1
    assert t["first_audio_ms_p50"] == 900.0
    assert t["plain_first_audio_ms_p50"] == 640.0


@dataclass
class _Unit:
    text: str
    generation: int
    disposition: str
    sources: tuple[Any, ...] = (QUOTE,)


@dataclass
class _Turn:
    units: tuple[_Unit, ...]
    earlier_units: tuple[_Unit, ...] = ()
    reply: str = ""
    timings_ms: dict[str, float] = field(default_factory=lambda: {"first_audio": 812.0})


def test_units_of_a_cut_off_answer_that_played_after_the_cut_are_stale() -> None:
    turn = _Turn(units=(_Unit("E4 Flue blocked.", 2, "played"),),
                 earlier_units=(_Unit("E2 Low water pressure.", 1, "played"),
                                _Unit("Want more detail?", 1, "played")))
    spoken = spoken_from_turn(turn, interrupt_after=1)
    assert spoken.stale_played == 1
    assert spoken.units == ("E4 Flue blocked.",) and spoken.first_audio_ms == 812.0
    clean = _Turn(units=(_Unit("E4 Flue blocked.", 2, "played"),),
                  earlier_units=(_Unit("E2 Low water pressure.", 1, "played"),
                                 _Unit("Top up.", 1, "stale")))
    assert spoken_from_turn(clean, interrupt_after=1).stale_played == 0


def test_an_older_generation_played_in_the_new_answer_is_stale() -> None:
    turn = _Turn(units=(_Unit("Old unit.", 1, "played"), _Unit("New unit.", 2, "played")))
    assert spoken_from_turn(turn).stale_played == 1


def test_unplayed_units_are_not_spoken_and_sourceless_units_are_not_grounded() -> None:
    turn = _Turn(units=(_Unit("Said.", 1, "played"), _Unit("Cut.", 1, "canceled")))
    spoken = spoken_from_turn(turn)
    assert spoken.units == ("Said.",) and spoken.grounded
    bare = _Turn(units=(_Unit("From memory.", 1, "played", ()),))
    assert not spoken_from_turn(bare).grounded
    assert spoken_from_turn(_Turn(units=(_Unit(LIMITATION, 1, "played", ()),))).grounded
    assert not spoken_from_turn(_Turn(units=(), reply="Prose.")).grounded


def test_the_fixture_questions_meet_the_issue_s_shape() -> None:
    qs = load_questions(DATA / "questions.jsonl")
    assert len(qs) >= 30
    assert sum(q.unanswerable for q in qs) >= 8
    assert sum(bool(q.condition_any) for q in qs) >= 5
    assert sum(q.interrupt_after is not None for q in qs) >= 2
    assert len({q.id for q in qs}) == len(qs)
    corpus = {p.name for p in (DATA / "corpus").iterdir()}
    for q in qs:
        assert q.unanswerable or (q.answer_any and q.source in corpus), q.id
        assert not (q.unanswerable and q.answer_any), q.id


def test_every_key_term_of_an_answerable_question_is_in_its_source() -> None:
    """A key written wrong (a term its document never says) would score a right answer
    as wrong: each alternative set must be satisfiable from the source text."""
    texts = {p.name: p.read_text(encoding="utf-8") for p in (DATA / "corpus").iterdir()
             if p.suffix in {".md", ".txt"}}
    pypdf = pytest.importorskip("pypdf")
    for pdf in (DATA / "corpus").glob("*.pdf"):
        texts[pdf.name] = "\n".join(page.extract_text() for page in pypdf.PdfReader(pdf).pages)
    for line in (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        source = texts.get(d.get("source", ""))
        if source is None:
            continue
        for group in [*d.get("answer_any", []), *d.get("condition_any", [])]:
            assert term_present(group, source), (d["id"], group)
