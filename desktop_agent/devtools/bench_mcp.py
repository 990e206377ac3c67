"""``desktop-agent bench mcp``: your own tools' retrieval and decision on git and time phrasings.

The tools are mcp-server-git's 12 and mcp-server-time's 2 as they list themselves
(``data/mcp_git_time_tools.jsonl``; git's ``repo_path`` pinned, as a user would), beside the
built-in catalog. The phrasings: ``data/heldout/mcp_tools.jsonl`` (written before the
retrieval was, never tuned on); ``--questions`` another file (e.g. ``data/mcp_tune.jsonl``,
80 phrasings written blind from the tool list alone, for tuning). Two passes:

* retrieval (no model): is the expected tool among the at most three offered (recall@3), and
  how often is a request that needs no tool offered one;
* decision (``--model`` or the default 0.5B, the shipping ``LlamaLlm.stream_chat``): the tool
  called, and its arguments against the expected ones (alternatives accepted; an expected
  ``{}`` means no arguments beyond the pinned ones).

Precision: right calls / calls made; recall: right calls / phrasings that need a tool;
argument accuracy: right arguments / right calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from desktop_agent.core.mcp.config import ServerChoice
from desktop_agent.core.mcp.tools import McpTool, spec_of
from desktop_agent.core.ports import ChatMessage, ToolSpec
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.decision import your_tools

TOOLS = "mcp_git_time_tools.jsonl"
HELDOUT = "heldout/mcp_tools.jsonl"
PINNED: Mapping[str, Mapping[str, Any]] = {"git": {"repo_path": "/home/me/repo"}}


def _lines(name: str) -> list[dict[str, Any]]:
    text = resources.files("desktop_agent.devtools").joinpath("data", name).read_text(
        encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def own_specs() -> tuple[ToolSpec, ...]:
    """The git and time servers' tools as a trusted user's config offers them."""
    return tuple(spec_of(McpTool(**t), ServerChoice(trusted=True,
                                                    pinned=PINNED.get(t["server"], {})))
                 for t in _lines(TOOLS))


def retrieval(rows: Sequence[Mapping[str, Any]], specs: Sequence[ToolSpec]) -> dict[str, Any]:
    """Recall@3 of the retrieval step and how often a no-tool phrasing is offered a tool."""
    tools = (*BUILTIN.specs, *specs)
    hits = offered_none = 0
    misses = []
    for row in rows:
        found = [s.name for s in your_tools([ChatMessage("user", row["text"])], tools)]
        if row["tool"] is None:
            offered_none += bool(found)
        elif row["tool"] in found:
            hits += 1
        else:
            misses.append(row["text"])
    needing = sum(1 for r in rows if r["tool"])
    return {"recall_at_3": round(hits / max(needing, 1), 3),
            "no_tool_offered": f"{offered_none}/{len(rows) - needing}", "missed": misses}


def decisions(rows: Sequence[Mapping[str, Any]], specs: Sequence[ToolSpec], llm: Any
              ) -> dict[str, Any]:
    """Precision, recall and argument accuracy of the model's calls (the shipping path)."""
    from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT
    from desktop_agent.devtools.bench_tools import args_equal

    tools = (*BUILTIN.specs, *specs)
    calls = right = right_args = 0
    wrong = []
    for row in rows:
        messages = [ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", row["text"])]
        call = None
        stream = llm.stream_chat(messages, tools=tools, max_tokens=24)
        try:
            for delta in stream:
                if delta.tool_call is not None:
                    call = delta.tool_call
                    break
                if delta.text.strip():
                    break
        finally:
            stream.close()
        calls += call is not None
        ok = call is not None and call.name == row["tool"]
        right += ok
        if ok and call is not None:
            right_args += args_equal(_wanted(row["args"]), dict(call.arguments))
        if not ok and (row["tool"] or call is not None):
            wrong.append(f"{row['text']!r}: {call.name if call else None} "
                         f"(wanted {row['tool']})")
    needing = sum(1 for r in rows if r["tool"])
    return {"precision": round(right / max(calls, 1), 3),
            "recall": round(right / max(needing, 1), 3),
            "argument_accuracy": round(right_args / max(right, 1), 3),
            "calls": calls, "wrong": wrong}


def _wanted(args: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in args.items() if k not in PINNED["git"]}


def run_bench(as_json: bool = False, model: Path | None = None, threads: int = 2,
              retrieval_only: bool = False, questions: Path | None = None) -> int:
    """Run both passes on the held-out phrasings (or ``questions``); print the figures."""
    rows = _lines(HELDOUT) if questions is None else [
        json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines()
        if line.strip()]
    specs = own_specs()
    report: dict[str, Any] = {"phrasings": len(rows), "set": "held-out" if questions is None
                              else str(questions), "retrieval": retrieval(rows, specs)}
    if not retrieval_only:
        from desktop_agent.adapters.llm.llm_llama import LlamaLlm
        from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest

        path = model if model is not None else ModelResolver(load_manifest()).resolve(
            "", "llm").path
        llm = LlamaLlm(path, n_threads=threads, n_ctx=2048)
        report["model"] = str(path)
        report["decision"] = decisions(rows, specs, llm)
    if as_json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"MCP tools, {len(rows)} {report['set']} phrasings")
    r = report["retrieval"]
    print(f"retrieval: recall@3 {r['recall_at_3']}, no-tool phrasings offered a tool "
          f"{r['no_tool_offered']}")
    if "decision" in report:
        d = report["decision"]
        print(f"decision: precision {d['precision']}, recall {d['recall']}, "
              f"argument accuracy {d['argument_accuracy']} ({d['calls']} calls)")
        for line in d["wrong"]:
            print(f"  {line}")
    return 0
