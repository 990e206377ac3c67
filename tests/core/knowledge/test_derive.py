"""Derived answers: one calculation over stated amounts, checked again by the gate, shown as
evidence; nothing derived when a side is missing, ambiguous or about another thing."""

from __future__ import annotations

import dataclasses

from desktop_agent.core.knowledge import (
    CALCULATION_FILE,
    Claim,
    LexicalProposer,
    compose_answer,
    plan_answer,
)
from desktop_agent.core.knowledge.derive import amounts, derive
from desktop_agent.core.knowledge.index import Passage
from desktop_agent.core.knowledge.support import support
from desktop_agent.core.tools.calc import evaluate
from tests.core.knowledge.grounded_rig import MemoryIndex

PRICES = Passage(
    "pool@1#0-300", "/d/pool.md", "pool.md",
    "## Prices\n\n"
    "| Ticket | Price |\n|---|---|\n| Single swim | 25 euros |\n| Sauna session | 4 euros |\n"
    "| Ten-swim card | 200 euros |\n\n"
    "Students pay half price for a single swim.\n", 0, 300)
HALL = Passage(
    "hall@2#0-300", "/d/hall.txt", "hall.txt",
    "The main hall costs 40 euros an hour to hire.\n"
    "The meeting room costs 15 euros an hour to hire.\n"
    "Members get 25% off room hire.\n"
    "Weddings pay 10% more for the main hall.\n", 0, 300)


def _derive(question: str, *passages: Passage) -> list[Claim]:
    return derive(question, passages or (PRICES, HALL), evaluate)


def test_amounts_are_money_in_any_of_its_forms() -> None:
    p = Passage("x", "/x", "x.txt", "A swim is £5.50; a towel 2 euros, soap 80 cents, "
                "page 10 of 20 and 25% off.", 0, 80)
    assert [(a.number, a.unit) for a in amounts([p])] == [
        ("5.50", "pounds"), ("2", "euros"), ("80", "cents")]


def test_a_share_of_an_amount_is_worked_out_with_both_sentences_as_evidence() -> None:
    (claim,) = _derive("How much does a student pay for a swim?")
    assert claim.calculation is not None
    assert claim.calculation.expression == "25 * 1/2" and claim.calculation.result == "12.50"
    assert claim.text == ("Students pay half price for a single swim. Single swim: 25 euros. "
                          "Half of 25 euros is 12.50 euros.")
    (members,) = _derive("How much is the main hall for members?")
    assert members.calculation is not None and members.calculation.result == "30"
    assert members.calculation.operands == ("40", "25")
    (weddings,) = _derive("How much is the main hall for a wedding?")
    assert weddings.calculation is not None and weddings.calculation.result == "44"


def test_a_difference_and_a_sum() -> None:
    (more,) = _derive("How much more is the main hall than the meeting room?")
    assert more.calculation is not None and more.calculation.result == "25"
    assert more.text.endswith("The difference is 25 euros.")
    (both,) = _derive("How much do a swim and a sauna cost together?")
    assert both.calculation is not None and both.calculation.expression == "25 + 4"
    assert both.text.endswith("Together that is 29 euros.")


def test_nothing_is_derived_without_a_reason() -> None:
    assert _derive("When is the pool open?") == []  # asks no amount
    assert _derive("How much is a single swim?") == []  # stated: no share of anything
    # The share is about swims, the question about the room: no answer, not a wrong one.
    assert _derive("How much do students pay for the meeting room?") == []
    # A side that no amount names.
    assert _derive("How much more is the main hall than the sauna at the gym?", HALL) == []
    # Two amounts in different units are not added.
    gym = Passage("g", "/g", "g.txt", "A gym visit costs £5.", 0, 30)
    assert _derive("How much do a gym visit and a sauna cost together?", PRICES, gym) == []


def test_the_gate_checks_the_calculation_again() -> None:
    (claim,) = _derive("How much does a student pay for a swim?")
    passages = (PRICES, HALL)
    verdict = support(claim, passages, evaluate)
    assert verdict.ok, verdict.reasons
    calc_quotes = [q for q in verdict.quotes if q.file == CALCULATION_FILE]
    assert [q.quote for q in calc_quotes] == ["half of 25 euros = 12.50 euros"]
    assert {q.passage_id for q in verdict.quotes} >= {PRICES.passage_id}
    assert not support(claim, passages).ok  # no calculator: nothing can check it
    assert claim.calculation is not None
    wrong = dataclasses.replace(claim, calculation=dataclasses.replace(
        claim.calculation, result="13"), text=claim.text.replace("12.50", "13"))
    assert "gives 12.5, not 13" in " ".join(support(wrong, passages, evaluate).reasons)
    made_up = dataclasses.replace(claim, calculation=dataclasses.replace(
        claim.calculation, expression="30 * 1/2", result="15", operands=("30",)),
        text=claim.text.replace("12.50", "15"))
    reasons = " ".join(support(made_up, passages, evaluate).reasons)
    assert "operand 30 is not in the passage" in reasons


