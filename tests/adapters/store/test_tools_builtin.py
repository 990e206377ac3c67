"""The built-in tools on a real SQLite store: spoken sentences for reads, and confirmed
writes executed exactly once from their normalised, read-back form."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.adapters.store.tools_builtin import (
    EXECUTOR,
    PLAIN_READS,
    STORE_READS,
    WRITES,
    builtin_tools,
    default_tools,
    execute_prepared,
    prepare_call,
)
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.tools.specs import BUILTIN_SPECS
from desktop_agent.core.tools.tool_def import Risk, ToolDef

ZONE = dt.timezone(dt.timedelta(hours=1))
START = dt.datetime(2026, 3, 2, 18, 0, tzinfo=ZONE)  # a Monday, 6 PM


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> dt.datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "agent.sqlite3")


@pytest.fixture
def tools(store: Store, clock: Clock) -> ToolRegistry:
    return builtin_tools(store, clock)


def ask(tools: ToolRegistry, name: str, **args: Any) -> str:
    result, failed = tools.answer(ToolCall(name, args))
    assert not failed, result
    return result


def write(store: Store, clock: Clock, key: str, name: str, **args: Any) -> str:
    action = prepare_call(store, ToolCall(name, args), clock())
    return execute_prepared(store, action, key, clock()).result


def test_every_spec_is_registered_and_writes_are_refused_directly(tools: ToolRegistry) -> None:
    mine = {t.name for t in BUILTIN if t.executor in (EXECUTOR, "")}  # the desktop's elsewhere
    assert {s.name for s in tools.specs} == mine
    assert {s.name: s.writes for s in tools.specs} == {
        s.name: s.writes for s in BUILTIN_SPECS if s.name in mine}
    result, failed = tools.answer(ToolCall("add_note", {"text": "sneaky"}))
    assert failed and "confirmation" in result


def test_default_tools_need_no_store() -> None:
    tools = default_tools(lambda: START)
    pure = {t.name for t in BUILTIN if t.answer is not None}
    assert {s.name for s in tools.specs} == {"get_current_time", "calculate",
                                             "convert_units"} | pure
    assert ask(tools, "get_current_time").startswith("It is 18:00 on Monday, 2 March 2026")


def test_every_builtin_entry_is_implemented_here_and_nothing_else_is() -> None:
    here = {t.name for t in BUILTIN if t.executor == EXECUTOR}
    assert here == set(PLAIN_READS) | set(STORE_READS) | set(WRITES)
    assert set(WRITES) == {t.name for t in BUILTIN if t.writes and t.executor == EXECUTOR}


def test_a_pure_answer_runs_on_the_clock_with_nothing_added_here(store: Store,
                                                                clock: Clock) -> None:
    def year(_args: Any, now: dt.datetime) -> str:
        return f"It is {now.year}."

    entry = ToolDef("what_year", "The year.", {}, Risk.READ, offered=lambda t: False,
                    answer=year)
    catalog = BUILTIN.joined([entry])
    assert ask(default_tools(clock, catalog), "what_year") == "It is 2026."
    assert ask(builtin_tools(store, clock, catalog), "what_year") == "It is 2026."


def test_calculate_and_convert_speak_one_sentence(tools: ToolRegistry) -> None:
    assert ask(tools, "calculate", expression="17 * 23") == "17 times 23 is 391."
    assert ask(tools, "calculate", expression="what is 15% of 80?") == "15 percent of 80 is 12."
    assert ask(tools, "calculate", expression="nineteen times forty-two") == \
        "Nineteen times forty-two is 798."
    assert ask(tools, "convert_units", value=5, from_unit="miles", to_unit="km") == \
        "5 miles is 8.05 kilometers."
    assert ask(tools, "convert_units", value="1", from_unit="foot", to_unit="inches") == \
        "1 foot is 12 inches."
    result, failed = tools.answer(ToolCall("calculate", {"expression": "1/0"}))
    assert failed and "divide by zero" in result
    result, failed = tools.answer(ToolCall("convert_units", {"value": 1}))
    assert failed and "needs" in result  # schema checked before the tool runs


def test_notes_read_aloud(store: Store, clock: Clock, tools: ToolRegistry) -> None:
    assert ask(tools, "list_notes") == "You have no notes yet."
    assert write(store, clock, "k1", "add_note", text="buy milk") == "Added the note: buy milk."
    assert ask(tools, "list_notes") == "You have one note: buy milk."
    write(store, clock, "k2", "add_note", text="call the plumber.")
    assert ask(tools, "list_notes") == "You have two notes: buy milk, and call the plumber."
    assert ask(tools, "search_notes", query="plumber") == \
        "I found one note about plumber: call the plumber."
    assert ask(tools, "search_notes", query="C++") == "No note mentions C++."
    assert "what's" in ask(tools, "search_notes", query="what's")


def test_delete_notes_reads_back_a_count_and_says_what_happened(
        store: Store, clock: Clock) -> None:
    for i, text in enumerate(["buy milk", "buy bread", "call mum"]):
        store.add_note(text, clock().timestamp() + i)
    action = prepare_call(store, ToolCall("delete_notes", {"query": "all"}), clock())
    assert action.read_back == "Delete all 3 notes?"
    buy = prepare_call(store, ToolCall("delete_notes", {"query": "buy"}), clock())
    assert buy.read_back == "Delete 2 notes that mention buy?"
    assert execute_prepared(store, buy, "d1", clock()).result == "Deleted 2 notes."
    assert execute_prepared(store, action, "d2", clock()).result == "Deleted the note: call mum."
    with pytest.raises(AgentError) as err:
        prepare_call(store, ToolCall("delete_notes", {"query": "all"}), clock())
    assert err.value.code == "nothing_to_change"


def test_timers_and_reminders(store: Store, clock: Clock, tools: ToolRegistry) -> None:
    assert ask(tools, "list_timers") == "You have no timers or reminders."
    timer = prepare_call(store, ToolCall("set_timer", {"duration": "5 minutes",
                                                       "label": "pasta"}), clock())
    assert timer.read_back == "Set a pasta timer for 5 minutes, ending at 6:05 PM?"
    clock.now += dt.timedelta(seconds=20)  # the user took a while to say yes
    assert execute_prepared(store, timer, "t1", clock()).result == \
        "Pasta timer set for 5 minutes; it ends at 6:05 PM."
    assert store.pending_alarms()[0].due_at == clock().timestamp() + 300

    assert write(store, clock, "r1", "set_reminder", text="call mum", when="tomorrow at 9") == \
        "I'll remind you to call mum at 9 AM tomorrow."
    clock.now += dt.timedelta(seconds=40)
    assert ask(tools, "list_timers") == (
        "You have a pasta timer with 4 minutes left, and a reminder to call mum at 9 AM "
        "tomorrow.")

    assert write(store, clock, "c1", "cancel_timer", which="pasta") == "Cancelled the pasta timer."
    assert ask(tools, "list_timers") == "You have a reminder to call mum at 9 AM tomorrow."
    # Nothing matches any more: the read-back refuses, and a stale action says so.
    stale = prepare_call(store, ToolCall("cancel_timer", {"which": "mum"}), clock())
    assert stale.read_back == "Cancel the reminder to call mum?"
    store.cancel_alarms("all")
    assert execute_prepared(store, stale, "c2", clock()).result == \
        "There was no timer called mum."


def test_a_confirmed_write_runs_once_per_key(store: Store, clock: Clock) -> None:
    action = prepare_call(store, ToolCall("add_note", {"text": "buy milk"}), clock())
    first = execute_prepared(store, action, "same", clock())
    again = execute_prepared(store, action, "same", clock())
    assert (first.replayed, again.replayed) == (False, True)
    assert again.result == "Added the note: buy milk."
    assert [n.text for n in store.list_notes()] == ["buy milk"]
    assert store.executed_actions()[0].args == {"text": "buy milk"}


def test_a_reminder_whose_time_passed_before_the_yes_is_not_set(
        store: Store, clock: Clock) -> None:
    action = prepare_call(store, ToolCall("set_reminder", {"text": "stretch",
                                                           "when": "in 1 minute"}), clock())
    clock.now += dt.timedelta(minutes=5)
    with pytest.raises(AgentError) as err:
        execute_prepared(store, action, "late", clock())
    assert err.value.code == "reminder_passed"
    assert store.pending_alarms() == [] and store.executed_actions() == []


def test_a_broken_store_is_an_answer_not_a_crash(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "agent.sqlite3"
    path.write_bytes(b"not a database at all" * 100)
    tools = builtin_tools(Store(path), clock)
    result, failed = tools.answer(ToolCall("list_notes", {}))
    assert failed and "damaged" in result
