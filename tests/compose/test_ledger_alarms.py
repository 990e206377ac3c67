"""Timers and reminders on a real store: due ones fire once, missed ones are announced at start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.compose.ledger import StoreLedger
from desktop_agent.core.cancel import TurnId
from desktop_agent.core.turns.states import State
from desktop_agent.runtime.alarm_clock import AlarmClock, alarm_line, missed_line


class _Machine:
    state = State.LISTENING
    turn_id = TurnId(3)
    history: Any = None


@pytest.fixture
def rig(tmp_path: Path, qtbot: Any) -> Any:
    class Rig:
        wall = 1_000_000.0
        store = Store(tmp_path / "a.sqlite3")
        said: list[str] = []
        fired: list[Any] = []
        changed: list[bool] = []
        errors: list[Any] = []
        machine = _Machine()

    r = Rig()
    r.ledger = StoreLedger(r.store, lambda: r.wall)
    r.clock = AlarmClock(r.ledger, r.machine, speak_aside=lambda _t, text: r.said.append(text),
                         fired=r.fired.append, changed=lambda: r.changed.append(True),
                         show_error=r.errors.append, wall=lambda: r.wall)
    yield r
    r.clock.stop()


def test_a_due_timer_fires_once_and_waits_for_the_machine_to_listen(rig: Any, qtbot: Any) -> None:
    rig.store.add_alarm("timer", "pasta", rig.wall + 5, now=rig.wall)
    rig.clock.start()
    assert rig.said == [] and [a.label for a in rig.ledger.alarms()] == ["pasta"]
    rig.machine.state = State.ASSISTANT_SPEAKING
    rig.wall += 6
    qtbot.waitUntil(lambda: bool(rig.fired), timeout=5000)
    assert [a.label for a in rig.fired] == ["pasta"] and rig.said == []  # shown, not spoken
    rig.machine.state = State.LISTENING
    qtbot.waitUntil(lambda: bool(rig.said), timeout=5000)
    assert rig.said == ["Your pasta timer is done."]
    assert rig.ledger.alarms() == [] and len(rig.fired) == 1


def test_alarms_missed_while_closed_are_announced_at_start(rig: Any) -> None:
    rig.store.add_alarm("reminder", "call mum", rig.wall - 60, now=rig.wall - 120)
    rig.clock.start()
    assert len(rig.said) == 1 and rig.said[0].startswith("While I was closed, you missed the "
                                                         "reminder to call mum at ")
    assert rig.ledger.take_missed(rig.wall) == []  # once


def test_a_broken_store_is_reported_once_and_the_clock_keeps_running(tmp_path: Path,
                                                                     qtbot: Any) -> None:
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"not a database" * 100)
    errors: list[Any] = []
    ledger = StoreLedger(Store(bad), lambda: 0.0)
    clock = AlarmClock(ledger, _Machine(), speak_aside=lambda *_: None, fired=lambda _a: None,
                       changed=lambda: None, show_error=errors.append)
    clock.start()
    for _ in range(3):  # three polls: still said once
        clock._on_timer_timeout()
    clock.stop()
    assert [e.code for e in errors] == ["store_corrupt"]


def test_lines() -> None:
    from desktop_agent.runtime.view_api import AlarmRow

    assert alarm_line(AlarmRow(1, "timer", "", 0.0)) == "Your timer is done."
    assert alarm_line(AlarmRow(1, "reminder", "stretch", 0.0)) == "Reminder: stretch."
    assert missed_line([]) == ""


def test_a_damaged_store_is_kept_aside_and_a_new_one_started(tmp_path: Path) -> None:
    from desktop_agent.compose.ledger import open_store

    bad = tmp_path / "assistant.sqlite3"
    bad.write_bytes(b"\x00garbage" * 512)
    store, note = open_store(bad)
    assert store.error is None and store.list_notes() == []
    kept = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert len(kept) == 1 and kept[0].read_bytes().startswith(b"\x00garbage")
    assert str(kept[0]) in note and "damaged" in note
    store.add_note("works again", now=1.0)
    store.close()
    again, note = open_store(bad)
    assert note == "" and len(again.list_notes()) == 1
