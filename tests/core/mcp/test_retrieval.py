"""Which MCP tools a request is offered: BM25 over the tools' words, at most three, a floor.

The tools are mcp-server-git's and mcp-server-time's as they list themselves
(devtools/data/mcp_git_time_tools.jsonl); the phrasings are the dev set the floor was set on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.core.mcp.config import ServerChoice
from desktop_agent.core.mcp.retrieval import MAX_CANDIDATES, ToolIndex, fold
from desktop_agent.core.mcp.tools import McpTool, spec_of
from desktop_agent.core.ports import ChatMessage, ToolSpec
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.decision import offer_tools, your_tools

DATA = (Path(__file__).resolve().parents[3] / "desktop_agent" / "devtools" / "data"
        / "mcp_git_time_tools.jsonl")


def _specs() -> list[ToolSpec]:
    pinned = {"git": {"repo_path": "/r"}, "time": {}}
    return [spec_of(McpTool(**t), ServerChoice(trusted=True, pinned=pinned[t["server"]]))
            for t in map(json.loads, DATA.read_text().splitlines())]


SPECS = _specs()
INDEX = ToolIndex(SPECS)


@pytest.mark.parametrize(("request_", "tool"), [
    ("what's the status of my git repo", "git__git_status"),
    ("show me the git status", "git__git_status"),
    ("which files did I change and not stage yet", "git__git_diff_unstaged"),
    ("show me the staged changes", "git__git_diff_staged"),
    ("commit my changes with the message fix the typo", "git__git_commit"),
    ("make a commit saying update readme", "git__git_commit"),
    ("what's in the commit log", "git__git_log"),
    ("create a new branch called experiments", "git__git_create_branch"),
    ("switch to the main branch", "git__git_checkout"),
    ("list the branches", "git__git_branch"),
    ("unstage everything", "git__git_reset"),
    ("add readme.md to the staging area", "git__git_add"),
    ("what time is it in Tokyo", "time__get_current_time"),
    ("what's the current time in the Europe/London timezone", "time__get_current_time"),
    ("convert 3 pm New York time to Paris time", "time__convert_time"),
])
def test_a_request_is_offered_its_tool_among_at_most_three(request_: str, tool: str) -> None:
    found = INDEX.candidates(request_)
    assert tool in [s.name for s in found] and len(found) <= MAX_CANDIDATES


@pytest.mark.parametrize("request_", [
    "tell me a joke", "how are you today", "set a timer for ten minutes",
    "what is the capital of France", "remind me to call mum at six"])
def test_chat_and_built_in_requests_are_offered_no_mcp_tool(request_: str) -> None:
    assert INDEX.candidates(request_) == ()


def test_endings_fold_to_one_term() -> None:
    assert {fold(w) for w in ("stages", "staged", "staging", "stage")} == {"stag"}
    assert fold("branches") == fold("branch") and fold("commits") == fold("commit")
    assert fold("address") == "address"


def test_the_decision_offers_own_tools_beside_the_rules_and_never_for_a_statement() -> None:
    tools = (*BUILTIN.specs, *SPECS)
    ask = [ChatMessage("user", "What's the git status?")]
    assert [t.name for t in offer_tools(ask, tools).tools][:1] == ["git__git_status"]
    both = offer_tools([ChatMessage("user", "What time is it in Tokyo?")], tools).tools
    assert {"get_current_time", "time__get_current_time"} <= {t.name for t in both}
    said = [ChatMessage("user", "I checked the git status yesterday.")]
    assert your_tools(said, tools) == ()
    answer = [*ask, ChatMessage("tool", "On branch main", name="git__git_status")]
    assert your_tools(answer, tools) == ()
    assert your_tools(ask, BUILTIN.specs) == ()  # no own tools: nothing to search


@pytest.mark.parametrize(("said", "offered"), [
    ("Commit my changes with the message first note.", True),
    ("Unstage everything", True),
    ("I commit to nothing.", False),
    ("The branch was merged yesterday.", False),
])
def test_a_command_in_a_tools_words_is_a_request_a_statement_is_not(
        said: str, offered: bool) -> None:
    tools = (*BUILTIN.specs, *SPECS)
    assert bool(your_tools([ChatMessage("user", said)], tools)) is offered
