"""``bench mcp``'s retrieval pass and its arithmetic (the model pass is run by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.devtools.bench_mcp import own_specs, retrieval, run_bench


def test_the_two_servers_tools_load_with_git_repo_path_pinned() -> None:
    specs = {s.name: s for s in own_specs()}
    assert len(specs) == 14 and "time__convert_time" in specs
    assert "repo_path" not in specs["git__git_commit"].parameters["properties"]


def test_retrieval_counts_hits_and_offers_to_no_tool_phrasings() -> None:
    report = retrieval([
        {"text": "show me the git status", "tool": "git__git_status"},
        {"text": "list the branches", "tool": "git__git_status"},  # a miss
        {"text": "tell me a joke", "tool": None},
        {"text": "show me the staged changes", "tool": None},  # offered: counted
    ], own_specs())
    assert report["recall_at_3"] == 0.5
    assert report["no_tool_offered"] == "1/2" and report["missed"] == ["list the branches"]


def test_the_retrieval_only_run_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_bench(retrieval_only=True) == 0
    out = capsys.readouterr().out
    assert "58 held-out phrasings" in out and "recall@3 0.7" in out


def test_another_set_of_phrasings_can_be_measured(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    phrasings = tmp_path / "mine.jsonl"
    phrasings.write_text('{"text": "show me the git status", "tool": "git__git_status"}\n\n'
                         '{"text": "tell me a joke", "tool": null}\n')
    assert run_bench(retrieval_only=True, questions=phrasings) == 0
    out = capsys.readouterr().out
    assert f"2 {phrasings} phrasings" in out and "recall@3 1.0" in out and "0/1" in out
