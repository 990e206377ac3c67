"""The typing tool's rules (core.tools.type_text): the words to type and their read-back."""

from __future__ import annotations

import datetime as dt

import pytest

from desktop_agent.core.tools.args import arguments_from_words
from desktop_agent.core.tools.type_text import (
    asks_type_text,
    clean_text,
    type_text_action,
    type_text_args,
)
from desktop_agent.core.tools.write_actions import WriteContext


@pytest.mark.parametrize(("said", "text"), [
    ("type: see you at nine", "see you at nine"),
    ("Type: See you at nine.", "See you at nine"),
    ("type see you at nine", "see you at nine"),
    ("Type, running late, sorry.", "running late, sorry"),
    ("type the words thank you", "thank you"),
    ("type out 'on my way'", "on my way"),
    ("type good morning into the chat", "good morning"),
    ("Type: Are you coming?", "Are you coming?"),
    ("key in order 5521", "order 5521"),
    ("enter the words quarterly report draft", "quarterly report draft"),
    ("write thanks for your help in this box", "thanks for your help"),
    ("write hello into the search box please", "hello"),
    ("In the search box type cheap flights to lisbon", "cheap flights to lisbon"),
    ("type this for me: see you at six", "see you at six"),
    ("type, uh, thanks so much", "thanks so much"),
])
def test_the_words_after_type_are_the_text(said: str, text: str) -> None:
    assert asks_type_text(said) and type_text_args(said) == {"text": text}


def test_politeness_around_the_request_is_not_typed() -> None:
    assert arguments_from_words("type_text", "Could you please type see you at nine?") == {
        "text": "see you at nine?"}
    assert arguments_from_words("type_text", "please type: hello there, please") == {
        "text": "hello there"}
    # the words are the text to the end: a closing "thanks" is typed, not dropped
    assert arguments_from_words("type_text", "type thank you") == {"text": "thank you"}
    assert arguments_from_words("type_text", "please type: see you, thanks") == {
        "text": "see you, thanks"}


@pytest.mark.parametrize("text", [
    "what type of tree is this", "types of cheese", "I can't type very fast",
    "type", "what's your blood type", "set a timer for five minutes",
    "enter the building by the side door", "write down that the boiler is fixed",
    "write a note about milk", "write me a poem about the sea",
])
def test_other_requests_type_nothing(text: str) -> None:
    assert not asks_type_text(text)


def test_the_read_back_shows_exactly_the_text() -> None:
    now = dt.datetime.now().astimezone()
    action = type_text_action({"text": "see you at nine"}, WriteContext(now))
    assert action.tool == "type_text" and action.args == {"text": "see you at nine"}
    assert action.read_back == 'Type "see you at nine" into the focused window?'


def test_quotes_and_one_closing_full_stop_are_dropped() -> None:
    assert clean_text('"see you at nine."') == "see you at nine"
    assert clean_text("wait...") == "wait..."
    assert clean_text("  ok! ") == "ok!"
