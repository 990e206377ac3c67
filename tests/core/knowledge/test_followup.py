"""Follow-ups on a grounded answer: repeat, rephrase, "which one?", corrections."""

from __future__ import annotations

import dataclasses

import pytest

from desktop_agent.core.knowledge import (
    LIMITATION,
    Claim,
    Followup,
    clarify_referent,
    classify_followup,
    corrected_question,
    plan_answer,
    repeat_units,
    rephrase,
)
from desktop_agent.core.knowledge.claim_text import words
from tests.core.knowledge.grounded_rig import ALL, BOILER, CODES

E2_ROW = "E2 Low water pressure Top up to 1.5 bar (only when cold)."
TOP_UP = ("To top up, open the filling loop valve under the boiler until the gauge reads 1.5 "
          "bar, then close it.")
NEVER_HOT = "Never top up while the boiler is hot: wait until it has cooled down first."


def _e2_plan() -> object:
    return plan_answer("What does E2 mean?", ALL,
                       [Claim("a", E2_ROW, (CODES.passage_id,), "answer")], generation=4)


def _top_up_plan() -> object:
    return plan_answer("How do I top up?", ALL,
                       [Claim("a", TOP_UP, (BOILER.passage_id,), "answer"),
                        Claim("c", NEVER_HOT, (BOILER.passage_id,), "condition")],
                       generation=4)


@pytest.mark.parametrize("text, kind", [
    ("repeat", Followup.REPEAT), ("Repeat that, please.", Followup.REPEAT),
    ("Say that again", Followup.REPEAT), ("what?", Followup.REPEAT),
    ("Sorry?", Followup.REPEAT), ("Pardon?", Followup.REPEAT),
    ("Come again?", Followup.REPEAT),
    ("Say it differently", Followup.REPHRASE), ("In other words?", Followup.REPHRASE),
    ("Can you put it another way?", Followup.REPHRASE), ("rephrase that", Followup.REPHRASE),
    ("Which one?", Followup.WHICH), ("which one do you mean", Followup.WHICH),
    ("Which?", Followup.WHICH), ("What are you referring to?", Followup.WHICH),
    ("Actually, the opened one", Followup.CORRECTION), ("No, I meant E4", Followup.CORRECTION),
    ("I meant the blue bin", Followup.CORRECTION), ("Sorry, I meant juniors", Followup.CORRECTION),
    ("Wait, the recycling one.", Followup.CORRECTION),
    ("What does E2 mean?", Followup.NONE), ("What is the wifi password?", Followup.NONE),
    ("No", Followup.NONE), ("Actually", Followup.NONE), ("", Followup.NONE),
    ("Which day is the black bin collected?", Followup.NONE),
    ("Repeat the steps for topping up the boiler", Followup.NONE),
])
def test_classify_followup(text: str, kind: Followup) -> None:
    assert classify_followup(text) is kind


def test_repeat_gives_the_same_units_under_a_new_generation() -> None:
    plan = _top_up_plan()
    again = repeat_units(plan, generation=9)  # type: ignore[arg-type]
    assert [u.text for u in again.units] == [u.text for u in plan.units]  # type: ignore[attr-defined]
    assert [u.evidence for u in again.units] == [u.evidence for u in plan.units]  # type: ignore[attr-defined]
    assert {u.generation for u in again.units} == {9}
    assert repeat_units(plan).generation == 5  # type: ignore[arg-type]


def test_rephrase_puts_the_condition_first_and_adds_no_fact() -> None:
    plan = _top_up_plan()
    new = rephrase(plan, generation=5)  # type: ignore[arg-type]
    first = new.units[0]
    assert first.text.startswith("Never top up while the boiler is hot")
    assert TOP_UP in first.text
    assert first.text != plan.units[0].text  # type: ignore[attr-defined]
    assert set(words(first.text)) <= set(words(plan.units[0].text))  # type: ignore[attr-defined]
    assert first.generation == 5


def test_rephrase_turns_a_table_row_round_keeping_its_condition() -> None:
    new = rephrase(_e2_plan())  # type: ignore[arg-type]
    text = new.units[0].text
    assert text != E2_ROW and "only when cold" in text and "E2" in text
    assert set(words(text)) <= set(words(E2_ROW)) | {"for"}


def test_rephrase_of_a_marked_table_row_puts_the_action_first() -> None:
    row = "| E2 | Low water pressure | Top up to 1.5 bar (only when cold) |"
    passage = dataclasses.replace(CODES, passage_id="md@1#0-9", text=row)
    plan = plan_answer("What does E2 mean?", [passage],
                       [Claim("a", "E2: Low water pressure. Top up to 1.5 bar (only when cold).",
                              (passage.passage_id,))], generation=1)
    text = rephrase(plan).units[0].text
    assert text == "Low water pressure. Top up to 1.5 bar (only when cold). That is for E2."


def test_rephrase_of_a_limitation_repeats_it() -> None:
    plan = plan_answer("What is the wifi password?", ALL, [], generation=2)
    assert [u.text for u in rephrase(plan).units] == [LIMITATION]


def test_which_one_names_the_referent_from_the_supported_claim() -> None:
    unit = clarify_referent(_e2_plan(), generation=6).units[0]  # type: ignore[arg-type]
    assert unit.text == "I meant E2 Low water pressure Top up to 1.5 bar (only when cold)."
    assert unit.claim_keys == ("a",) and unit.evidence == (CODES.passage_id,)
    assert unit.generation == 6


def test_which_one_after_a_limitation_says_so() -> None:
    plan = plan_answer("What is the wifi password?", ALL, [], generation=2)
    unit = clarify_referent(plan).units[0]
    assert "didn't find" in unit.text and unit.evidence == ()


@pytest.mark.parametrize("previous, correction, expected", [
    ("what does the red light mean", "actually, the opened one",
     "what does the opened light mean"),
    ("What does E2 mean?", "No, I meant E4.", "What does E4 mean"),
    ("What does E2 mean?", "no I meant e four", "What does E4 mean"),
    ("How much do guests pay?", "Actually, what do juniors pay?", "what do juniors pay"),
    ("Which day is the black bin collected?", "Wait, the recycling one.",
     "Which day is the recycling bin collected"),
    ("How many guests can I bring?", "actually, on weekends",
     "How many guests can I bring on weekends"),
    ("Where is the stopcock?", "actually", "Where is the stopcock"),
])
def test_corrected_question(previous: str, correction: str, expected: str) -> None:
    assert corrected_question(previous, correction) == expected
