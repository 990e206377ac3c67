"""The whole answer path with the real sentence-embedding model on a small corpus written
here: questions put the way people talk are answered, a number is worked out, and what the
documents do not say is still refused (the index, its vectors, fusion, ranking, the gate,
derivation and the planner, as the app runs them through ``KnowledgeLlm``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from desktop_agent.adapters.knowledge.knowledge_sqlite import SqliteKnowledgeIndex
from desktop_agent.core.conversation.knowledge_llm import KnowledgeLlm
from desktop_agent.core.errors import ModelError
from desktop_agent.core.knowledge import CALCULATION_FILE, LIMITATION, LexicalProposer, Meaning
from desktop_agent.core.ports import ChatMessage
from tests.needs import unavailable

pytestmark = [pytest.mark.models, pytest.mark.slow]

HALL = """VILLAGE HALL - NOTICES

The gardening club gets together on Mondays from 2 pm to 4 pm in the small room.
The large room costs 30 euros an hour to hire.
The small room costs 12 euros an hour to hire.
Residents get 20% off room hire.
The caretaker, Joe Brandt, keeps the keys.
"""
CAFE = """# Hall cafe

## Menu
| Item | Price |
|---|---|
| Soup of the day | 5 euros |
| Sandwich | 4 euros |

Children pay half price for soup.

## Rules
Dogs are not allowed inside, except guide dogs.
The cafe is closed on Sundays.
"""
SURGERY = """# Riverside Surgery

## Fees
- Check-up: 25 euros
- Scale and polish: 40 euros

## Late arrivals
If you arrive more than 10 minutes late we may ask you to rebook.

## Deposits
More than 14 days before your visit: full refund, less the deposit.
A deposit of 20 euros holds a booking.

## Guarantee
The following are covered for 12 months only:
- crowns and bridges
- night guards
"""


class _Inner:
    """The wrapped chat model: it must never be asked (every question here is the documents')."""

    def stream_chat(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        raise AssertionError("the chat model answered a document question")


@pytest.fixture(scope="module")
def llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KnowledgeLlm]:
    from desktop_agent.adapters.embed.embed_minilm import load_embedder

    try:
        embedder = load_embedder()
        embedder.load()
    except ModelError as exc:
        unavailable("the sentence-embedding model", f"[{exc.code}] {exc.message} {exc.fix}")
    root = tmp_path_factory.mktemp("talk")
    docs = root / "docs"
    docs.mkdir()
    (docs / "hall.txt").write_text(HALL)
    (docs / "cafe.md").write_text(CAFE)
    (docs / "surgery.md").write_text(SURGERY)
    meaning = Meaning(embedder)
    index = SqliteKnowledgeIndex(root / "k.sqlite3", meaning=meaning)
    report = index.index([str(docs)])
    assert not report.problems
    yield KnowledgeLlm(_Inner(), index, LexicalProposer(meaning))  # type: ignore[arg-type]
    index.close()


def _ask(llm: KnowledgeLlm, question: str) -> tuple[str, Any]:
    deltas = list(llm.stream_chat([ChatMessage("user", question)]))
    plan = llm.last_plan
    assert plan is not None
    return " ".join(d.text for d in deltas), plan


@pytest.mark.parametrize(("question", "expected"), [
    ("When is the gardening club open?", "Mondays"),
    ("Who looks after the keys?", "Brandt"),
    ("Can I take my pet into the cafe?", "guide dogs"),
    ("Is the cafe shut on any day?", "Sundays"),
    ("How much is a scale and polish?", "40 euros"),  # a short list item is no heading
    ("What happens if I turn up twenty minutes late?", "more than 10 minutes"),  # a limit
    ("How long are my crowns covered for?", "12 months"),  # the line that opens the list
    ("How much deposit do I have to put down?", "20 euros"),  # money: the amount first
])
def test_a_question_in_other_words_is_answered(llm: KnowledgeLlm, question: str,
                                               expected: str) -> None:
    said, plan = _ask(llm, question)
    assert not plan.limitation and expected in said, (said, plan.rejected)


def test_a_number_is_worked_out_and_shown_with_its_sources(llm: KnowledgeLlm) -> None:
    said, plan = _ask(llm, "How much do kids pay for the soup?")
    assert "2.50 euros" in said, (said, plan.rejected)
    quotes = plan.units[0].quotes
    assert CALCULATION_FILE in {q.file for q in quotes}
    assert any("Soup of the day" in q.quote for q in quotes)
    said, _ = _ask(llm, "How much is the large room for residents?")
    assert "24 euros" in said


@pytest.mark.parametrize("question", [
    "What is the wifi password at the hall?",
    "How much does a coffee cost at the cafe?",
    "Who runs the gardening club?",
    "When is the cafe open on Saturday?",
    "How much do residents pay for soup?",
    "Does the surgery do teeth whitening?",
])
def test_what_the_documents_do_not_say_is_refused(llm: KnowledgeLlm, question: str) -> None:
    said, plan = _ask(llm, question)
    assert plan.limitation and said == LIMITATION, (said, plan.units)
