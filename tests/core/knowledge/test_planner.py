"""The planner and compose_answer: the answer first with its condition in unit 1, detail
offered, a truthful limitation when nothing is supported, immutable stamped units, and
admission."""

from __future__ import annotations

import dataclasses

import pytest

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge import (
    LIMITATION,
    OFFER_PHRASE,
    Claim,
    Disposition,
    LexicalProposer,
    admit,
    compose_answer,
    plan_answer,
)
from desktop_agent.core.knowledge.index import Passage
from desktop_agent.core.knowledge.lexical import rank_sentences
from tests.core.knowledge.grounded_rig import ALL, BOILER, CLUB, CODES, FixedProposer, MemoryIndex

TOP_UP = ("To top up, open the filling loop valve under the boiler until the gauge reads 1.5 "
          "bar, then close it.")
NEVER_HOT = "Never top up while the boiler is hot: wait until it has cooled down first."


def test_the_condition_is_in_the_first_unit_after_the_answer() -> None:
    claims = [Claim("a", TOP_UP, (BOILER.passage_id,), "answer"),
              Claim("c", NEVER_HOT, (BOILER.passage_id,), "condition")]
    plan = plan_answer("How do I top up the boiler?", ALL, claims, generation=3)
    assert not plan.limitation
    assert plan.units[0].text == f"{TOP_UP} {NEVER_HOT}"
    assert plan.units[0].claim_keys == ("a", "c")
    assert plan.units[0].evidence == (BOILER.passage_id,)
    # Quotes are verbatim from the passage (its line breaks included).
    assert {" ".join(q.quote.split()) for q in plan.units[0].quotes} == {TOP_UP, NEVER_HOT}
    assert all(q.quote in BOILER.text and q.page == 1 for q in plan.units[0].quotes)
    assert all(u.generation == 3 for u in plan.units)


def test_a_condition_proposed_first_still_follows_its_answer_in_unit_one() -> None:
    claims = [Claim("c", NEVER_HOT, (BOILER.passage_id,), "condition"),
              Claim("a", TOP_UP, (BOILER.passage_id,), "answer")]
    plan = plan_answer("How do I top up the boiler?", ALL, claims, generation=1)
    assert plan.units[0].text.startswith(TOP_UP) and NEVER_HOT in plan.units[0].text


def test_a_condition_without_a_condition_word_is_offered_not_spoken() -> None:
    claims = [Claim("a", "Guests may not book courts.", (CLUB.passage_id,), "answer"),
              Claim("c", "Each member may bring up to two guests per visit.",
                    (CLUB.passage_id,), "condition")]
    plan = plan_answer("Can guests book courts?", ALL, claims, generation=1)
    assert plan.units[0].text == f"Guests may not book courts. {OFFER_PHRASE}"
    assert [u.text for u in plan.offer] == ["Each member may bring up to two guests per visit."]


def test_nothing_supported_gives_the_limitation_and_keeps_the_refusals() -> None:
    claims = [Claim("a", "The wifi password is hunter2.", (BOILER.passage_id,), "answer")]
    plan = plan_answer("What is the wifi password?", ALL, claims, generation=2)
    assert plan.limitation
    assert [u.text for u in plan.units] == [LIMITATION]
    assert plan.units[0].claim_keys == () and plan.units[0].evidence == ()
    assert plan.claims == () and len(plan.rejected) == 1


def test_a_supported_claim_that_does_not_address_the_question_is_refused() -> None:
    claims = [Claim("a", "The wifi network is called Larch-Home.", ("house@cc#0-120",),
                    "answer")]
    plan = plan_answer("What is the wifi password?", ALL, claims, generation=1)
    assert plan.limitation
    assert "password" in plan.rejected[0][1]


def test_an_answer_that_misses_the_code_the_question_names_is_refused() -> None:
    claims = [Claim("a", "E2 Low water pressure Top up to 1.5 bar (only when cold).",
                    (CODES.passage_id,), "answer")]
    plan = plan_answer("What does E4 mean?", ALL, claims, generation=1)
    assert plan.limitation and "E4" in plan.rejected[0][1]


