"""A server's tools as reads or confirmed writes: trust, annotations, allow, pinned arguments."""

from __future__ import annotations

import pytest

from desktop_agent.core.mcp.config import Allow, ServerChoice
from desktop_agent.core.mcp.tools import (
    McpTool,
    ToolClass,
    call_arguments,
    classify,
    hints_line,
    offered_schema,
    read_back,
    refused_allows,
    retry_allowed,
    spec_of,
    split_name,
)

SCHEMA = {"type": "object", "properties": {"repo_path": {"type": "string"},
                                           "message": {"type": "string"}},
          "required": ["repo_path", "message"]}
READ = McpTool("git", "git_status", "Shows the working tree status", "Git Status",
               {"type": "object", "properties": {"repo_path": {"type": "string"}},
                "required": ["repo_path"]}, read_only=True, destructive=False, idempotent=True)
COMMIT = McpTool("git", "git_commit", "Records changes to the repository", "Git Commit", SCHEMA,
                 read_only=False, destructive=False, idempotent=False)
RESET = McpTool("git", "git_reset", "Unstages all staged changes", "", SCHEMA,
                read_only=False, destructive=True, idempotent=True)
BARE = McpTool("x", "do_it", "Does it")
TRUSTED = ServerChoice(trusted=True)


def test_an_untrusted_servers_tools_are_all_confirmed_writes() -> None:
    assert {classify(t, ServerChoice()) for t in (READ, COMMIT, RESET, BARE)} == {
        ToolClass.WRITE}
    always = ServerChoice(allow={"git_status": Allow.ALWAYS})
    assert classify(READ, always) is ToolClass.WRITE


def test_a_trusted_servers_read_only_tools_are_reads_the_rest_writes() -> None:
    assert classify(READ, TRUSTED) is ToolClass.READ
    assert classify(COMMIT, TRUSTED) is ToolClass.WRITE
    assert classify(RESET, TRUSTED) is ToolClass.WRITE
    assert classify(BARE, TRUSTED) is ToolClass.WRITE  # no annotations: a write


def test_always_only_for_a_trusted_non_destructive_annotated_tool() -> None:
    allow = ServerChoice(trusted=True, allow={
        "git_commit": Allow.ALWAYS, "git_reset": Allow.ALWAYS, "do_it": Allow.ALWAYS})
    assert classify(COMMIT, allow) is ToolClass.ALWAYS
    assert classify(RESET, allow) is ToolClass.WRITE  # destructive: never "always"
    assert classify(BARE, allow) is ToolClass.WRITE  # unannotated: destructive by default
    refused = refused_allows([COMMIT, RESET, BARE], allow)
    assert len(refused) == 2 and "git__git_reset" in refused[0] and "x__do_it" in refused[1]
    assert refused_allows([COMMIT], ServerChoice(allow={"git_commit": Allow.ALWAYS}))


def test_never_hides_a_tool_even_a_read() -> None:
    choice = ServerChoice(trusted=True, allow={"git_status": Allow.NEVER})
    assert classify(READ, choice) is ToolClass.NEVER


def test_only_a_trusted_idempotent_tool_may_be_retried() -> None:
    assert retry_allowed(RESET, TRUSTED)
    assert not retry_allowed(RESET, ServerChoice())
    assert not retry_allowed(COMMIT, TRUSTED) and not retry_allowed(BARE, TRUSTED)


def test_pinned_arguments_leave_the_grammar_and_are_injected_at_call_time() -> None:
    pinned = {"repo_path": "/home/me/repo"}
    schema = offered_schema(COMMIT, pinned)
    assert schema["properties"] == {"message": {"type": "string"}}
    assert schema["required"] == ["message"]
    assert "required" not in offered_schema(READ, pinned)
    # a dictated value for a pinned argument is replaced, never sent
    assert call_arguments({"message": "fix", "repo_path": "/etc"}, pinned) == {
        "message": "fix", "repo_path": "/home/me/repo"}
    assert spec_of(COMMIT, ServerChoice(trusted=True, pinned=pinned)).parameters == schema


def test_the_spec_is_namespaced_and_says_whether_it_writes() -> None:
    read = spec_of(READ, TRUSTED)
    assert (read.name, read.writes) == ("git__git_status", False)
    assert read.description.startswith("Git Status")
    assert spec_of(READ, ServerChoice()).writes
    assert split_name("git__git_status") == ("git", "git_status")
    assert split_name("get_current_time") is None


def test_the_read_back_comes_from_the_call_without_pinned_or_long_values() -> None:
    text = read_back(COMMIT, {"message": "fix the typo", "repo_path": "/r"}, {"repo_path": "/r"})
    assert text == 'On git: Git Commit, with message "fix the typo". Shall I?'
    long = read_back(BARE, {"text": "word " * 100}, {})
    assert len(long) < 120 and '..."' in long
    assert read_back(BARE, {}, {}) == "On x: do it. Shall I?"


@pytest.mark.parametrize(("tool", "words"), [
    (READ, "read-only, not destructive, idempotent"), (RESET, "changes things, destructive"),
    (BARE, "no annotations")])
def test_annotations_in_words(tool: McpTool, words: str) -> None:
    assert hints_line(tool).startswith(words)


def test_a_reads_answer_is_spoken_from_its_structure_or_its_first_lines() -> None:
    from desktop_agent.core.mcp.tools import spoken_result

    assert spoken_result('{"result": "HI"}', {"result": "HI"}) == "HI"
    assert spoken_result("{...}", {"timezone": "Asia/Tokyo", "is_dst": False,
                                   "day_of_week": "Monday"}) == (
        "timezone: Asia/Tokyo; day of week: Monday.")
    assert spoken_result("On branch main\n\nNo commits yet\n") == "On branch main. No commits yet"
    assert len(spoken_result("word " * 500)) < 310
    assert spoken_result("") == "It answered nothing."
