"""The app's LLM worker on the server engine: load, warm, prefill, stream, fail, cancel.

The worker is driven on a QThread of its own, as in the app; the "server" is a scripted
loopback one (the real llama-server is in tests/adapters/llm/test_llm_openai_real.py).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from desktop_agent.adapters.llm.llm_openai import OpenAiLlm
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns.events import LlmFinished, LlmStarted, LlmToken, StageFailed
from desktop_agent.core.turns.states import JobId
from desktop_agent.runtime.llm_worker import LlmWorker
from desktop_agent.runtime.payloads import LlmJob, PrefillJob
from desktop_agent.runtime.workers import start_worker
from tests.adapters.llm.llm_server_rig import free_port, scripted, stalls, streams, text_event

MESSAGES = (ChatMessage("system", "Be brief."), ChatMessage("user", "Hello there."))


def _start(qtbot: Any, url: str) -> tuple[LlmWorker, Any, list[Any], list[Any]]:
    worker = LlmWorker(lambda: OpenAiLlm(url, read_timeout_s=600), ToolRegistry(), "Be brief.")
    events: list[Any] = []
    states: list[Any] = []
    # Direct: the test calls the slot on its own thread; a queued delivery to the worker's
    # thread could still be pending when the thread stops (a lost LlmFinished).
    worker.sig_event_reported.connect(events.append, Qt.ConnectionType.DirectConnection)
    worker.sig_load_state_changed.connect(states.append, Qt.ConnectionType.DirectConnection)
    thread = start_worker(worker, "llm")
    try:
        qtbot.waitUntil(lambda: any(s.status == "ready" for s in states), timeout=10_000)
    except BaseException:
        _stop(thread)
        raise
    return worker, thread, events, states


def _stop(thread: Any) -> None:
    thread.quit()
    thread.wait(5000)


def _job(cancel: CancelToken | None = None, job: int = 1) -> LlmJob:
    return LlmJob(TurnId(1), JobId(job), MESSAGES, cancel or CancelToken(TurnId(1)))


def test_the_worker_streams_a_server_reply_as_turn_events(qtbot: Any) -> None:
    with scripted(streams([text_event("Hi"), text_event(" there.", "stop")])) as server:
        worker, thread, events, _ = _start(qtbot, server.url)
        try:
            worker.prefill(PrefillJob(MESSAGES[:1], "hel"))  # harmless: nothing is sent
            assert server.requests == []
            worker.run(_job())  # called directly: the slot's own code, on this thread
        finally:
            _stop(thread)
    kinds = [type(e) for e in events]
    assert kinds == [LlmStarted, LlmToken, LlmToken, LlmFinished]
    assert "".join(e.text for e in events if isinstance(e, LlmToken)) == "Hi there."


def test_a_server_that_is_down_fails_the_job_with_its_code(qtbot: Any) -> None:
    worker, thread, events, _ = _start(qtbot, f"http://127.0.0.1:{free_port()}/v1")
    try:
        worker.run(_job())
    finally:
        _stop(thread)
    failed = [e for e in events if isinstance(e, StageFailed)]
    assert len(failed) == 1 and failed[0].code == "server_unreachable"


def test_a_cancelled_job_ends_quietly_while_the_server_stalls(qtbot: Any) -> None:
    import threading

    cancel = CancelToken(TurnId(1))
    with scripted(stalls) as server:
        worker, thread, events, _ = _start(qtbot, server.url)
        try:
            runner = threading.Thread(target=worker.run, args=(_job(cancel),), daemon=True)
            runner.start()
            qtbot.waitUntil(lambda: bool(server.requests), timeout=30_000)
            cancel.cancel("barge-in")
            runner.join(30)
            assert not runner.is_alive()
            assert server.hung_up.wait(30)
        finally:
            _stop(thread)
    assert [type(e) for e in events] == [LlmStarted]  # no failure, no finish: cancelled
