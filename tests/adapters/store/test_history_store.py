"""The kept history on disk: written only when Privacy allows, redacted, purged, cleared.

Every assertion about privacy reads the bytes of every file in the store's folder (the
database, its write-ahead log, its shared-memory index), not the table: a deleted row that is
still in a free page or in the log would be found.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.adapters.store.history_store import HistoryStore, keeps
from desktop_agent.adapters.store.store_sqlite import FILE_NAME, Store
from desktop_agent.core.conversation.history import History
from desktop_agent.core.ports import ChatMessage, ToolCall
from desktop_agent.core.privacy import DAY_S
from desktop_agent.core.settings import PrivacySettings

SAID = "Call Ann on 555-123-4567 about the zebra quilt, her mail is ann.lee@example.com"
HEARD = "I will remind you about the zebra quilt at 14:30 on 2026-12-01"
SECRETS = ("555-123-4567", "ann.lee@example.com", "4111 1111 1111 1111")
ON = PrivacySettings(keep_history=True, transcript_retention_days=30)


def _on_disk(folder: Path) -> bytes:
    """Every byte of every file in ``folder`` (the database and its side files)."""
    return b"".join(p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file())


class Wall:
    """A movable UTC clock."""

    def __init__(self) -> None:
        self.now = 1_790_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "data" / FILE_NAME)
    yield s
    s.close()


def _kept(store: Store, privacy: PrivacySettings = ON, wall: Wall | None = None
          ) -> tuple[HistoryStore, History]:
    kept = HistoryStore(store, privacy, wall or Wall())
    history = History("system")
    history.set_sink(kept.record)
    return kept, history


def test_an_exchange_is_kept_redacted_with_digits_and_the_interrupted_flag(store: Store) -> None:
    kept, history = _kept(store)
    history.record_turn(SAID, assistant_text=HEARD, interrupted=True)
    history.record_turn("pay with 4111 1111 1111 1111",
                        tool_messages=[ChatMessage("assistant", "", tool_call=ToolCall(
                            "add_note", {"text": "card 4111-1111-1111-1111"})),
                            ChatMessage("tool", "Saved.", name="add_note")])
    rows = kept.messages()
    assert [(m.exchange, m.role, m.interrupted) for m in rows] == [
        (1, "user", False), (1, "assistant", True),
        (2, "user", False), (2, "tool_call", False), (2, "tool", False)]
    assert rows[0].text == ("Call Ann on [phone number] about the zebra quilt, her mail is "
                            "[email]")
    assert rows[1].text == HEARD  # times and dates are not phone numbers
    assert rows[2].text == "pay with [card number]"
    assert rows[3].name == "add_note" and "[card number]" in rows[3].text
    disk = _on_disk(store.path.parent)
    assert b"zebra quilt" in disk
    for secret in SECRETS:
        assert secret.encode() not in disk


@pytest.mark.parametrize("privacy", [PrivacySettings(keep_history=False),
                                     PrivacySettings(transcript_retention_days=0)])
def test_with_keeping_off_nothing_said_reaches_the_disk(store: Store,
                                                        privacy: PrivacySettings) -> None:
    kept, history = _kept(store, privacy)
    assert not keeps(privacy)
    history.record_turn(SAID, assistant_text=HEARD)
    assert history.exchanges == 1  # the session still remembers it for the next prompt
    assert kept.messages() == []
    disk = _on_disk(store.path.parent)
    assert b"zebra" not in disk and b"Ann" not in disk


def test_what_is_older_than_the_retention_period_is_purged_from_every_file(
        store: Store) -> None:
    wall = Wall()
    kept, history = _kept(store, PrivacySettings(transcript_retention_days=2), wall)
    history.record_turn(SAID, assistant_text="old reply about the zebra quilt")
    wall.now += 1.5 * DAY_S
    history.record_turn("a newer question about the walrus", assistant_text="walrus answer")
    assert kept.purge() == 0  # nothing is two days old yet
    wall.now += 0.6 * DAY_S  # the first exchange is 2.1 days old, the second 0.6
    assert kept.purge() == 2
    assert [m.text for m in kept.messages()] == ["a newer question about the walrus",
                                                 "walrus answer"]
    disk = _on_disk(store.path.parent)
    assert b"zebra" not in disk and b"walrus" in disk
    wall.now += 2 * DAY_S
    assert kept.purge() == 2
    assert b"walrus" not in _on_disk(store.path.parent)


def test_clear_history_empties_it_on_disk_and_notes_stay(store: Store) -> None:
    kept, history = _kept(store)
    store.add_note("zebra note the user asked to keep", 1.0)
    for i in range(30):  # enough pages that deleted rows would linger in free pages
        history.record_turn(f"{SAID} number {i}", assistant_text=f"{HEARD} ({i})")
    assert kept.clear() == 60
    assert kept.messages() == []
    disk = _on_disk(store.path.parent)
    assert b"quilt" not in disk
    assert b"zebra note the user asked to keep" in disk
    assert [n.text for n in store.list_notes()] == ["zebra note the user asked to keep"]


def test_turning_keeping_off_erases_what_was_kept(store: Store) -> None:
    kept, history = _kept(store)
    history.record_turn(SAID, assistant_text=HEARD)
    assert kept.set_privacy(PrivacySettings(keep_history=False)) == 2
    history.record_turn("the yak question", assistant_text="the yak answer")
    disk = _on_disk(store.path.parent)
    assert b"quilt" not in disk and b"yak" not in disk


def test_a_damaged_store_never_fails_the_turn(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_bytes(b"this is not a database" * 100)
    damaged = Store(path)
    kept, history = _kept(damaged)
    history.record_turn(SAID, assistant_text=HEARD)  # logged, not raised
    assert history.exchanges == 1
    assert kept.record([ChatMessage("user", "x")]) is False


def test_the_action_ledger_keeps_arguments_and_results_redacted(store: Store) -> None:
    done = store.execute_once("k1", "add_note", {"text": "Ann 555-123-4567"},
                              lambda s: (s.add_note("Ann 555-123-4567", 1.0),
                                         "Saved: Ann 555-123-4567.")[1], now=1.0)
    assert done.result == "Saved: Ann 555-123-4567."  # the live answer is the real one
    logged = store.executed_actions()[0]
    assert logged.args == {"text": "Ann [phone number]"}
    assert logged.result == "Saved: Ann [phone number]."
    assert [n.text for n in store.list_notes()] == ["Ann 555-123-4567"]  # notes: as asked