def test_a_derived_answer_comes_first_with_its_evidence() -> None:
    index = MemoryIndex((PRICES, HALL))
    plan = compose_answer("How much does a student pay for a swim?", index, LexicalProposer(),
                          generation=3, calculate=evaluate)
    assert not plan.limitation
    first = plan.units[0]
    assert "12.50 euros" in first.text
    assert CALCULATION_FILE in {q.file for q in first.quotes}
    assert PRICES.passage_id in first.evidence
    without = compose_answer("How much does a student pay for a swim?", index,
                             LexicalProposer(), generation=4)
    assert "12.50" not in " ".join(u.text for u in without.units)


def test_plan_answer_refuses_a_derived_claim_without_a_calculator() -> None:
    (claim,) = _derive("How much does a student pay for a swim?")
    plan = plan_answer("How much does a student pay for a swim?", (PRICES,), [claim],
                       generation=1)
    assert plan.limitation and "no calculator" in plan.rejected[0][1]


GYM = Passage(
    "gym@3#0-400", "/d/gym_terms.md", "gym_terms.md",
    "## Membership options\n- Standard: £34 per month.\n- Off-Peak: £24 per month.\n"
    "- Early joiners: take £10 off each month of a Standard plan\n"
    "A freeze costs £5 for each month.\n"
    "Students with a valid student card get 20% off the Standard monthly price.\n"
    "The locker plan costs £3 a week.\n", 0, 400)


def test_a_share_of_a_plan_named_with_a_capital_is_worked_out_from_that_plan() -> None:
    (claim,) = _derive("I'm a student, what would I pay a month for the standard membership?",
                       GYM)
    assert claim.calculation is not None and claim.calculation.result == "27.20"
    assert claim.calculation.operands == ("34", "20")  # not the freeze, not the £10 off


def test_a_year_of_a_monthly_or_weekly_amount() -> None:
    (claim,) = _derive("What does the off-peak membership come to over a year?", GYM)
    assert claim.calculation is not None and claim.calculation.expression == "24 * 12"
    assert claim.text.endswith("£24 a month for a year is 288 pounds.")
    (lockers,) = _derive("How much is the locker plan per year?", GYM)
    assert lockers.calculation is not None and lockers.calculation.result == "156"
    assert support(lockers, [GYM], evaluate).ok
    stated = Passage("y", "/d/y.md", "y.md", "The locker plan costs £3 a week or £120 a year.",
                     0, 50)
    assert _derive("How much is the locker plan per year?", stated) == []  # the words say it



def _p(text: str) -> Passage:
    return Passage("x@1#0", "/d/x.md", "x.md", text, 0, len(text))


def test_no_share_or_year_is_worked_out_from_the_wrong_amount() -> None:
    peak = _p("Peak membership costs £30. Off-peak membership costs £20. "
              "Students get 10% off off-peak membership.")
    assert not any(c.calculation is not None and c.calculation.result == "27"
                   for c in _derive("How much is off-peak membership for students?", peak))
    stepped = _p("The plan costs £10 a month for the first 3 months, then £20 a month.")
    assert _derive("How much will the plan cost over a year?", stepped) == []
    lockers = _p("Lockers cost £2 per week. Parking is free for members.")
    assert _derive("How much is parking per year?", lockers) == []
    lessons = _p("Lessons cost £20 a month.")
    assert _derive("How much are lessons for my one year old?", lessons) == []


def test_a_share_comes_before_a_year_and_a_short_year_sentence_passes_the_gate() -> None:
    annual = _p("Annual membership costs £300. Students get 20% off annual membership.")
    (share,) = _derive("How much is the annual membership for students?", annual)
    assert share.calculation is not None and share.calculation.result == "240"
    gym = _p("The gym costs £16.50 a month.")
    (year,) = _derive("How much does the gym cost per year?", gym)
    assert year.calculation is not None and year.calculation.result == "198"
    assert support(year, [gym], evaluate).ok


def test_a_year_is_worked_out_before_a_share_that_answers_another_thing() -> None:
    plan = _p("For £16.50 a month the plan includes two hygienist visits a year, plus 10% off "
              "all other treatment. We charge £20 for a dental appointment and £30 for a "
              "hygienist visit.")
    (year,) = _derive("What does the dental plan come to over a year?", plan)
    assert year.calculation is not None and year.calculation.expression == "16.50 * 12"
    assert year.calculation.result == "198"  # not "10% off £20"
    # A group with a share and a year: two steps, so nothing is worked out from one of them.
    assert not any(c.calculation is not None and c.calculation.result == "408"
                   for c in _derive("How much do students pay a year for the standard "
                                    "membership?", GYM))


def test_a_worked_out_amount_answers_the_words_that_ask_for_the_working() -> None:
    plan = Passage("d@1#0", "/d/dentist_info.md", "dentist_info.md",
                   "### Care plan\nFor £16.50 a month the plan includes two check-ups and two "
                   "hygienist visits a year, plus 10% off all other treatment.\n", 0, 150)
    question = "what does the dental plan come to over a year?"
    (claim,) = derive(question, [plan], evaluate)
    answer = plan_answer(question, [plan], [claim], generation=1, calculate=evaluate)
    assert not answer.limitation and "198 pounds" in answer.units[0].text
    # "come to over" asks for the working: a sentence quoted as it stands, with no
    # working, does not answer them.
    quoted = Claim("c1", plan.text.split("\n")[1], (plan.passage_id,), "answer")
    refused = plan_answer(question, [plan], [quoted], generation=1, calculate=evaluate)
    assert refused.limitation and "com" in refused.rejected[0][1]
