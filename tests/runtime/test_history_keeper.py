"""The app's keeper of the kept history: purges at start and on its timer, clears on request."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from desktop_agent.adapters.store.history_store import HistoryStore  # noqa: E402
from desktop_agent.adapters.store.store_sqlite import FILE_NAME, Store  # noqa: E402
from desktop_agent.core.conversation.history import History  # noqa: E402
from desktop_agent.core.privacy import DAY_S  # noqa: E402
from desktop_agent.core.settings import PrivacySettings  # noqa: E402
from desktop_agent.runtime.history_keeper import HistoryKeeper  # noqa: E402
from desktop_agent.runtime.view_api import ErrorNotice  # noqa: E402


class Wall:
    def __init__(self) -> None:
        self.now = 1_790_000_000.0

    def __call__(self) -> float:
        return self.now


def _disk(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.iterdir() if p.is_file())


def test_purges_at_start_then_on_its_timer_and_clears(qtbot, tmp_path: Path) -> None:
    store = Store(tmp_path / FILE_NAME)
    wall = Wall()
    kept = HistoryStore(store, PrivacySettings(transcript_retention_days=1), wall)
    history = History("system")
    history.set_sink(kept.record)
    history.record_turn("the aardvark question", assistant_text="the aardvark answer")
    wall.now += 1.1 * DAY_S  # a day and more: past the retention period
    notices: list[ErrorNotice] = []
    keeper = HistoryKeeper(kept, history.clear, notices.append, every_ms=50)
    keeper.start()
    assert keeper.purges == 1 and kept.messages() == []
    assert b"aardvark" not in _disk(tmp_path)

    history.record_turn("the bison question", assistant_text="the bison answer")
    assert len(kept.messages()) == 2
    wall.now += 1.1 * DAY_S
    qtbot.waitUntil(lambda: keeper.purges >= 2 and not kept.messages(), timeout=10_000)
    assert b"bison" not in _disk(tmp_path)

    history.record_turn("the camel question", assistant_text="the camel answer")
    assert keeper.clear() == "Conversation history cleared."
    assert kept.messages() == [] and history.exchanges == 0  # disk and memory
    keeper.stop()
    assert notices == []
    store.close()


def test_turning_keeping_off_in_settings_erases_at_once(qtbot, tmp_path: Path) -> None:
    store = Store(tmp_path / FILE_NAME)
    kept = HistoryStore(store, PrivacySettings(), Wall())
    history = History("system")
    history.set_sink(kept.record)
    history.record_turn("the dingo question", assistant_text="the dingo answer")
    keeper = HistoryKeeper(kept, history.clear, lambda n: None)
    assert keeper.apply(PrivacySettings(keep_history=False)) == 2
    assert b"dingo" not in _disk(tmp_path)
    store.close()


def test_a_damaged_store_is_a_notice_not_a_crash(qtbot, tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_bytes(b"\x00garbage" * 500)
    kept = HistoryStore(Store(path), PrivacySettings(), Wall())
    notices: list[ErrorNotice] = []
    keeper = HistoryKeeper(kept, lambda: None, notices.append)
    keeper.start()
    said = keeper.clear()
    keeper.stop()
    assert [n.code for n in notices] == ["store_corrupt", "store_corrupt"]
    assert said.startswith("The conversation history could not be cleared")
