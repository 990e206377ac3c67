"""bench soak: its fault proxies and report (fast), and a short real soak (PulseAudio, models).

The short soak runs every kind of turn once (13 turns: a clean one, nine engine faults, two
barge-ins and a device loss) through the real runtime on a private PulseAudio daemon, with
the 135M test LLM and short stage timeouts, and asserts what is correctness, not timing:
no turn stuck, nothing crashed. (Overruns, a reply slower than its audio, are printed: on
a starved machine an LLM may crawl, and that is timing.)
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.errors import AgentError, LlmError
from desktop_agent.core.ports import LlmDelta, ToolCall
from desktop_agent.devtools import soak_faults
from desktop_agent.devtools.bench_soak import summarize
from desktop_agent.devtools.soak_turns import FAULTS, plan, turn_record

SOAK_LLM = "smollm2-135m-instruct"


class _Llm:
    def stream_chat(self, messages: Any, cancel: Any = None, tools: Any = (),
                    max_tokens: int = 256) -> Any:
        return iter([LlmDelta(text=w) for w in ("One ", "two ", "three ", "four ", "five.")])

    def warm(self, prompt: str, tools: Any = ()) -> None:
        self.warmed = prompt


def test_a_fault_is_injected_once_then_calls_pass_through() -> None:
    switch = soak_faults.FaultSwitch()
    llm = soak_faults.FaultyLlm(_Llm(), switch)
    llm.warm("system")  # everything else passes through the proxy
    assert llm.inner.warmed == "system"
    switch.arm("llm_error")
    with pytest.raises(LlmError):
        llm.stream_chat([])
    assert "".join(d.text for d in llm.stream_chat([])) == "One two three four five."
    switch.arm("llm_empty")
    assert list(llm.stream_chat([])) == []
    assert switch.injected == {"llm_error": 1, "llm_empty": 1}


def test_a_hang_ends_when_the_job_is_cancelled_and_a_stall_stops_mid_answer() -> None:
    switch = soak_faults.FaultSwitch()
    switch.hang_s["llm"] = 30.0
    llm = soak_faults.FaultyLlm(_Llm(), switch)
    switch.arm("llm_stall")
    cancel = CancelToken(TurnId(1))
    stream = llm.stream_chat([], cancel)
    got = [next(stream).text for _ in range(4)]  # the first words come
    assert got == ["One ", "two ", "three ", "four "]
    threading.Timer(0.2, cancel.cancel, ("test",)).start()
    t0 = time.monotonic()
    assert list(stream) == []  # then nothing, until the job is cancelled
    assert time.monotonic() - t0 < 10.0


def test_a_tool_fault_raises_past_the_registrys_guard() -> None:
    class _Tools:
        def answer(self, call: ToolCall) -> tuple[str, bool]:
            return "It is noon.", False

    switch = soak_faults.FaultSwitch()
    tools = soak_faults.FaultyTools(_Tools(), switch)
    switch.arm("tool_error")
    with pytest.raises(AgentError):
        tools.answer(ToolCall("c1", "get_time", {}))
    assert tools.answer(ToolCall("c2", "get_time", {})) == ("It is noon.", False)


def test_the_plan_has_every_fault_first_and_is_the_same_for_a_seed() -> None:
    first = plan(len(FAULTS), seed=5)
    assert sorted(k for k, _s, _q in first) == sorted(FAULTS)
    assert plan(40, seed=5) == plan(40, seed=5)
    assert plan(40, seed=5)[:len(FAULTS)] == first
    assert all(spoken for kind, spoken, _q in plan(40, seed=5)
               if kind in ("barge_in_voice", "device_loss"))


def _transition(source: str, target: str, cause: str) -> Any:
    from desktop_agent.core.turns.states import State, Transition

    return Transition(TurnId(1), State[source], State[target], cause, 0.0)


def test_a_turn_past_its_deadline_is_stuck_and_a_long_silent_reply_overruns() -> None:
    from desktop_agent.core.turns.policy import TurnPolicy

    policy = TurnPolicy()
    trans = [(0.0, _transition("LISTENING", "USER_SPEAKING", "ptt_pressed")),
             (0.1, _transition("USER_SPEAKING", "PROCESSING", "ptt_released")),
             (1.0, _transition("PROCESSING", "ASSISTANT_SPEAKING", "playback_started")),
             (21.0, _transition("ASSISTANT_SPEAKING", "LISTENING", "reply_done"))]
    ok = turn_record(0, "none", False, "Name a primary colour.", trans, (0.0, 0.1, 21.0),
                     audio_s=19.0, outage=0.0, back=True, policy=policy, fillers=0,
                     stall_s=10.0)
    assert not ok["stuck"] and not ok["overrun"] and ok["ended_by"] == "reply_done"
    silent = turn_record(0, "none", False, "Name a primary colour.", trans, (0.0, 0.1, 21.0),
                         audio_s=2.0, outage=0.0, back=True, policy=policy, fillers=0,
                         stall_s=10.0)
    assert silent["overrun"] and not silent["stuck"]  # 20 s speaking for 2 s of audio
    late = turn_record(0, "none", False, "Name a primary colour.", trans, (0.0, 0.1, 60.0),
                       audio_s=2.0, outage=0.0, back=True, policy=policy, fillers=0,
                       stall_s=10.0)
    assert late["stuck"]  # 60 s for 2 s of audio: more than the first-token timeout + margin
    never = turn_record(0, "none", False, "Name a primary colour.", trans[:3], (0.0, 0.1, 5.0),
                        audio_s=2.0, outage=0.0, back=False, policy=policy, fillers=0,
                        stall_s=10.0)
    assert never["stuck"]


def test_the_report_counts_stuck_turns_crashes_and_a_dead_child() -> None:
    def turn(i: int, **kw: Any) -> dict[str, Any]:
        row = {"turn": i, "fault": "none", "spoken": False, "ended_by": "reply_done",
               "stuck": False, "overrun": False, "exceptions": [], "threads_alive": True,
               "first_audio_ms": 100.0 * (i + 1)}
        row.update(kw)
        return row

    lines = [turn(0), turn(1, stuck=True, fault="llm_hang"),
             turn(2, exceptions=["sys.excepthook: boom"]), turn(3, threads_alive=False),
             {"summary": True, "rss_start_mb": 800.0, "rss_end_mb": 810.0,
              "injected": {"llm_hang": 1}}]
    report = summarize(lines, child_status=0)
    assert (report["turns"], report["stuck_turns"], report["crashes"]) == (4, 1, 2)
    assert report["rss_end_mb"] - report["rss_start_mb"] == 10.0
    assert report["p50_first_audio_ms"] == 250.0
    assert report["faults"] == {"none": 3, "llm_hang": 1}
    assert summarize(lines, child_status=-11)["crashes"] == 3  # the app's process died


@pytest.mark.models
@pytest.mark.pulse
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_short_soak_every_fault_no_stuck_turn_no_crash(models: Any) -> None:
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest
    from desktop_agent.core.errors import ModelError
    from desktop_agent.devtools.bench_soak import run_soak
    from tests.needs import unavailable

    try:
        ModelResolver(load_manifest()).resolve(SOAK_LLM, "llm")
    except ModelError as exc:
        unavailable(f"the {SOAK_LLM} test LLM", exc.describe())
    try:
        report = run_soak(turns=len(FAULTS), seed=7, llm=SOAK_LLM, max_tokens=24,
                          quick_timeouts=True, timeout_s=840)
    except AgentError as exc:
        if exc.code == "pulse_missing":
            unavailable("PulseAudio", exc.describe())
        raise
    print({k: v for k, v in report.items() if k != "details"})
    assert report["turns"] == len(FAULTS), report
    assert set(report["faults"]) == set(FAULTS), report["faults"]
    assert report["stuck_turns"] == 0, report["details"]
    assert report["crashes"] == 0, report["details"]
    # Every engine fault reached its engine (a fault that never fired tested nothing).
    assert set(report["injected"]) == set(soak_faults.ENGINE_FAULTS), report["injected"]
    # Python's object arenas are read in the child (sys._debugmallocstats caught from fd 2)
    assert all(m["py_arenas"] > 0 for m in report["memory_first_last"]), report

