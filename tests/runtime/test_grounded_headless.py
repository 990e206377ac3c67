"""Grounded answers through the headless executor: the real index, the app's turn machine.

The index is the real SQLite adapter over the fixture corpus; claims come from the
deterministic ``LexicalProposer`` (the LLM proposer has its own model tests), speech from
the fake TTS, so these are exact: which units play, which are dropped, what follows a cut.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop_agent.adapters.knowledge.knowledge_sqlite import SqliteKnowledgeIndex
from desktop_agent.adapters.store.tools_builtin import default_tools
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge import LIMITATION, Claim, LexicalProposer
from desktop_agent.core.knowledge.index import Passage
from desktop_agent.core.ports import SpeechChunk
from desktop_agent.runtime.headless import HeadlessExecutor
from desktop_agent.runtime.headless_units import Interrupt
from tests.fakes.llm import FakeLlm, say
from tests.fakes.tts import FakeTts

CORPUS = Path(__file__).resolve().parents[1] / "data" / "knowledge" / "corpus"
CHAT = "Happy to help."


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SqliteKnowledgeIndex]:
    idx = SqliteKnowledgeIndex(tmp_path_factory.mktemp("k") / "knowledge.sqlite3")
    report = idx.index([str(CORPUS)])
    assert report.passages > 0 and not report.problems
    yield idx
    idx.close()


@pytest.fixture()
def executor(index: SqliteKnowledgeIndex) -> Iterator[HeadlessExecutor]:
    llm = FakeLlm(lambda messages: say(CHAT))
    with HeadlessExecutor(llm, FakeTts(), default_tools(), knowledge=index,
                          proposer=LexicalProposer()) as ex:
        yield ex


def test_a_document_question_is_answered_in_units_with_their_sources(executor) -> None:
    turn = executor.ask_text("How much do guests pay per visit?")
    assert turn.error is None
    assert turn.units and all(u.disposition == "played" for u in turn.units)
    assert "8" in turn.units[0].text or "eight" in turn.units[0].text.lower()
    source = turn.units[0].sources[0]
    assert source.file.endswith("club_rules.md") and source.quote
    assert ".md" not in turn.reply  # no source name is read aloud
    assert turn.plan is not None and not turn.plan.limitation
    assert turn.reply.startswith(turn.units[0].text.split()[0])


def test_chit_chat_and_tool_requests_go_to_the_model_and_tools(executor) -> None:
    assert executor.ask_text("thanks a lot").reply == CHAT
    turn = executor.ask_text("what time is it")  # a tool rule's request: the model decides
    assert turn.reply == CHAT and not turn.units


def test_an_unsupported_question_gets_the_limitation_never_a_guess(executor) -> None:
    turn = executor.ask_text("What is the wifi password for the clubhouse guests?")
    texts = [u.text for u in turn.units]
    if turn.units:  # the documents mention guests: the grounded path must refuse
        assert turn.plan is not None and turn.plan.limitation
        assert texts == [LIMITATION]
    else:
        assert turn.reply == CHAT


BOOKING = ("Courts can be booked up to seven days ahead through the club app.",
           "A booking lasts one hour, and members may hold only one booking at a time.")


class TwoAnswers:
    """Proposes both booking rules as answers (two units), then defers to the lexical one."""

    def propose(self, question: str, passages: Sequence[Passage],
                cancel: CancelToken | None = None) -> list[Claim]:
        claims = [Claim(f"c{i}", s, (p.passage_id,), "answer")
                  for p in passages for i, s in enumerate(BOOKING) if s in p.text]
        return claims or list(LexicalProposer().propose(question, passages, cancel))


@dataclass
class HeldTts(FakeTts):
    """Synthesises the clauses of ``held`` only once their job is cancelled (never in time)."""

    held: str = BOOKING[1]

    def synthesize(self, text: str, cancel: CancelToken | None = None) -> Iterator[SpeechChunk]:
        if text in self.held and cancel is not None:
            done = threading.Event()
            while not cancel.cancelled and not done.wait(0.01):
                pass
        yield from super().synthesize(text, cancel)


def test_a_cut_in_after_the_first_unit_cancels_the_second_and_answers_the_new_question(
        index: SqliteKnowledgeIndex) -> None:
    llm = FakeLlm(lambda messages: say(CHAT))
    with HeadlessExecutor(llm, HeldTts(), default_tools(), knowledge=index,
                          proposer=TwoAnswers()) as ex:
        turn = ex.ask_text("When can courts be booked and how long does a booking last?",
                           interrupt=Interrupt(after_units=1, text="what does E3 mean"))
    earlier = {u.text: u.disposition for u in turn.earlier_units}
    assert earlier == {BOOKING[0]: "played", BOOKING[1]: "canceled"}
    assert "overheat" in " ".join(u.text for u in turn.units).lower()
    assert all(u.disposition == "played" for u in turn.units)


def test_a_cut_in_correction_drops_the_old_units_and_answers_the_new_question(executor) -> None:
    turn = executor.ask_text("What does E1 mean?",
                             interrupt=Interrupt(after_units=1, text="actually, E3"))
    earlier = turn.earlier_units
    assert earlier and earlier[0].disposition == "played"
    assert all(u.disposition != "played" for u in earlier[1:])
    assert turn.units and all(u.generation > earlier[0].generation for u in turn.units)
    assert "overheat" in " ".join(u.text for u in turn.units).lower()
    # Nothing of the first answer plays after the cut.
    assert [u for u in earlier[1:] if u.disposition == "played"] == []


def test_repeat_says_the_same_units_again_under_a_new_generation(executor) -> None:
    first = executor.ask_text("How far ahead can courts be booked?")
    again = executor.ask_text("say that again")
    assert [u.text for u in again.units] == [u.text for u in first.units]
    assert again.units[0].generation > first.units[0].generation


def test_a_question_about_the_documents_wins_over_a_tool_rule(executor) -> None:
    # "what time" would go to the clock; the floodlights are the documents' subject.
    turn = executor.ask_text("Until what time can we use the floodlights?")
    assert turn.units and "10" in " ".join(u.text for u in turn.units)
    assert not executor.ask_text("what time is it").units  # the clock's question stays its


def test_a_correction_said_before_any_answer_played_joins_the_question(executor) -> None:
    turn = executor.ask_text("Which day is the black bin collected?",
                             interrupt=Interrupt(after_units=0, text="Wait, the recycling one."))
    assert turn.earlier_units == ()  # nothing of the first reading was ever played
    said = " ".join(u.text for u in turn.units).lower()
    assert "recycling" in said and "friday" in said
