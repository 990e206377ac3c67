"""The support gate: faithful claims pass; changed numbers, dropped negations or conditions,
invented names and unknown evidence are refused with a reason that names the item."""

from __future__ import annotations

import pytest

from desktop_agent.core.knowledge import Claim, support
from desktop_agent.core.knowledge.claim_text import named_items, numbers, sentences, words
from tests.core.knowledge.grounded_rig import ALL, BOILER, CLUB, CODES, HOUSE


def _claim(text: str, *evidence: str) -> Claim:
    return Claim("c1", text, evidence or (BOILER.passage_id,))


@pytest.mark.parametrize("text, passage", [
    ("The normal operating pressure is between 1 and 1.5 bar when the boiler is cold.", BOILER),
    ("Never top up while the boiler is hot: wait until it has cooled down first.", BOILER),
    ("E2 Low water pressure Top up to 1.5 bar (only when cold).", CODES),
    ("Each member may bring up to two guests per visit.", CLUB),
    ("Each member may bring up to 2 guests per visit.", CLUB),
    ("Guests may not book courts.", CLUB),
])
def test_a_faithful_claim_passes_and_quotes_its_sentence(text: str, passage: object) -> None:
    verdict = support(Claim("c1", text, (passage.passage_id,)), ALL)  # type: ignore[attr-defined]
    assert verdict.ok, verdict.reasons
    assert verdict.quotes and verdict.quotes[0].passage_id == passage.passage_id  # type: ignore[attr-defined]
    assert verdict.quotes[0].quote in passage.text  # type: ignore[attr-defined]


def test_a_verbatim_claim_is_marked_quoted_and_a_paraphrase_is_not() -> None:
    assert support(_claim("Guests may not book courts.", CLUB.passage_id), ALL).quoted
    para = support(_claim("Courts may not be booked by guests.", CLUB.passage_id), ALL)
    assert para.ok and not para.quoted


def test_a_changed_number_is_refused() -> None:
    verdict = support(_claim("The normal operating pressure is between 1 and 2 bar when the "
                             "boiler is cold."), ALL)
    assert not verdict.ok
    assert any("number 2" in r for r in verdict.reasons)


def test_a_number_word_that_changes_the_number_is_refused() -> None:
    verdict = support(_claim("Each member may bring up to three guests per visit.",
                             CLUB.passage_id), ALL)
    assert not verdict.ok and any("number 3" in r for r in verdict.reasons)


def test_a_dropped_negation_is_refused() -> None:
    verdict = support(_claim("Guests may book courts.", CLUB.passage_id), ALL)
    assert not verdict.ok
    assert any("'not'" in r for r in verdict.reasons)


def test_an_added_negation_is_refused() -> None:
    verdict = support(_claim("Members may not bring guests per visit.", CLUB.passage_id), ALL)
    assert not verdict.ok and any("adds 'not'" in r for r in verdict.reasons)


def test_a_missing_condition_word_is_refused() -> None:
    verdict = support(_claim("E2 Low water pressure Top up to 1.5 bar.", CODES.passage_id), ALL)
    assert not verdict.ok
    assert any("'only'" in r for r in verdict.reasons)
    assert any("'when'" in r for r in verdict.reasons)


def test_an_added_condition_is_refused() -> None:
    verdict = support(_claim("Guests pay £8 per visit if they play.", CLUB.passage_id), ALL)
    assert not verdict.ok and any("adds 'if'" in r for r in verdict.reasons)


def test_a_name_not_in_the_passage_is_refused() -> None:
    verdict = support(_claim("Call Safehome when the boiler shows E2 Low water pressure.",
                             CODES.passage_id), ALL)
    assert not verdict.ok
    assert any("safehome" in r for r in verdict.reasons)


def test_a_code_not_in_the_passage_is_refused() -> None:
    verdict = support(_claim("E7 Low water pressure Top up to 1.5 bar (only when cold).",
                          CODES.passage_id), ALL)
    assert not verdict.ok and any("'e7'" in r for r in verdict.reasons)


def test_evidence_that_was_not_retrieved_or_is_missing_is_refused() -> None:
    assert not support(Claim("c1", "Guests may not book courts.", ()), ALL).ok
    verdict = support(_claim("Guests may not book courts.", "club@zz#0-1"), ALL)
    assert not verdict.ok and "not retrieved" in verdict.reasons[0]


