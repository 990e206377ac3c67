"""The SQLite store on real files: schema, exactly-once across threads and a killed process,
damaged and locked files, note search with spoken text, alarms and undo."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from desktop_agent.adapters.store.store_records import (
    MIGRATIONS,
    SCHEMA_VERSION,
    StoreError,
    _statements,
)
from desktop_agent.adapters.store.store_sqlite import Store

ROOT = Path(__file__).resolve().parents[3]
T0 = 1_700_000_000.0


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "agent.sqlite3")


def _add(text: str, when: float = T0):
    def action(s: Store) -> str:
        s.add_note(text, when)
        return f"Added the note: {text}."
    return action


# --- schema -------------------------------------------------------------------------------------


def test_a_new_file_gets_every_migration_and_wal(store: Store) -> None:
    assert store.error is None
    assert store.schema_version() == SCHEMA_VERSION == len(MIGRATIONS)
    assert store.journal_mode() == "wal"
    assert store.list_notes() == []


def test_an_older_schema_is_migrated_and_its_notes_become_searchable(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    for statement in _statements(MIGRATIONS[0]):
        conn.execute(statement)
    conn.execute("INSERT INTO notes (text, created_at) VALUES ('call the plumber', 1.0)")
    conn.execute("INSERT INTO actions (idempotency_key, tool, args, result, executed_at) "
                 "VALUES ('k0', 'add_note', '{}', 'Added.', 1.0)")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()

    store = Store(path)
    assert store.error is None
    assert store.schema_version() == SCHEMA_VERSION
    assert [n.text for n in store.search_notes("plumber")] == ["call the plumber"]
    assert store.execute_once("k0", "add_note", {}, _add("never")).replayed
    assert store.undo("k0", T0).undone_at == T0  # an old row without effects undoes nothing


def test_a_file_from_a_newer_app_is_refused_with_a_fix(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    store = Store(path)
    assert store.error is not None and store.error.code == "store_too_new"
    with pytest.raises(StoreError) as err:
        store.list_notes()
    assert err.value.code == "store_too_new" and "Update desktop_agent" in err.value.fix


# --- exactly once -------------------------------------------------------------------------------


def test_execute_once_twice_with_one_key_runs_once(store: Store) -> None:
    runs: list[int] = []

    def action(s: Store) -> str:
        runs.append(1)
        s.add_note("buy milk", T0)
        return "Added the note: buy milk."

    first = store.execute_once("key-1", "add_note", {"text": "buy milk"}, action, now=T0)
    second = store.execute_once("key-1", "add_note", {"text": "buy milk"}, action, now=T0 + 9)
    assert (first.replayed, second.replayed) == (False, True)
    assert second.result == first.result == "Added the note: buy milk."
    assert second.executed_at == T0 and second.args == {"text": "buy milk"}
    assert runs == [1]
    assert [n.text for n in store.list_notes()] == ["buy milk"]
    assert [e.key for e in store.executed_actions()] == ["key-1"]


def test_an_action_that_fails_leaves_nothing(store: Store) -> None:
    def action(s: Store) -> str:
        s.add_note("half done", T0)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        store.execute_once("k", "add_note", {}, action)
    assert store.list_notes() == [] and store.executed_actions() == []
    assert not store.execute_once("k", "add_note", {}, _add("whole")).replayed


@pytest.mark.parametrize("shared", [True, False], ids=["one_store", "two_connections"])
def test_two_threads_racing_one_key_run_it_once(tmp_path: Path, shared: bool) -> None:
    path = tmp_path / "race.sqlite3"
    stores = [Store(path)] * 2 if shared else [Store(path), Store(path)]
    barrier = threading.Barrier(2)
    runs: list[str] = []
    results: list[bool] = []

    def action(s: Store) -> str:
        runs.append(threading.current_thread().name)
        time.sleep(0.05)  # widen the window in which the other thread would sneak in
        s.add_note("once", T0)
        return "ok"

    def worker(s: Store) -> None:
        barrier.wait()
        results.append(s.execute_once("same", "add_note", {}, action).replayed)

    threads = [threading.Thread(target=worker, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(runs) == 1 and sorted(results) == [False, True]
    assert [n.text for n in Store(path).list_notes()] == ["once"]


_CHILD = """
import sys, time
from pathlib import Path
from desktop_agent.adapters.store.store_sqlite import Store

path, when = Path(sys.argv[1]), sys.argv[2]

