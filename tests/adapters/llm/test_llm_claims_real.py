"""The LLM claim proposer on the real default model and the fixture corpus (real index)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import ModelError
from desktop_agent.core.knowledge import LIMITATION, compose_answer, rank_sentences

pytestmark = pytest.mark.models

CORPUS = Path(__file__).resolve().parents[2] / "data" / "knowledge" / "corpus"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from desktop_agent.adapters.knowledge.knowledge_sqlite import SqliteKnowledgeIndex

    idx = SqliteKnowledgeIndex(tmp_path_factory.mktemp("knowledge") / "k.sqlite")
    report = idx.index([str(CORPUS)])
    assert report.problems == () and report.passages > 0
    yield idx
    idx.close()


@pytest.fixture(scope="module")
def proposer(llm: Any) -> Any:
    from desktop_agent.adapters.llm.llm_claims import LlmClaimProposer

    return LlmClaimProposer(llm)


def test_it_shares_the_loaded_model(llm: Any, proposer: Any) -> None:
    assert proposer._llm is llm._llm


@pytest.mark.parametrize("question, expected", [
    ("How do I top up the boiler pressure?", "filling loop"),
    ("How many guests can I bring to the club?", "two guests"),
    ("What's the wifi network called?", "Larch-Home"),
])
def test_a_document_question_gets_a_quoted_supported_answer(
        index: Any, proposer: Any, question: str, expected: str) -> None:
    plan = compose_answer(question, index, proposer, generation=1)
    assert not plan.limitation, plan.rejected
    assert expected in plan.units[0].text
    assert proposer.last_pick is not None and proposer.last_pick.answer.startswith("S")
    quote = plan.units[0].quotes[0]
    assert quote.quote in next(p.text for p in plan.passages if p.passage_id == quote.passage_id)


def test_top_up_keeps_its_warning_in_the_first_unit(index: Any, proposer: Any) -> None:
    plan = compose_answer("How do I top up the boiler pressure?", index, proposer,
                          generation=1)
    assert "hot" in plan.units[0].text or "cold" in plan.units[0].text


@pytest.mark.parametrize("question", ["What is the wifi password?",
                                      "What does error code E7 mean?"])
def test_questions_the_documents_do_not_answer_get_the_limitation(
        index: Any, proposer: Any, question: str) -> None:
    plan = compose_answer(question, index, proposer, generation=1)
    assert plan.limitation and [u.text for u in plan.units] == [LIMITATION]


def test_the_model_is_only_offered_the_fixed_ids(index: Any, proposer: Any) -> None:
    ranked = rank_sentences("When is the recycling collected?",
                            index.search("When is the recycling collected?", 5), 4)
    pick = proposer.pick("When is the recycling collected?", ranked)
    allowed = {f"S{i + 1}" for i in range(len(ranked))} | {"none"}
    assert pick.answer in allowed and pick.condition in allowed


def test_a_cancelled_pick_returns_none(index: Any, proposer: Any) -> None:
    token = CancelToken()
    token.cancel("barge-in")
    ranked = rank_sentences("Where is the stopcock?", index.search("Where is the stopcock?"), 4)
    assert proposer.pick("Where is the stopcock?", ranked, token) is None


def test_ids_the_tokenizer_cannot_tell_apart_fail_at_load(llm: Any) -> None:
    from desktop_agent.adapters.llm.llm_claims import LlmClaimProposer

    bad = LlmClaimProposer.__new__(LlmClaimProposer)
    bad._llm = llm._llm
    with pytest.raises(ModelError) as info:
        bad._trie(["S1", "S1"])
    assert info.value.code == "llm_grammar_invalid"
