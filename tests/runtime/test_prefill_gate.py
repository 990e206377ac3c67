"""Only the newest queued prefill runs, and none once a run is queued (``PrefillGate``)."""

from __future__ import annotations

from typing import Any

from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.runtime.llm_worker import LlmWorker
from desktop_agent.runtime.payloads import PrefillGate, PrefillJob

HISTORY = (ChatMessage("system", "Be brief."),)


class _Engine:
    """Records the prompts it is asked to prefill (the worker's only use of it here)."""

    def __init__(self) -> None:
        self.prefilled: list[str] = []

    def prefill(self, messages: Any, tools: Any, user_prefix: str = "") -> int:
        self.prefilled.append(user_prefix)
        return 1


def _worker() -> tuple[LlmWorker, _Engine]:
    engine = _Engine()
    worker = LlmWorker(lambda: engine, ToolRegistry(), "Be brief.")
    worker.engine = engine  # type: ignore[assignment]
    return worker, engine


def test_a_prefill_overtaken_in_the_queue_is_skipped() -> None:
    worker, engine = _worker()
    gate = PrefillGate()
    queued = [PrefillJob(HISTORY, prefix, gate, gate.issue())
              for prefix in ("", "what is", "what is the capital")]
    for job in queued:  # delivered in order, after all three were queued
        worker.prefill(job)
    assert engine.prefilled == ["what is the capital"]


def test_a_queued_run_supersedes_every_prefill_before_it() -> None:
    worker, engine = _worker()
    gate = PrefillGate()
    job = PrefillJob(HISTORY, "what is", gate, gate.issue())
    gate.supersede()  # the turn's run was queued: it evaluates what it needs itself
    worker.prefill(job)
    assert engine.prefilled == []
    worker.prefill(PrefillJob(HISTORY, "next", gate, gate.issue()))  # the next turn's
    assert engine.prefilled == ["next"]


def test_a_prefill_without_a_gate_always_runs() -> None:
    worker, engine = _worker()
    worker.prefill(PrefillJob(HISTORY, "hel"))
    assert engine.prefilled == ["hel"]