def action(store):
    store.add_note("buy milk", 1.0)
    if when == "before_commit":
        print("inside", flush=True)
        time.sleep(600)
    return "Added the note: buy milk."

Store(path).execute_once("spoken-1", "add_note", {"text": "buy milk"}, action, now=1.0)
print("done", flush=True)
time.sleep(600)  # executed and committed, but killed before it could speak
"""


def _run_child_and_kill(path: Path, when: str, wait_for: str) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(path), when], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()  # blocks until the child reaches the point
        assert line == wait_for, proc.stderr.read() if proc.stderr else line
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_process_killed_after_commit_is_replayed_not_run_again(tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite3"
    _run_child_and_kill(path, "after_commit", "done")

    store = Store(path)
    again = store.execute_once("spoken-1", "add_note", {"text": "buy milk"}, _add("buy milk"))
    assert again.replayed and again.result == "Added the note: buy milk."
    assert [n.text for n in store.list_notes()] == ["buy milk"]


def test_a_process_killed_before_commit_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite3"
    _run_child_and_kill(path, "before_commit", "inside")

    store = Store(path)
    assert store.list_notes() == [] and store.executed_actions() == []
    first = store.execute_once("spoken-1", "add_note", {"text": "buy milk"}, _add("buy milk"))
    assert not first.replayed
    assert [n.text for n in store.list_notes()] == ["buy milk"]


# --- damaged and locked files -------------------------------------------------------------------


def test_random_bytes_give_store_corrupt_and_rebuild_keeps_a_copy(tmp_path: Path) -> None:
    path = tmp_path / "agent.sqlite3"
    junk = bytes(range(256)) * 64
    path.write_bytes(junk)

    store = Store(path)  # does not raise: the app stays up
    assert store.error is not None and store.error.code == "store_corrupt"
    with pytest.raises(StoreError) as err:
        store.add_note("lost?", T0)
    assert err.value.code == "store_corrupt"
    assert str(path) in err.value.message and "Restart the app" in err.value.fix

    moved = store.rebuild(now=T0)
    assert moved is not None and moved.name.startswith("agent.sqlite3.corrupt-2023")
    assert moved.read_bytes() == junk
    assert store.error is None
    store.add_note("fresh start", T0)
    assert [n.text for n in Store(path).list_notes()] == ["fresh start"]


def test_damaged_pages_inside_a_real_database_give_store_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "agent.sqlite3"
    store = Store(path)
    for i in range(300):
        store.add_note(f"note number {i} " + "x" * 100, T0)
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(path.read_bytes())
    page = 4096
    data[page * 2: page * 6] = b"\xff" * (page * 4)  # keep the header, wreck some tree pages
    path.write_bytes(bytes(data))

    damaged = Store(path)
    assert damaged.error is not None and damaged.error.code == "store_corrupt"


def test_a_locked_database_gives_store_locked_quickly_and_recovers(tmp_path: Path) -> None:
    path = tmp_path / "agent.sqlite3"
    Store(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock

    store = Store(path, busy_timeout_s=0.1)
    start = time.monotonic()
    with pytest.raises(StoreError) as err:
        store.add_note("blocked", T0)
    assert err.value.code == "store_locked" and str(path) in err.value.message
    assert time.monotonic() - start < 3.0  # the short busy timeout, not the default 5 s
    assert store.list_notes() == []  # WAL: reading still works while another one writes

    holder.execute("ROLLBACK")
    holder.close()
    store.add_note("unblocked", T0)
    assert [n.text for n in store.list_notes()] == ["unblocked"]


def test_a_lock_at_open_is_kept_as_the_error_and_cleared_later(tmp_path: Path) -> None:
    path = tmp_path / "agent.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE x (y)")
    holder.execute("BEGIN EXCLUSIVE")  # rollback-journal file, exclusively locked

    store = Store(path, busy_timeout_s=0.05)
    assert store.error is not None and store.error.code == "store_locked"
    holder.execute("ROLLBACK")
    holder.close()
    assert store.list_notes() == [] and store.error is None


# --- notes --------------------------------------------------------------------------------------


def test_search_ranks_and_survives_fts_hostile_text(store: Store) -> None:
    store.add_note("buy milk and eggs", T0)
    store.add_note("call the plumber about the sink", T0)
    store.add_note("what's the C++ book called", T0)
    assert [n.text for n in store.search_notes("plumb")] == ["call the plumber about the sink"]
    assert [n.text for n in store.search_notes("milk eggs")] == ["buy milk and eggs"]
    # No note has both words: the content words alone still find it.
    assert [n.text for n in store.search_notes("milk bread")] == ["buy milk and eggs"]
    assert [n.text for n in store.search_notes("what's")] == ["what's the C++ book called"]
    for hostile in ["what's", "C++", '"', "*", "NEAR(", "AND", "OR NOT", "a:b", "(", "^x", "-",
                    "'", "notes_fts", "col:milk", '""milk""', "NEAR(milk eggs, 2)"]:
        store.search_notes(hostile)
        store.count_notes(hostile)
    assert store.search_notes('"') == [] and store.search_notes("*") == []


def test_delete_restore_and_all(store: Store) -> None:
    store.add_note("buy milk", T0)
    store.add_note("buy bread", T0)
    store.add_note("call mum", T0)
    assert store.count_notes("buy") == 2
    gone = store.delete_notes("buy", T0)
    assert sorted(n.text for n in gone) == ["buy bread", "buy milk"]
    assert [n.text for n in store.list_notes()] == ["call mum"]
    assert store.search_notes("milk") == []
    assert store.restore_notes([n.id for n in gone]) == 2
    assert store.count_notes("all") == 3
    assert len(store.delete_notes("all", T0)) == 3 and store.list_notes() == []


def test_undo_add_and_delete(store: Store) -> None:
    store.execute_once("add", "add_note", {"text": "buy milk"}, _add("buy milk"), now=T0)
    store.execute_once("add2", "add_note", {"text": "call mum"}, _add("call mum"), now=T0)
    store.execute_once("del", "delete_notes", {"query": "all"},
                       lambda s: f"Deleted {len(s.delete_notes('all', T0))} notes.", now=T0)
    assert store.list_notes() == []
    undone = store.undo("del", T0 + 1)
    assert undone.undone_at == T0 + 1 and undone.tool == "delete_notes"
    assert [n.text for n in store.list_notes()] == ["buy milk", "call mum"]
    store.undo("add", T0 + 2)
    assert [n.text for n in store.list_notes()] == ["call mum"]
    with pytest.raises(StoreError) as err:
        store.undo("add", T0 + 3)
    assert err.value.code == "nothing_to_undo"
    assert {e.key: e.undone_at for e in store.executed_actions()} == {
        "add": T0 + 2, "add2": None, "del": T0 + 1}


# --- alarms -------------------------------------------------------------------------------------


def test_alarms_due_fired_cancelled_and_missed_on_start(tmp_path: Path) -> None:
    path = tmp_path / "agent.sqlite3"
    store = Store(path)
    pasta = store.add_alarm("timer", "pasta", T0 + 300, T0)
    eggs = store.add_alarm("timer", "eggs", T0 + 600, T0)
    mum = store.add_alarm("reminder", "call mum", T0 + 3600, T0)
    assert [a.label for a in store.pending_alarms()] == ["pasta", "eggs", "call mum"]
    assert store.due_alarms(T0 + 299) == []
    assert [a.id for a in store.due_alarms(T0 + 300)] == [pasta.id]
    assert store.mark_fired(pasta.id) and not store.mark_fired(pasta.id)

    assert [a.id for a in store.matching_alarms("the eggs timer")] == [eggs.id]
    assert [a.id for a in store.matching_alarms("reminder")] == [mum.id]
    assert [a.id for a in store.matching_alarms("the reminder to call mum")] == [mum.id]
    assert store.matching_alarms("pizza") == [] and store.matching_alarms("") == []
    assert [a.id for a in store.cancel_alarms("eggs")] == [eggs.id]
    store.close()

    # The app was closed past the reminder's time: it is missed, announced once.
    reopened = Store(path)
    missed = reopened.missed_on_start(T0 + 7200)
    assert [(a.id, a.state) for a in missed] == [(mum.id, "missed")]
    assert reopened.missed_on_start(T0 + 7200) == [] and reopened.pending_alarms() == []


def test_undo_a_timer_set_and_a_cancel(store: Store) -> None:
    store.execute_once("set", "set_timer", {}, lambda s: str(s.add_alarm(
        "timer", "pasta", T0 + 300, T0).id), now=T0)
    store.execute_once("cancel", "cancel_timer", {"which": "all"},
                       lambda s: str(len(s.cancel_alarms("all"))), now=T0)
    assert store.pending_alarms() == []
    store.undo("cancel", T0 + 1)
    assert [a.label for a in store.pending_alarms()] == ["pasta"]
    store.undo("set", T0 + 2)
    assert store.pending_alarms() == []