def test_a_spelled_code_in_the_question_counts() -> None:
    claims = [Claim("a", "E2 Low water pressure Top up to 1.5 bar (only when cold).",
                    (CODES.passage_id,), "answer")]
    plan = plan_answer("what does e two mean", ALL, claims, generation=1)
    assert not plan.limitation


def test_only_a_condition_is_not_an_answer() -> None:
    claims = [Claim("c", NEVER_HOT, (BOILER.passage_id,), "condition")]
    assert plan_answer("How do I top up?", ALL, claims, generation=1).limitation


def test_units_respect_the_word_budget_and_extra_answers_are_offered() -> None:
    claims = [Claim("a", "Guests may not book courts.", (CLUB.passage_id,), "answer"),
              Claim("b", "Guests pay £8 per visit, paid at the clubhouse before play.",
                    (CLUB.passage_id,), "answer"),
              Claim("d", "Each member may bring up to two guests per visit.",
                    (CLUB.passage_id,), "detail")]
    plan = plan_answer("What are the rules for guests?", ALL, claims, generation=1,
                       word_budget=14)
    assert [u.key for u in plan.units] == ["u1", "u2"]
    assert all(u.words <= 14 for u in plan.units)
    assert plan.units[-1].text.endswith(OFFER_PHRASE)
    assert [u.text for u in plan.offer] == ["Each member may bring up to two guests per visit."]
    tight = plan_answer("What are the rules for guests?", ALL, claims, generation=1,
                        word_budget=6)
    assert len(tight.units) == 1 and len(tight.offer) == 2


def test_quoted_answers_come_before_paraphrases() -> None:
    claims = [Claim("p", "Courts may not be booked by guests.", (CLUB.passage_id,), "answer"),
              Claim("q", "Guests may not book courts.", (CLUB.passage_id,), "answer")]
    plan = plan_answer("Can guests book courts?", ALL, claims, generation=1)
    assert plan.units[0].claim_keys == ("q",)


