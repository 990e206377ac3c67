"""apply_settings: what changes live, and the restart notice for what cannot."""

from __future__ import annotations

import dataclasses
from typing import Any

from desktop_agent.core.settings import Settings
from tests.fakes.vad import FakeVad


def make_controller(rates: list[float] | None = None) -> Any:
    """A controller on idle fake workers and a virtual sound card that is not started."""
    from desktop_agent.audio.capture import CapturePipeline
    from desktop_agent.audio.virtual import VirtualAudio
    from desktop_agent.compose.controller import build_controller
    from desktop_agent.core.tools.registry import ToolRegistry
    from desktop_agent.runtime.llm_worker import LlmWorker
    from desktop_agent.runtime.worker_link import Engines
    from desktop_agent.runtime.workers import AsrWorker, ToolWorker, TtsWorker

    class Tts(TtsWorker):
        def run(self, job: Any) -> None:
            pass

        def set_rate(self, rate: float) -> None:
            if rates is not None:
                rates.append(rate)

    engines = Engines(asr=AsrWorker(lambda: None, lambda *_: False),
                      llm=LlmWorker(lambda: None, ToolRegistry(), ""), tts=Tts(lambda: None),
                      tool=ToolWorker(ToolRegistry()))
    return build_controller(engines=engines, backend=VirtualAudio(),
                            pipeline=CapturePipeline(FakeVad()), settings=Settings())


def test_live_and_restart_settings(qtbot: Any) -> None:
    rates: list[float] = []
    c = make_controller(rates)
    notices: list[Any] = []
    c.sig_error.connect(notices.append)
    base = Settings()
    faster = dataclasses.replace(
        base, voice=dataclasses.replace(base.voice, speaking_rate=1.3),
        interaction=dataclasses.replace(base.interaction, mode="hands_free"),
        endpointing=dataclasses.replace(base.endpointing, min_silence_s=0.2, max_silence_s=1.0),
        barge_in=dataclasses.replace(base.barge_in, sensitivity=1.0))
    onset_before = c.pipeline.playback_onset_s
    c.apply_settings(faster)
    assert c.mode == "hands_free" and rates == [1.3] and notices == []
    assert c.pipeline.playback_onset_s < onset_before  # more sensitive: shorter onsets pause
    assert c.recorder.endpointer.silence_needed_s("I want to go to the") == 1.0  # clamped
    c.apply_settings(dataclasses.replace(faster, models=dataclasses.replace(
        faster.models, llm="smollm2-135m-instruct")))
    assert [n.code for n in notices] == ["restart_needed"] and "models" in notices[0].message
    c.driver.close()


def test_the_end_of_turn_model_runs_only_hands_free(qtbot: Any) -> None:
    c = make_controller()
    assert c.mode == "push_to_talk" and not c.pipeline.turn_model_on  # the key ends turns
    base = Settings()
    c.apply_settings(dataclasses.replace(
        base, interaction=dataclasses.replace(base.interaction, mode="hands_free")))
    assert c.pipeline.turn_model_on
    c.set_mode("push_to_talk")
    assert not c.pipeline.turn_model_on


def test_a_loaded_llm_counts_history_and_prefills_between_turns(qtbot: Any) -> None:
    from desktop_agent.core.cancel import TurnId
    from desktop_agent.core.turns.states import State, Transition
    from desktop_agent.runtime.payloads import LoadState

    class Llm:
        def __init__(self) -> None:
            self.prefilled: list[tuple[Any, ...]] = []
            self.prefixes: list[str] = []
            self.counted: list[str] = []

        def prefill(self, messages: Any, tools: Any = (), user_prefix: str = "") -> int:
            self.prefilled.append(tuple(messages))
            self.prefixes.append(user_prefix)
            return 0

        def count_tokens(self, text: str) -> int:
            self.counted.append(text)
            return 1

    c = make_controller()
    llm = c.link.engines.llm.engine = Llm()
    c.link.prefill_llm(c.machine.history.prompt(()))
    assert llm.prefilled == []  # not loaded yet: nothing is queued
    c.link._on_worker_sig_load_state_changed(LoadState("llm", "ready"))
    assert [[m.role for m in p] for p in llm.prefilled] == [["system"]]
    c.machine.history.record_turn("hello", assistant_text="Hi there.")
    c.machine.history.prompt(())
    assert "hello" in llm.counted  # the model's tokenizer counts the history now
    c._on_transition(Transition(TurnId(1), State.ASSISTANT_SPEAKING, State.LISTENING,
                                "reply_done", 1.0))
    assert [m.content for m in llm.prefilled[-1]][1:] == ["hello", "Hi there."]
    assert llm.prefixes == ["", ""]
    # While the user speaks, each partial transcript is read ahead.
    from desktop_agent.core.turns import events as ev
    from desktop_agent.core.turns.states import JobId

    c.ptt_press()
    assert c.machine.state is State.USER_SPEAKING
    c.feed(ev.AsrPartial(turn_id=c.machine.turn_id, job=JobId(1), text="What is the",
                          stable=False, trailing_silence_s=0.0, at_s=2.0))
    assert llm.prefixes[-1] == "What is the"
    from PySide6.QtCore import QTimer

    assert any(t.isActive() for t in c.findChildren(QTimer))  # the recording's own
    c.shutdown()
    # None left running: the controller may be freed later by a garbage collection on
    # another thread, and a running timer of a freed object fires into freed memory.
    assert not any(t.isActive() for t in c.findChildren(QTimer))


def test_the_listening_cue_follows_the_setting(qtbot: Any) -> None:
    c = make_controller()
    played: list[str] = []
    c.driver.play_cue = played.append
    c.play_cue("start")
    c.play_cue("stop")
    c.play_cue("bogus")  # not a cue: nothing
    base = Settings()
    c.apply_settings(dataclasses.replace(
        base, shortcuts=dataclasses.replace(base.shortcuts, cues=False)))
    c.play_cue("start")
    assert played == ["start", "stop"]
    c.driver.close()
