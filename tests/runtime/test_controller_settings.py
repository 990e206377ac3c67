"""apply_settings: what changes live, and the restart notice for what cannot."""

from __future__ import annotations

import dataclasses
from typing import Any

from desktop_agent.core.settings import Settings


class FakeVad:
    frame_samples = 512

    def speech_probability(self, frame: Any) -> float:
        return 0.0

    def reset(self) -> None:
        pass


def make_controller(rates: list[float] | None = None) -> Any:
    """A controller on idle fake workers and a virtual sound card that is not started."""
    from desktop_agent.audio.capture import CapturePipeline
    from desktop_agent.audio.virtual import VirtualAudio
    from desktop_agent.core.tools import ToolRegistry
    from desktop_agent.runtime.controller import AgentController
    from desktop_agent.runtime.worker_link import Engines
    from desktop_agent.runtime.workers import AsrWorker, LlmWorker, ToolWorker, TtsWorker

    class Tts(TtsWorker):
        def run(self, job: Any) -> None:
            pass

        def set_rate(self, rate: float) -> None:
            if rates is not None:
                rates.append(rate)

    engines = Engines(asr=AsrWorker(lambda: None, lambda *_: False),
                      llm=LlmWorker(lambda: None, ToolRegistry(), ""), tts=Tts(lambda: None),
                      tool=ToolWorker(ToolRegistry()))
    return AgentController(engines, VirtualAudio(), CapturePipeline(FakeVad()), Settings())


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