def test_a_claim_citing_the_wrong_passage_is_refused() -> None:
    verdict = support(_claim("Guests may not book courts.", HOUSE.passage_id), ALL)
    assert not verdict.ok


def test_a_claim_with_few_of_its_words_in_the_passage_is_refused() -> None:
    verdict = support(_claim("Guests must register online and wear white clothing.",
                             CLUB.passage_id), ALL)
    assert not verdict.ok and any("of its words" in r for r in verdict.reasons)


@pytest.mark.parametrize("text", ["", "   ", "?!", "\u2063"])
def test_an_empty_claim_is_refused_without_raising(text: str) -> None:
    assert not support(_claim(text, CLUB.passage_id), ALL).ok


def test_number_words_and_digits_compare_equal() -> None:
    assert numbers(words("twenty-four hours, one hundred five, 1.50 bar, £5, 1,000")) == [
        "24", "105", "1.5", "5", "1000"]
    assert numbers(words("one two")) == ["1", "2"]


def test_contractions_become_not() -> None:
    assert words("Don't. Can't. cannot") == ["do", "not", "can", "not", "can", "not"]


def test_named_items_skip_the_first_word_of_a_sentence() -> None:
    assert named_items("Guests pay at the Clubhouse. Call Safehome if E2 shows.") == [
        "clubhouse", "safehome", "e2"]


def test_sentences_keep_spans_join_wrapped_lines_and_use_headings_as_context() -> None:
    found = sentences(BOILER.text)
    assert [s.text[:20] for s in found] == ["The normal operating", "To top up, open the ",
                                            "Never top up while t"]
    assert found[0].context == "Water pressure"
    assert found[1].text.endswith("gauge reads 1.5 bar, then close it.")
    for s in found:
        assert " ".join(s.raw(BOILER.text).split()) == s.text


def test_a_markdown_table_row_is_one_sentence() -> None:
    text = "| Code | Meaning |\n|---|---|\n| E2 | Low water pressure |\n"
    assert [s.text for s in sentences(text)] == ["Code: Meaning.", "E2: Low water pressure."]


@pytest.mark.parametrize("a, b", [("bookings", "book"), ("comes", "come"), ("heating", "heat"),
                                  ("fees", "fee"), ("stopped", "stop"), ("used", "use"),
                                  ("batteries", "battery"), ("collected", "collect")])
def test_word_forms_share_a_stem(a: str, b: str) -> None:
    from desktop_agent.core.knowledge.claim_text import stem

    assert stem(a) == stem(b)


def test_a_short_list_item_is_a_sentence_not_a_heading() -> None:
    text = "## Fees\n- Check-up: £25\n- Scale and polish: £40\n"
    found = sentences(text)
    assert [s.text for s in found] == ["Check-up: £25", "Scale and polish: £40"]
    assert {s.context for s in found} == {"Fees"}


def test_a_list_item_carries_the_line_that_opens_its_list() -> None:
    text = ("PARTS\nThe following are covered for 12 months only:\n- crowns and bridges\n"
            "- the night guard\n\nEverything else is covered for 5 years.\n- a lone item\n")
    found = [s.text for s in sentences(text)]
    assert found == ["The following are covered for 12 months only:",
                     "The following are covered for 12 months only: crowns and bridges",
                     "The following are covered for 12 months only: the night guard",
                     "Everything else is covered for 5 years.", "a lone item"]


def test_a_list_after_a_table_carries_nothing_from_the_table() -> None:
    text = "Prices:\n  | Item | Price |\n  |---|---|\n  | Soup | 5 euros |\n- Bread is free\n"
    assert [s.text for s in sentences(text)][-1] == "Bread is free"


def test_a_nested_list_does_not_carry_the_outer_list_s_line() -> None:
    text = ("Covered for 2 years:\n- the pump\n- the following for 6 months only:\n"
            "  - the milk frother wand\n")
    found = [s.text for s in sentences(text)]
    assert "Covered for 2 years: the pump" in found
    assert not any("2 years" in t and "frother" in t for t in found), found


def test_a_capitalised_us_is_a_name_and_a_contraction_is_no_code() -> None:
    from desktop_agent.core.knowledge.claim_text import join_spelled_codes, words

    assert "us" in named_items("Do you deliver to the US?")
    assert "m15" not in join_spelled_codes(words("What if I'm fifteen minutes late?"))
