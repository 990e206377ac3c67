"""The selection tools' rules (core.tools.clipboard): offers, what is read, what is copied."""

from __future__ import annotations

import pytest

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.clipboard import (
    MAX_READ_CHARS,
    NOTHING_SELECTED,
    NOTHING_TO_COPY,
    AnswerCopier,
    asks_copy_answer,
    asks_read_selection,
    read_selection,
)


@pytest.mark.parametrize("text", [
    "read this to me", "Read this.", "read me the selected text", "Read the selection, please.",
    "what does the highlighted text say", "read what I copied", "read this out loud",
    "what's on my clipboard?", "What did I just copy?", "read it aloud",
    "read out what I've selected", "say what I've got highlighted",
    "I've selected a bit of this article, can you read it to me?",
])
def test_reading_the_selection_is_asked(text: str) -> None:
    assert asks_read_selection(text) and not asks_copy_answer(text)


@pytest.mark.parametrize("text", [
    "read my notes out", "read the news headlines", "read me a story", "read this email",
    "copy that", "what does this word mean", "read the timer", "say something funny",
    "what's the selected team for Saturday like", "I read this book last year",
    "I selected the wrong file yesterday, what do I do",
])
def test_other_requests_are_not_the_selection(text: str) -> None:
    assert not asks_read_selection(text)


@pytest.mark.parametrize("text", [
    "copy that", "Copy that.", "copy that to the clipboard", "copy your answer",
    "put that on the clipboard", "copy what you just said", "copy it please",
    "save your last reply to my clipboard", "copy that result for me",
    "put that last answer on the clipboard",
    "put that answer on my clipboard so I can paste it in the email",
])
def test_copying_the_answer_is_asked(text: str) -> None:
    assert asks_copy_answer(text) and not asks_read_selection(text)


@pytest.mark.parametrize("text", [
    "copy the file to my desktop", "copy my notes into an email", "how do I copy a file",
    "copy that recipe for me from the website and send it to Tom",
])
def test_other_copies_are_not_the_answer(text: str) -> None:
    assert not asks_copy_answer(text)


class Board:
    """A clipboard in memory."""

    def __init__(self, selected: str = "") -> None:
        self.selected = selected
        self.copies: list[str] = []

    def selected_text(self) -> str:
        return self.selected

    def copy(self, text: str) -> None:
        self.copies.append(text)


def test_the_selection_is_read_as_it_is_with_its_spaces_tidied() -> None:
    assert read_selection(Board("  Set a timer\nfor five   minutes. ")) == (
        "Set a timer for five minutes.")
    assert read_selection(Board("")) == NOTHING_SELECTED
    assert read_selection(Board(" \n ")) == NOTHING_SELECTED


def test_a_very_long_selection_is_cut_at_a_word_and_says_so() -> None:
    said = read_selection(Board("word " * (MAX_READ_CHARS // 4)))
    assert len(said) < MAX_READ_CHARS + 100
    assert said.endswith(f"{MAX_READ_CHARS // 4 - MAX_READ_CHARS // 5} more words are selected.")


def test_the_last_answer_is_copied_and_copying_twice_copies_it_again() -> None:
    board, last = Board(), ["The capital of Italy is Rome."]
    copier = AnswerCopier(board, lambda: last[0])
    said = copier.copy()
    assert said == "I copied my last answer to the clipboard (6 words)."
    last[0] = said  # the copy's own sentence is now the newest reply
    assert copier.copy() == said
    assert board.copies == ["The capital of Italy is Rome."] * 2
    last[0] = "It is 3 pm."
    copier.copy()
    assert board.copies[-1] == "It is 3 pm."


def test_nothing_said_yet_is_nothing_to_copy() -> None:
    board = Board()
    assert AnswerCopier(board, lambda: "").copy() == NOTHING_TO_COPY and not board.copies


def test_a_clipboard_failure_is_raised_for_the_executor_to_say() -> None:
    class Broken(Board):
        def copy(self, text: str) -> None:
            raise AgentError("no_display", "There is no desktop display here.")

    with pytest.raises(AgentError):
        AnswerCopier(Broken(), lambda: "Hello.").copy()
