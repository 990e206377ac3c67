"""The LLM watchdog in WorkerLink: a stalled answer fails, a crawling one ends where it is.

Found by bench soak: the machine's timer guards only the first token, so an LLM that stopped
mid-answer held the reply silent in ASSISTANT_SPEAKING, and one starved to a token every
couple of seconds kept a 7 s reply speaking for a minute.
"""

from __future__ import annotations

import time
from typing import Any

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import Stage
from desktop_agent.runtime.jobs import JobTable
from desktop_agent.runtime.llm_worker import LlmWorker
from desktop_agent.runtime.worker_link import Engines, WorkerLink
from desktop_agent.runtime.workers import AsrWorker, ToolWorker, TtsWorker


def _link(qtbot: Any) -> tuple[WorkerLink, JobTable, list[Any], list[Any]]:
    fed: list[Any] = []
    jobs = JobTable(fed.append)
    engines = Engines(asr=AsrWorker(lambda: None, lambda *a: False),  # type: ignore[arg-type]
                      llm=LlmWorker(lambda: None, ToolRegistry([]), ""),  # type: ignore[arg-type]
                      tts=TtsWorker(lambda: None),  # type: ignore[arg-type]
                      tool=ToolWorker(ToolRegistry([])))
    queued: list[Any] = []
    link = WorkerLink(engines, feed=fed.append, jobs=jobs, on_partial=lambda r: None,
                      keep_audio=lambda c: None, show_loading=lambda p: None,
                      show_error=lambda n: None)
    link.sig_llm_job_queued.disconnect()  # the test plays the LLM worker
    link.sig_llm_job_queued.connect(queued.append)
    return link, jobs, fed, queued


def _start(link: WorkerLink, job: int) -> None:
    link.start_llm(cmd.StartLlm(turn_id=TurnId(1), job=job, messages=()))


def test_an_answer_that_stops_fails_its_job(qtbot: Any) -> None:
    link, jobs, fed, queued = _link(qtbot)
    link.llm_stall_s = 0.3
    _start(link, 5)
    link._on_worker_sig_event_reported(ev.LlmStarted(turn_id=TurnId(1), at_s=0.0, job=5))
    qtbot.wait(700)
    assert not any(isinstance(e, ev.StageFailed) for e in fed)  # no output yet: the machine's
    link._on_worker_sig_event_reported(ev.LlmToken(turn_id=TurnId(1), at_s=0.0, job=5,
                                                   text="The moon"))
    qtbot.waitUntil(lambda: any(isinstance(e, ev.StageFailed) for e in fed), timeout=3000)
    failed = next(e for e in fed if isinstance(e, ev.StageFailed))
    assert (failed.job, failed.stage, failed.code) == (5, Stage.LLM, "llm_stalled")
    assert queued[0].cancel.cancelled  # the worker stops at its next token
    qtbot.waitUntil(lambda: not link._stall_timer.isActive(), timeout=2000)


def test_an_answer_that_crawls_ends_with_what_it_said(qtbot: Any) -> None:
    link, jobs, fed, queued = _link(qtbot)
    link.llm_stall_s, link.llm_reply_budget_s = 5.0, 0.6
    _start(link, 7)
    end = time.monotonic() + 3.0
    while time.monotonic() < end and not any(isinstance(e, ev.LlmFinished) for e in fed):
        link._on_worker_sig_event_reported(ev.LlmToken(turn_id=TurnId(1), at_s=0.0, job=7,
                                                       text="word "))
        qtbot.wait(100)  # a token every 0.1 s: never a stall, but past the budget
    finished = [e for e in fed if isinstance(e, ev.LlmFinished)]
    assert len(finished) == 1 and finished[0].job == 7
    assert queued[0].cancel.cancelled
    assert not any(isinstance(e, ev.StageFailed) for e in fed)


