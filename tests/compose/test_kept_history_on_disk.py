"""Privacy settings, seen on disk after headless runs: every file the run wrote is read.

The fast tests drive the app's turn machine (HeadlessExecutor) with fake engines on a real
store file; the ``models`` tests run the real ``desktop-agent ask`` command with its own
settings file and ``--data-dir``, then read every byte under that folder.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.adapters.store.history_store import HistoryStore
from desktop_agent.adapters.store.store_sqlite import FILE_NAME, Store
from desktop_agent.compose.kept_history import keep_history
from desktop_agent.core.privacy import DAY_S
from desktop_agent.core.settings import PrivacySettings, Settings
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.runtime.headless import HeadlessExecutor
from tests.fakes.llm import FakeLlm, say
from tests.fakes.tts import FakeTts

QUESTION = ("My e-mail is zoe.quill@example.com and my phone is 555-867-5309. "
            "What colour is a zebra?")
SECRETS = (b"zoe.quill@example.com", b"555-867-5309", b"867-5309")
ROOT = Path(__file__).resolve().parents[2]


def _all_bytes(folder: Path) -> bytes:
    """Every file under ``folder``, whatever it is called."""
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def _settings(keep: bool, days: int) -> Settings:
    return Settings(privacy=PrivacySettings(keep_history=keep, transcript_retention_days=days))


def _fake_turn(data: Path, settings: Settings) -> None:
    store = Store(data / FILE_NAME)
    llm = FakeLlm(lambda messages: say("Zebras are black and white. Mail zoe.quill@example.com."))
    with HeadlessExecutor(llm, FakeTts(), ToolRegistry([])) as executor:
        keep_history(store, settings, executor.machine.history)
        turn = executor.ask_text(QUESTION)
        assert turn.error is None and "Zebras" in turn.reply
    store.close()


@pytest.mark.parametrize(("keep", "days"), [(False, 30), (True, 0)])
def test_with_keeping_off_no_file_holds_the_conversation(tmp_path: Path, keep: bool,
                                                         days: int) -> None:
    _fake_turn(tmp_path, _settings(keep, days))
    disk = _all_bytes(tmp_path)
    assert disk  # the store itself was written (its tables), just not the words
    assert b"zebra" not in disk.lower() and b"zoe" not in disk


def test_with_keeping_on_the_exchange_is_there_redacted(tmp_path: Path) -> None:
    _fake_turn(tmp_path, _settings(True, 30))
    disk = _all_bytes(tmp_path)
    assert b"What colour is a zebra?" in disk and b"Zebras are black and white." in disk
    for secret in SECRETS:
        assert secret not in disk


# --- the real command -------------------------------------------------------------------------


def _ask(tmp: Path, keep: bool, days: int, question: str) -> tuple[dict[str, Any], Path]:
    config, data = tmp / "config", tmp / "data"
    config.mkdir(exist_ok=True)
    (config / "settings.toml").write_text(
        f"[privacy]\nkeep_history = {str(keep).lower()}\ntranscript_retention_days = {days}\n",
        encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "desktop_agent.cli", "ask", "--text", question,
         "--data-dir", str(data), "--json", "--max-tokens", "40"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
        env={**os.environ, "DESKTOP_AGENT_CONFIG_DIR": str(config)})
    assert proc.returncode == 0, proc.stderr
    assert "zoe.quill" not in proc.stderr and "867-5309" not in proc.stderr  # no log has it
    return json.loads(proc.stdout), data


@pytest.mark.models
@pytest.mark.slow
def test_ask_keeps_nothing_when_history_is_off(tmp_path: Path, models: Any) -> None:
    result, data = _ask(tmp_path, False, 30, QUESTION)
    assert "zebra" in result["transcript"].lower()
    disk = _all_bytes(data)
    assert b"zebra" not in disk.lower() and b"zoe" not in disk


@pytest.mark.models
@pytest.mark.slow
def test_ask_keeps_it_redacted_then_purges_it_after_the_retention_period(
        tmp_path: Path, models: Any) -> None:
    _, data = _ask(tmp_path, True, 1, QUESTION)
    disk = _all_bytes(data)
    assert b"What colour is a zebra?" in disk
    for secret in SECRETS:
        assert secret not in disk
    store = Store(data / FILE_NAME)
    kept = HistoryStore(store, PrivacySettings(transcript_retention_days=1))
    user = [m.text for m in kept.messages() if m.role == "user"]
    assert user == ["My e-mail is [email] and my phone is [phone number]. "
                    "What colour is a zebra?"]
    store.close()
    # Two days later (the rows are dated back; the app's next start purges by the date).
    with sqlite3.connect(data / FILE_NAME) as conn:
        conn.execute("UPDATE history SET at = at - ?", (2 * DAY_S,))
    conn.close()
    _ask(tmp_path, True, 1, "What sound does a walrus make?")
    disk = _all_bytes(data)
    assert b"zebra" not in disk.lower() and b"walrus" in disk
    store = Store(data / FILE_NAME)
    assert HistoryStore(store, PrivacySettings()).clear() >= 1  # "Clear history"
    store.close()
    assert b"walrus" not in _all_bytes(data)
