"""``desktop-agent knowledge index|list|search``: real files, a real index, exit codes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent import cli
from desktop_agent.adapters.store import settings_store
from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "tests" / "data" / "knowledge" / "corpus" / "boiler_manual.pdf"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fresh user dirs: the index and settings land here, never in the real ones."""
    monkeypatch.setenv("DESKTOP_AGENT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DESKTOP_AGENT_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path


@pytest.fixture
def docs(home: Path) -> Path:
    folder = home / "docs"
    folder.mkdir()
    shutil.copy(PDF, folder)
    (folder / "club.md").write_text("# Club\n\nThe yearly fee is 20 pounds, due in January.\n")
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return folder


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(["knowledge", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_index_prints_progress_and_a_summary_with_problems(capsys, docs, home) -> None:
    status, out, err = _main(capsys, "index", "--knowledge", str(docs))
    assert status == 0
    assert "[1/3]" in err and "boiler_manual.pdf" in err  # progress per file on stderr
    assert "2 added, 0 updated, 0 removed, 0 unchanged" in out
    assert str(home / "data" / "knowledge.sqlite3") in out
    assert "photo.png: not indexed: '.png' files are not supported" in out
    status, out, _ = _main(capsys, "index", "--knowledge", str(docs), "--json")
    report = json.loads(out)
    assert (report["added"], report["unchanged"], report["passages"]) == (0, 2, 3)
    assert [Path(p["file"]).name for p in report["problems"]] == ["photo.png"]
    assert report["seconds"] >= 0 and report["folders"] == [str(docs.resolve())]


def test_list_shows_files_versions_and_problems(capsys, docs) -> None:
    status, out, _ = _main(capsys, "list")
    assert status == 0 and "No knowledge index" in out  # nothing yet: say how to make one
    _main(capsys, "index", "--knowledge", str(docs))
    status, out, _ = _main(capsys, "list")
    assert status == 0
    assert "2 pages" in out and "club.md" in out and "photo.png" in out
    assert "2 file(s) and note(s), 3 passages" in out
    listing = json.loads(_main(capsys, "list", "--json")[1])
    files = {Path(f["file"]).name: f for f in listing["files"]}
    assert files["boiler_manual.pdf"]["pages"] == 2 and len(files["club.md"]["version"]) == 12
    assert [Path(p["file"]).name for p in listing["problems"]] == ["photo.png"]


def test_search_prints_passages_with_ids_scores_and_snippets(capsys, docs) -> None:
    _main(capsys, "index", "--knowledge", str(docs))
    status, out, _ = _main(capsys, "search", "what does E2 mean")
    assert status == 0
    first = out.splitlines()[0]
    assert first.startswith("1. boiler_manual.pdf p.2  score ") and "@" in first
    assert "E2 Low water pressure" in out
    status, out, _ = _main(capsys, "search", "what's", "the", "C++", '"fee"', "--json")
    result = json.loads(out)
    assert result["terms"] == ["c", "fee"]
    assert result["passages"][0]["title"] == "club.md" and result["passages"][0]["score"] > 0
    status, out, _ = _main(capsys, "search", "zeppelin")
    assert status == 0 and "Nothing in your documents matches" in out


def test_search_with_knowledge_indexes_first(capsys, docs) -> None:
    status, out, _ = _main(capsys, "search", "yearly fee", "--knowledge", str(docs), "--json")
    assert status == 0 and "20 pounds" in json.loads(out)["passages"][0]["text"]


def test_folders_come_from_settings_and_notes_from_the_store(capsys, docs, home) -> None:
    settings_store.save_settings(Settings().replace_field("knowledge.folders", [str(docs)]),
                                 home / "config" / "settings.toml")
    store = Store(home / "data" / "assistant.sqlite3")
    store.add_note("Spare key is under the blue flowerpot", 1_700_000_000.0)
    store.close()
    status, out, _ = _main(capsys, "index")
    assert status == 0 and "3 added" in out
    hit = json.loads(_main(capsys, "search", "where is the spare key", "--json")[1])
    assert hit["passages"][0]["file"].startswith("notes:")
    assert hit["passages"][0]["title"] == "Note"


@pytest.mark.parametrize(("argv", "message"), [
    (["index", "--knowledge", "/no/such/folder"], "does not exist: check the path"),
    (["index"], "no knowledge folder: pass --knowledge DIR"),
    (["search"], "the query is empty"),
    (["search", "fee"], "no knowledge index at"),
    (["search", "fee", "--limit", "0"], "--limit must be at least 1"),
])
def test_bad_input_exits_2_and_says_what_to_do(capsys, home, argv, message) -> None:
    status, out, err = _main(capsys, *argv)
    assert status == 2 and message in err and "Traceback" not in err + out


def test_the_console_command_end_to_end(docs, home) -> None:
    env = {**os.environ, "DESKTOP_AGENT_DATA_DIR": str(home / "data"),
           "DESKTOP_AGENT_CONFIG_DIR": str(home / "config")}
    index = home / "elsewhere" / "k.sqlite3"
    proc = subprocess.run(
        [sys.executable, "-m", "desktop_agent.cli", "knowledge", "index", "--knowledge",
         str(docs), "--index", str(index)], capture_output=True, text=True, env=env, cwd=ROOT,
        timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert index.exists() and not (home / "data" / "knowledge.sqlite3").exists()
    proc = subprocess.run(
        [sys.executable, "-m", "desktop_agent.cli", "knowledge", "search", "E4", "--index",
         str(index), "--json"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Flue blocked" in json.loads(proc.stdout)["passages"][0]["text"]


def test_bench_prints_the_figures(capsys, home) -> None:
    status, out, _ = _main(capsys, "bench", "--pages", "20", "--json")
    figures = json.loads(out)
    assert status == 0 and (figures["file_pages"], figures["pdf_pages"]) == (18, 2)
    assert figures["files"] == 19 and figures["problems"] == 0
    assert figures["passages"] >= 20 and figures["reindex_unchanged"] == 19
    assert figures["search_ms"]["n"] > 0 and figures["queries_with_hits"] > 0
