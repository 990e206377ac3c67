"""The write desk on a real SQLite store: prepare, revise a spoken change, execute once."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.adapters.store.write_desk import StoreDesk, change_words
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall

NOW = dt.datetime(2026, 12, 1, 15, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))


@pytest.fixture
def desk(tmp_path: Path) -> StoreDesk:
    return StoreDesk(Store(tmp_path / "a.sqlite3"), lambda: NOW)


@pytest.mark.parametrize(("text", "words"), [
    ("Make it 6 pm.", "6 pm"), ("No, make it 10 minutes instead.", "10 minutes"),
    ("change it to tomorrow at 9", "tomorrow at 9"), ("Actually, at 7 pm", "at 7 pm"),
    ("instead, 20 minutes please", "20 minutes"), ("make that buy oat milk", "buy oat milk"),
])
def test_change_words(text: str, words: str) -> None:
    assert change_words(text) == words


def test_a_reminder_changed_by_voice_is_read_back_with_the_new_time(desk: StoreDesk) -> None:
    first = desk.prepare(ToolCall("set_reminder", {"text": "call mum", "when": "at 5 pm"}))
    assert first.read_back == "Remind you to call mum at 5 PM today?"
    second = desk.revise(first, "No, make it 6 pm.")
    assert second.read_back == "Remind you to call mum at 6 PM today?"
    assert second.args["text"] == "call mum" and second.args["when"] == "6 pm"


def test_a_timer_keeps_its_label_when_the_duration_changes(desk: StoreDesk) -> None:
    first = desk.prepare(ToolCall("set_timer", {"duration": "5 minutes", "label": "pasta"}))
    second = desk.revise(first, "make it 8 minutes")
    assert second.args["duration_s"] == 480 and second.args["label"] == "pasta"


def test_words_that_are_not_a_change_are_refused(desk: StoreDesk) -> None:
    first = desk.prepare(ToolCall("set_timer", {"duration": "5 minutes"}))
    with pytest.raises(AgentError):
        desk.revise(first, "make it")
    with pytest.raises(AgentError):
        desk.revise(first, "make it purple")


def test_execute_runs_once_per_key(desk: StoreDesk) -> None:
    action = desk.prepare(ToolCall("add_note", {"text": "buy milk"}))
    first = desk.execute(action, "k1")
    again = desk.execute(action, "k1")
    assert first == again and "buy milk" in first
    assert len(desk.store.list_notes()) == 1