def test_a_job_that_ends_or_is_cancelled_is_forgotten_and_the_timer_sleeps(qtbot: Any) -> None:
    link, jobs, fed, _ = _link(qtbot)
    assert not link._stall_timer.isActive()  # idle: no wake-ups
    _start(link, 8)
    _start(link, 9)
    assert link._stall_timer.isActive()
    link._on_worker_sig_event_reported(ev.LlmFinished(turn_id=TurnId(1), at_s=0.0, job=8))
    jobs.cancel(9, "barge-in")
    qtbot.waitUntil(lambda: not link._stall_timer.isActive(), timeout=3000)
    assert [type(e).__name__ for e in fed] == ["LlmFinished"]  # only what the worker said


def test_a_tool_path_that_raises_answers_with_the_failure_at_once(qtbot: Any) -> None:
    from desktop_agent.core.cancel import CancelToken
    from desktop_agent.core.errors import AgentError
    from desktop_agent.core.ports import ToolCall
    from desktop_agent.runtime.payloads import ToolJob

    class _Broken(ToolRegistry):
        def answer(self, call: ToolCall) -> tuple[str, bool]:
            raise AgentError("store_locked", "The store is locked.")

    worker = ToolWorker(_Broken([]))
    worker.load()
    got: list[Any] = []
    worker.sig_event_reported.connect(got.append)
    call = ToolCall("c1", "get_time", {})
    worker.run(ToolJob(TurnId(3), 11, call, CancelToken(TurnId(3))))  # no exception escapes
    assert len(got) == 1 and isinstance(got[0], ev.ToolResult)
    assert got[0].is_error and "store is locked" in got[0].content and got[0].job == 11


def test_a_job_cancelled_while_queued_never_reaches_the_engine(qtbot: Any) -> None:
    from desktop_agent.core.cancel import CancelToken
    from desktop_agent.runtime.payloads import LlmJob, TtsJob

    calls: list[str] = []

    class _Llm:
        def stream_chat(self, *a: Any, **k: Any) -> Any:
            calls.append("llm")
            return iter(())

        def warm(self, *a: Any) -> None:
            pass

    class _Tts:
        sample_rate = 22050

        def synthesize(self, text: str, cancel: Any = None) -> Any:
            calls.append("tts")
            return iter(())

    llm = LlmWorker(lambda: _Llm(), ToolRegistry([]), "")  # type: ignore[arg-type,return-value]
    tts = TtsWorker(lambda: _Tts())  # type: ignore[arg-type,return-value]
    llm.load()
    tts.load()
    got: list[Any] = []
    llm.sig_event_reported.connect(got.append)
    tts.sig_event_reported.connect(got.append)
    token = CancelToken(TurnId(2))
    token.cancel("overtaken")
    llm.run(LlmJob(TurnId(2), 4, (), token))
    tts.run(TtsJob(TurnId(2), 6, 0, "Hello there.", token))
    assert calls == [] and got == []
    live = CancelToken(TurnId(3))
    llm.run(LlmJob(TurnId(3), 8, (), live))
    assert calls == ["llm"]  # a live job does run


def test_a_tool_job_cancelled_while_queued_never_runs(qtbot: Any) -> None:
    from desktop_agent.core.cancel import CancelToken
    from desktop_agent.core.ports import ToolCall
    from desktop_agent.runtime.payloads import ToolJob

    ran: list[str] = []

    class _Counting(ToolRegistry):
        def answer(self, call: ToolCall) -> tuple[str, bool]:
            ran.append(call.name)
            return "done", False

    worker = ToolWorker(_Counting([]))
    worker.load()
    got: list[Any] = []
    worker.sig_event_reported.connect(got.append)
    late = CancelToken(TurnId(4))
    late.cancel("tool_timeout")  # the turn gave up while the job waited behind a slow tool
    call = ToolCall(name="set_volume", arguments={}, call_id="c1")
    worker.run(ToolJob(TurnId(4), 12, call, late))
    assert ran == [] and got == []
    worker.run(ToolJob(TurnId(5), 13, call, CancelToken(TurnId(5))))
    assert ran == ["set_volume"] and len(got) == 1