def test_units_and_plans_are_immutable() -> None:
    plan = plan_answer("Can guests book courts?", ALL,
                       [Claim("a", "Guests may not book courts.", (CLUB.passage_id,))],
                       generation=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.units[0].text = "Guests may book courts."  # type: ignore[misc]
    assert isinstance(plan.units, tuple) and isinstance(plan.claims, tuple)


def test_units_never_name_a_source() -> None:
    plan = compose_answer("Can guests book courts?", MemoryIndex(), LexicalProposer(),
                          generation=1)
    for unit in plan.units:
        assert "club_rules" not in unit.text and "@" not in unit.text


def test_compose_answer_retrieves_proposes_and_plans() -> None:
    index = MemoryIndex()
    proposer = FixedProposer([Claim("a", "Guests may not book courts.", (CLUB.passage_id,))])
    plan = compose_answer("Can guests book courts?", index, proposer, generation=7)
    assert index.queries == ["Can guests book courts?"]
    assert CLUB in proposer.calls[0][1]
    assert plan.generation == 7 and plan.units[0].generation == 7
    assert CLUB in plan.passages


@pytest.mark.parametrize("question", ["", "   ", "?", "what is the", "\x00\u2063", "'\"();--"])
def test_odd_questions_get_the_limitation_without_raising(question: str) -> None:
    plan = compose_answer(question, MemoryIndex(), LexicalProposer(), generation=1)
    assert plan.limitation and plan.units[0].text == LIMITATION


def test_no_passages_gives_the_limitation_without_asking_the_proposer() -> None:
    proposer = FixedProposer([])
    plan = compose_answer("Where is the stopcock?", MemoryIndex(()), proposer, generation=1)
    assert plan.limitation and proposer.calls == []


def test_a_cancelled_turn_plans_no_units() -> None:
    token = CancelToken()
    token.cancel("barge-in")
    plan = compose_answer("Can guests book courts?", MemoryIndex(), LexicalProposer(),
                          generation=1, cancel=token)
    assert plan.units == () and not plan.limitation


def test_duplicate_claim_keys_are_made_unique() -> None:
    claims = [Claim("a", "Guests may not book courts.", (CLUB.passage_id,)),
              Claim("a", "Guests pay £8 per visit, paid at the clubhouse before play.",
                    (CLUB.passage_id,), "detail")]
    plan = compose_answer("Can guests book courts?", MemoryIndex(), FixedProposer(claims),
                          generation=1)
    keys = [c.key for c in plan.claims]
    assert len(keys) == len(set(keys)) == 2


def test_the_lexical_proposer_keeps_the_neighbouring_condition() -> None:
    plan = compose_answer("How do I use the filling loop valve?", MemoryIndex(),
                          LexicalProposer(), generation=1)
    assert plan.units[0].text.startswith("To top up")
    assert "Never top up while the boiler is hot" in plan.units[0].text


def test_ranking_puts_the_code_row_first() -> None:
    ranked = rank_sentences("what does E4 mean", ALL, limit=3)
    assert ranked[0].sentence.text.startswith("E4 Flue blocked")


@pytest.mark.parametrize("canceled, generation, age, expected", [
    (False, 5, 0.1, Disposition.READY),
    (False, 6, 0.1, Disposition.STALE),
    (True, 5, 0.1, Disposition.CANCELED),
    (True, 6, 99.0, Disposition.CANCELED),
    (False, 5, 31.0, Disposition.EXPIRED),
    (False, 6, 31.0, Disposition.STALE),
])
def test_admit(canceled: bool, generation: int, age: float, expected: Disposition) -> None:
    plan = plan_answer("Can guests book courts?", ALL,
                       [Claim("a", "Guests may not book courts.", (CLUB.passage_id,))],
                       generation=5)
    assert admit(plan.units[0], current_generation=generation, canceled=canceled, age_s=age,
                 max_age_s=30.0) is expected


def test_a_matched_code_outweighs_a_synonym_the_document_does_not_use() -> None:
    claims = [Claim("a", "E4 Flue blocked Do not use the boiler; call an engineer.",
                    (CODES.passage_id,), "answer")]
    assert not plan_answer("What is error E4?", ALL, claims, generation=1).limitation


def test_the_next_row_of_a_table_is_not_a_condition() -> None:
    rows = dataclasses.replace(CODES, text="E3 Overheating Switch off and call an engineer.\n"
                               "E4 Flue blocked Do not use the boiler; call an engineer.")
    plan = compose_answer("What does E3 mean?", MemoryIndex([rows]), LexicalProposer(),
                          generation=1)
    assert plan.units[0].text.startswith("E3 Overheating")
    assert "E4" not in plan.units[0].text


def test_a_warning_next_to_an_instruction_is_its_condition() -> None:
    steps = dataclasses.replace(CODES, text="Switch off and call an engineer.\n"
                                "Do not switch on the boiler until the engineer has been.")
    plan = compose_answer("What should I do, switch off the boiler?", MemoryIndex([steps]),
                          LexicalProposer(), generation=1)
    assert plan.units[0].text == ("Switch off and call an engineer. Do not switch on the boiler "
                                  "until the engineer has been.")


def test_a_claim_stating_a_limit_answers_a_question_about_another_number() -> None:
    late = Passage("late@x#0", "/d/surgery.md", "surgery.md",
                   "If you arrive more than 10 minutes late we may ask you to rebook.", 0, 64)
    bound = [Claim("a", late.text, (late.passage_id,), "answer")]
    plan = plan_answer("What if I arrive fifteen minutes late?", (late,), bound, generation=1)
    assert not plan.limitation, plan.rejected
    exact = Passage("fee@x#0", "/d/surgery.md", "surgery.md", "A check-up costs 25 euros.", 0, 26)
    plain = [Claim("a", exact.text, (exact.passage_id,), "answer")]
    plan = plan_answer("How much are 2 check-ups?", (exact,), plain, generation=1)
    assert plan.limitation and "2" in plan.rejected[0][1]


def test_a_word_of_the_file_name_does_not_rank_a_sentence_first() -> None:
    gym = Passage("gym@x#0", "/d/gym_terms.md", "gym_terms.md",
                  "## Opening hours\nThe gym floor closes 15 minutes before the building does, so "
                  "please finish your workout in time.\n"
                  "Saturday and Sunday: 8:00 am to 8:00 pm\n", 0, 120)
    ranked = rank_sentences("What time does the gym open on a Saturday?", [gym])
    assert ranked[0].sentence.text.startswith("Saturday and Sunday")


@pytest.mark.parametrize(("number", "question", "text", "meets"), [
    ("10", "I cancel ten days before", "More than 14 days before the start: full refund.", False),
    ("10", "I cancel ten days before", "14 days or fewer: 50% refund.", True),
    ("15", "I'm fifteen minutes late", "If you arrive more than 10 minutes late, rebook.", True),
    ("5", "I'm 5 minutes late", "If you arrive more than 10 minutes late, rebook.", False),
    ("14", "my fourteen year old", "Children under 16 must be accompanied by a parent.", True),
    ("20", "a twenty pound note", "Drivers can't accept notes larger than £10.", True),
    ("3", "can 3 of us play", "Bring at least 4 players.", False),
    # Not judged: two limits, other units (am and pm, minutes and an age), not a number.
    ("10", "in ten days", "Under 5 days: nothing; more than 15 days: all.", None),
    ("6", "open at 6 am", "Weekdays: the pool is open until 9 pm.", None),
    ("5", "5 minutes late", "If you come late, children under 12 cannot join.", None),
    ("9:20", "if I arrive at 9:20", "Arrivals more than 15 minutes late lose the slot.", None),
])
def test_a_limit_is_judged_only_in_the_question_s_unit(number: str, question: str, text: str,
                                                      meets: bool | None) -> None:
    from desktop_agent.core.knowledge.planner import limit_answers

    assert limit_answers(number, question, text) is meets


def test_of_two_limit_rows_the_one_the_question_s_number_meets_answers() -> None:
    rows = Passage("refund@x#0", "/d/camp.txt", "camp.txt",
                   "REFUNDS\n- More than 14 days before the start: full refund\n"
                   "- 14 days or fewer: 50% refund\n", 0, 90)
    claims = [Claim("a", "More than 14 days before the start: full refund", (rows.passage_id,)),
              Claim("b", "14 days or fewer: 50% refund", (rows.passage_id,))]
    plan = plan_answer("If I cancel ten days before the start, what refund do I get?", (rows,),
                       claims, generation=1)
    assert plan.units[0].text.startswith("14 days or fewer"), plan.rejected


def test_a_sentence_that_points_back_is_proposed_with_the_sentence_before_it() -> None:
    notice = Passage("n@x#0", "/d/dentist.md", "dentist.md",
                     "## Missed appointments\nPlease give us 24 hours' notice if you can't come. "
                     "If you don't, we charge £20 for a missed appointment.\n", 0, 120)
    (claim, *_) = LexicalProposer().propose("Will I be charged for a missed appointment?",
                                            [notice])
    assert claim.text == ("Please give us 24 hours' notice if you can't come. If you don't, we "
                          "charge £20 for a missed appointment.")
    plan = plan_answer("Will I be charged for a missed appointment?", (notice,), [claim],
                       generation=1)
    assert not plan.limitation and plan.units[0].text.startswith("Please give us"), plan.rejected


def test_a_word_naming_only_one_file_still_counts_in_every_file() -> None:
    gym = Passage("g@x#0", "/d/gym.md", "gym.md", "The gym opens at 6 am.", 0, 22)
    pool = Passage("p@x#0", "/d/pool.md", "pool.md", "The pool opens at 8 am, after the gym.",
                   0, 38)
    ranked = rank_sentences("When does the gym open?", [gym, pool])
    assert ranked[0].sentence.text == "The gym opens at 6 am."


def test_a_sentence_under_another_heading_is_not_what_a_back_reference_points_to() -> None:
    from desktop_agent.core.knowledge.lexical import with_antecedent

    text = "## Parking\nPark in the marked bays.\n\n## Late fees\nIf not, a £20 fee applies.\n"
    p = Passage("f@x#0", "/d/rules.md", "rules.md", text, 0, len(text))
    (r,) = [r for r in rank_sentences("What is the late fee?", [p]) if "fee" in r.sentence.text]
    assert with_antecedent(r) == "If not, a £20 fee applies."


def test_a_time_in_the_question_never_breaks_the_gate() -> None:
    late = Passage("l@x#0", "/d/r.md", "r.md",
                   "Arrivals more than 15 minutes late lose the slot.", 0, 50)
    claims = [Claim("a", late.text, (late.passage_id,))]
    plan = plan_answer("What happens if I arrive at 9:20?", (late,), claims, generation=1)
    assert plan.limitation
