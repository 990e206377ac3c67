"""Hands-free barge-in on the real models, through a virtual sound card with an echo path.

The speaker leaks into the microphone (``echo_gain``) and the speexdsp echo canceller is
on, as on a laptop without headphones. The assistant's own voice must never interrupt it;
a real "wait, stop" must; an "okay" must only pause it. The "user" is Piper too, at a
different pace and a slightly higher pitch, so it is not the assistant's exact voice.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from desktop_agent.core.listening.bargein import Decision
from desktop_agent.core.turns.states import State
from tests.e2e.stuck import wait_or_explain

pytestmark = [pytest.mark.models, pytest.mark.slow]

ECHO_GAIN = 0.4
USER_GAIN = 0.8
QUESTION = "Tell me about the moon in a few sentences."


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


@pytest.fixture()
def runtime(qtbot: Any, models: Any) -> Any:
    from desktop_agent.audio.virtual import VirtualAudio
    from desktop_agent.compose.runtime import build_runtime
    from desktop_agent.core.settings import Settings

    settings = Settings().replace_field("interaction.mode", "hands_free")
    rt = build_runtime(settings, VirtualAudio(echo_gain=ECHO_GAIN, echo_delay_s=0.03),
                       echo_cancellation=True)
    rt.controller.start()
    qtbot.waitUntil(rt.controller.loaded, timeout=120_000)
    yield rt
    rt.shutdown()


@pytest.fixture(scope="module")
def user_voice(tts: Any) -> Any:
    """user_voice(text) -> 16 kHz audio of Piper at 1.15x pace, pitched up about 6 %."""
    from desktop_agent.audio.resample import resample

    def _say(text: str) -> Any:
        tts.set_speaking_rate(1.15)
        try:
            audio = np.concatenate([c.audio for c in tts.synthesize(text)])
        finally:
            tts.set_speaking_rate(1.0)
        # Reading the samples as if recorded faster raises the pitch (and the pace a little).
        shifted = resample(audio.astype(np.float32) / 32768, int(tts.sample_rate * 1.06), 16_000)
        return (USER_GAIN * shifted / max(1e-6, float(np.max(np.abs(shifted))))).astype(
            np.float32)

    return _say


def _ask(qtbot: Any, rt: Any, audio: Any) -> None:
    """Say the question hands-free and wait until the answer is playing."""
    c = rt.controller
    rt.backend.inject(audio)
    wait_or_explain(qtbot, c, lambda: c.machine.state is State.ASSISTANT_SPEAKING, 90)


def _causes(c: Any) -> list[tuple[State, str]]:
    return [(t.target, t.cause) for t in c.transitions]


def test_own_voice_through_the_echo_path_never_interrupts(qtbot: Any, runtime: Any,
                                                         speak: Any) -> None:
    c = runtime.controller
    _ask(qtbot, runtime, speak(QUESTION))
    wait_or_explain(qtbot, c, lambda: c.machine.state is State.LISTENING, 120)
    qtbot.wait(500)
    causes = _causes(c)
    assert (State.INTERRUPTED, "barge_in_voice") not in causes, causes
    assert causes[-1] == (State.LISTENING, "reply_done"), causes
    assert [t for t, _ in causes] == [State.USER_SPEAKING, State.PROCESSING,
                                      State.ASSISTANT_SPEAKING, State.LISTENING], causes
    assert all(v.decision is not Decision.INTERRUPT for v in c.barge_tracker.verdicts)
    speaker = runtime.backend.speaker_audio()
    voiced = np.flatnonzero(np.abs(speaker) > 1e-3)
    assert (voiced[-1] - voiced[0]) / 16_000 > 3.0, "the answer was too short to test echo"
    last = c.machine.history.messages[-1]
    assert last.role == "assistant" and not last.interrupted


def test_real_interruption_cuts_the_reply(qtbot: Any, runtime: Any, speak: Any,
                                          user_voice: Any) -> None:
    c = runtime.controller
    heard: list[Any] = []
    c.sig_heard.connect(heard.append)
    finals: list[str] = []
    c.sig_user_final.connect(lambda _t, text: finals.append(text))
    cut_in = user_voice("Wait, stop, tell me something else.")  # made now, not mid-reply
    _ask(qtbot, runtime, speak("Explain how a car engine works."))
    # About 2.5 s of the answer itself (a filler may have played first).
    wait_or_explain(qtbot, c, lambda: c.machine.reply_played_s >= 2.5
                    or c.machine.state is not State.ASSISTANT_SPEAKING, 60)
    assert c.machine.state is State.ASSISTANT_SPEAKING, "the answer ended too soon to cut"
    runtime.backend.inject(cut_in)
    wait_or_explain(qtbot, c, lambda: bool(heard), 10)
    assert (State.INTERRUPTED, "barge_in_voice") in _causes(c)
    verdict = c.barge_tracker.verdicts[-1]
    assert verdict.decision is Decision.INTERRUPT
    report = heard[-1]
    assert report.interrupted and report.heard_text and report.unheard_text
    assistant = [m for m in c.machine.history.messages if m.role == "assistant"]
    assert assistant[0].interrupted and assistant[0].content == report.heard_text
    # The interruption itself becomes the user's next turn.
    qtbot.waitUntil(lambda: len(finals) >= 2, timeout=60_000)
    assert {"something", "else"} <= set(_words(finals[1])), finals


def test_backchannel_only_pauses_the_reply(qtbot: Any, runtime: Any, speak: Any,
                                          user_voice: Any) -> None:
    c = runtime.controller
    okay = user_voice("Okay.")  # made now, not while the reply plays
    _ask(qtbot, runtime, speak(QUESTION))
    wait_or_explain(qtbot, c, lambda: c.machine.reply_played_s >= 2.0
                    or c.machine.state is not State.ASSISTANT_SPEAKING, 60)
    assert c.machine.state is State.ASSISTANT_SPEAKING, "the answer ended too soon"
    runtime.backend.inject(okay)
    qtbot.waitUntil(lambda: bool(c.barge_tracker.verdicts), timeout=10_000)
    assert c.barge_tracker.verdicts[-1].decision is Decision.RESUME, c.barge_tracker.verdicts
    assert c.machine.state is State.ASSISTANT_SPEAKING
    wait_or_explain(qtbot, c, lambda: c.machine.state is State.LISTENING, 120)
    causes = _causes(c)
    assert State.INTERRUPTED not in [t for t, _ in causes], causes
    assert causes[-1] == (State.LISTENING, "reply_done"), causes
    assert not c.machine.history.messages[-1].interrupted
