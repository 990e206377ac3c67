"""A damaged store: ``ask --data-dir`` and ``replay --data-dir`` keep a copy, start a new one,
and say so; the turn is answered. (The app's start-up path is tested in tests/adapters.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from desktop_agent.adapters.store.store_sqlite import FILE_NAME, Store
from tests.fakes.llm import FakeLlm, say
from tests.fakes.tts import FakeTts

JUNK = {
    "random": np.random.default_rng(11).bytes(40_000),
    "text": b"my shopping list: eggs, milk\n" * 200,
}


def _fake_engines(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from desktop_agent.compose import engines
    from desktop_agent.core.tools.registry import ToolRegistry

    def fake_load(settings: object, roles: tuple[str, ...],
                  tools: object = None) -> engines.Engines:
        return engines.Engines(llm=FakeLlm(lambda m: say("Fine, thanks.")),  # type: ignore[arg-type]
                               tts=FakeTts(), tools=tools or ToolRegistry())  # type: ignore[arg-type]

    monkeypatch.setattr(engines, "load_engines", fake_load)
    monkeypatch.setenv("DESKTOP_AGENT_CONFIG_DIR", str(tmp_path / "config"))


def _damage(data: Path, kind: str) -> bytes:
    data.mkdir(parents=True, exist_ok=True)
    if kind == "torn":  # a real store whose pages were overwritten in the middle
        store = Store(data / FILE_NAME)
        for i in range(200):
            store.add_note(f"note number {i} with some words in it", float(i))
        store.close()
        raw = bytearray((data / FILE_NAME).read_bytes())
        raw[4096:4096 * 3] = np.random.default_rng(2).bytes(4096 * 2)
        (data / FILE_NAME).write_bytes(bytes(raw))
        for side in ("-wal", "-shm"):
            (data / (FILE_NAME + side)).unlink(missing_ok=True)
        return bytes(raw)
    (data / FILE_NAME).write_bytes(JUNK[kind])
    return JUNK[kind]


def _kept_copy(data: Path, original: bytes) -> None:
    copies = sorted(data.glob(FILE_NAME + ".corrupt-*"))
    assert [p for p in copies if p.read_bytes() == original], copies
    fresh = Store(data / FILE_NAME)
    assert fresh.error is None and fresh.list_notes() == []
    fresh.close()


@pytest.mark.parametrize("kind", ["random", "text", "torn"])
def test_ask_rebuilds_a_damaged_store_and_says_so(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path, kind: str) -> None:
    _fake_engines(monkeypatch, tmp_path)
    data = tmp_path / "data"
    original = _damage(data, kind)
    from desktop_agent.cli import main

    assert main(["ask", "--text", "how are you", "--json", "--data-dir", str(data)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["reply"] == "Fine, thanks."
    assert "warning: Your assistant database was damaged" in err and "Traceback" not in err
    _kept_copy(data, original)


@pytest.mark.parametrize("kind", ["random", "torn"])
def test_replay_rebuilds_a_damaged_store_and_says_so(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path, kind: str) -> None:
    _fake_engines(monkeypatch, tmp_path)
    data = tmp_path / "data"
    original = _damage(data, kind)
    script = tmp_path / "script.jsonl"
    script.write_text('{"say": "how are you"}\n', encoding="utf-8")
    from desktop_agent.cli import main

    assert main(["replay", str(script), "--data-dir", str(data)]) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0]["step"] == 1 and rows[-1]["summary"]["steps"] == 1
    assert "warning: Your assistant database was damaged" in err and "Traceback" not in err
    _kept_copy(data, original)
