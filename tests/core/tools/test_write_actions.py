"""Write calls validated, normalised and read back from the structured action."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

import pytest

from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall, ToolSpec
from desktop_agent.core.tools.confirm import prepare
from desktop_agent.core.tools.registry import validate_args
from desktop_agent.core.tools.specs import BUILTIN_SPECS
from desktop_agent.core.tools.write_actions import PreparedAction, count_alarms

ZONE = dt.timezone(dt.timedelta(hours=1))
NOW = dt.datetime(2026, 3, 2, 18, 0, tzinfo=ZONE)  # a Monday, 6 PM


def _prep(name: str, **args: Any) -> PreparedAction:
    return prepare(ToolCall(name, args), NOW)


def _error(name: str, **args: Any) -> AgentError:
    with pytest.raises(AgentError) as err:
        _prep(name, **args)
    return err.value


@dataclass(frozen=True)
class _Alarm:
    kind: str
    label: str


# --- validate_args ------------------------------------------------------------------------------


def test_validate_args_cleans_and_checks_the_schema_subset() -> None:
    spec = ToolSpec("t", "", {"type": "object", "properties": {
        "text": {"type": "string", "minLength": 1, "maxLength": 5},
        "n": {"type": "number"}}, "required": ["text"], "additionalProperties": False})
    assert validate_args(spec, {"text": "  hi ", "n": "5"}) == {"text": "hi", "n": 5}
    assert validate_args(spec, {"text": "hi", "n": 2.5}) == {"text": "hi", "n": 2.5}
    for bad, fragment in [({}, "needs 'text'"), ({"text": "   "}, "must not be empty"),
                          ({"text": "toolong"}, "at most 5"), ({"text": 3}, "must be text"),
                          ({"text": "a", "n": True}, "must be a number"),
                          ({"text": "a", "n": "five"}, "must be a number"),
                          ({"text": "a", "n": float("nan")}, "must be a number"),
                          ({"text": "a", "x": 1}, "no argument 'x'")]:
        with pytest.raises(AgentError) as err:
            validate_args(spec, bad)
        assert err.value.code == "bad_arguments" and fragment in err.value.message, bad
    assert validate_args(ToolSpec("free", "", {}), {"anything": 1}) == {"anything": 1}


def test_every_builtin_spec_is_in_the_validated_subset() -> None:
    known = {"type", "properties", "required", "additionalProperties"}
    for spec in BUILTIN_SPECS:
        assert set(spec.parameters) <= known, spec.name
        for rule in spec.parameters["properties"].values():
            assert set(rule) <= {"type", "minLength", "maxLength"}, spec.name
            assert rule["type"] in {"string", "number"}, spec.name


# --- prepare: read-backs from the structured action ---------------------------------------------


def test_add_note() -> None:
    action = _prep("add_note", text="  buy milk. ")
    assert action == PreparedAction("add_note", {"text": "buy milk"},
                                    "Add a note: buy milk. Shall I?")


def test_set_timer_normalises_the_duration_and_reads_back_the_end() -> None:
    action = _prep("set_timer", duration="5 minutes")
    assert action.args == {"duration": "5 minutes", "duration_s": 300, "label": ""}
    assert action.read_back == "Set a timer for 5 minutes, ending at 6:05 PM?"
    pasta = _prep("set_timer", duration="ten minutes", label="the pasta timer")
    assert pasta.args["label"] == "pasta" and pasta.args["duration_s"] == 600
    assert pasta.read_back == "Set a pasta timer for 10 minutes, ending at 6:10 PM?"
    eggs = _prep("set_timer", duration="7 minutes", label="eggs")
    assert eggs.read_back == "Set an eggs timer for 7 minutes, ending at 6:07 PM?"  # not "a eggs"
    assert _prep("set_timer", duration="5 minutes", label="uniform").read_back.startswith(
        "Set a uniform timer")


def test_set_reminder_reads_back_the_parsed_time() -> None:
    action = _prep("set_reminder", text="to call mum", when="tomorrow at 9")
    assert action.args == {"text": "call mum", "when": "tomorrow at 9",
                           "due_at": "2026-03-03T09:00:00+01:00"}
    assert action.read_back == "Remind you to call mum at 9 AM tomorrow?"


def test_delete_notes_counts_through_the_lookup() -> None:
    asked: list[str] = []

    def count(query: str) -> int:
        asked.append(query)
        return 3

    action = prepare(ToolCall("delete_notes", {"query": "All my notes"}), NOW, count_notes=count)
    assert action.args == {"query": "all", "count": 3} and asked == ["all"]
    assert action.read_back == "Delete all 3 notes?"
    milk = prepare(ToolCall("delete_notes", {"query": "milk"}), NOW, count_notes=lambda q: 1)
    assert milk.read_back == "Delete the note that mentions milk?"
    assert _prep("delete_notes", query="milk").read_back == "Delete the notes that mention milk?"
    with pytest.raises(AgentError) as err:
        prepare(ToolCall("delete_notes", {"query": "milk"}), NOW, count_notes=lambda q: 0)
    assert err.value.code == "nothing_to_change" and "milk" in err.value.message


def test_cancel_timer_names_what_it_would_cancel() -> None:
    def one(which: str) -> list[_Alarm]:
        return [_Alarm("timer", "pasta")]

    action = prepare(ToolCall("cancel_timer", {"which": "pasta"}), NOW, match_alarms=one)
    assert action == PreparedAction("cancel_timer", {"which": "pasta"}, "Cancel the pasta timer?")
    mum = prepare(ToolCall("cancel_timer", {"which": "mum"}), NOW,
                  match_alarms=lambda w: [_Alarm("reminder", "call mum")])
    assert mum.read_back == "Cancel the reminder to call mum?"
    every = prepare(ToolCall("cancel_timer", {"which": "All"}), NOW, match_alarms=lambda w: [
        _Alarm("timer", "a"), _Alarm("timer", ""), _Alarm("reminder", "b")])
    assert every.args == {"which": "all"}
    assert every.read_back == "Cancel all 2 timers and 1 reminder?"
    assert _prep("cancel_timer", which="pasta").read_back == "Cancel the pasta timer or reminder?"
    with pytest.raises(AgentError) as err:
        prepare(ToolCall("cancel_timer", {"which": "pizza"}), NOW, match_alarms=lambda w: [])
    assert err.value.code == "nothing_to_change"
    assert count_alarms([_Alarm("timer", "x")]) == "1 timer"


def test_the_read_back_ignores_anything_the_model_adds() -> None:
    err = _error("add_note", text="buy milk", read_back="Deleting everything!")
    assert err.code == "bad_arguments" and "read_back" in err.message


def test_prepared_args_are_json_and_frozen() -> None:
    action = _prep("set_reminder", text="call mum", when="at 9 pm")
    assert json.loads(json.dumps(dict(action.args))) == dict(action.args)
    with pytest.raises(AttributeError):
        action.tool = "delete_notes"  # type: ignore[misc]


# --- invalid calls: short messages for the model ------------------------------------------------


@pytest.mark.parametrize(("name", "args", "message"), [
    ("set_timer", {}, 'set_timer needs a duration like "5 minutes".'),
    ("set_timer", {"duration": ""}, 'set_timer needs a duration like "5 minutes".'),
    ("set_timer", {"duration": "purple"}, "could not read the duration"),
    ("set_timer", {"duration": "3 days"}, "at most 24 hours"),
    ("set_timer", {"duration": "x" * 61}, "too long"),
    ("add_note", {"text": "  "}, 'add_note needs the words of the note in "text".'),
    ("set_reminder", {"text": "call mum"}, 'set_reminder needs "text"'),
    ("set_reminder", {"text": "call mum", "when": "whenever"}, "could not read the time"),
    ("delete_notes", {"query": "?!"}, 'delete_notes needs "query"'),
    ("cancel_timer", {"which": ""}, 'cancel_timer needs "which"'),
    ("get_current_time", {}, "not a tool that changes things"),
    ("launch_rocket", {}, "not a tool that changes things"),
])
def test_invalid_calls(name: str, args: dict[str, Any], message: str) -> None:
    err = _error(name, **args)
    assert message in err.message
    assert err.code in {"bad_arguments", "not_a_write"}

