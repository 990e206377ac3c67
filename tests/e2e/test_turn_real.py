"""The whole cascade on the real models, through a virtual sound card (real-time clock).

Push-to-talk a question, let the long answer play, cut it off, and check that the history
holds exactly the words whose audio was played, and that the speaker really played them.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from desktop_agent.core.turns.states import State

pytestmark = [pytest.mark.models, pytest.mark.slow]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


@pytest.fixture()
def runtime(qtbot: Any, models: Any) -> Any:
    from desktop_agent.audio.virtual import VirtualAudio
    from desktop_agent.compose.runtime import build_runtime
    from desktop_agent.core.settings import Settings

    rt = build_runtime(Settings(), VirtualAudio(), echo_cancellation=False)
    rt.controller.start()
    qtbot.waitUntil(rt.controller.loaded, timeout=120_000)
    yield rt
    rt.shutdown()


def _say(qtbot: Any, rt: Any, audio: Any) -> None:
    c = rt.controller
    c.ptt_press()
    start = rt.backend.inject(audio)
    qtbot.waitUntil(lambda: rt.backend.samples > start + len(audio) + 1600, timeout=20_000)
    c.ptt_release()


def test_barge_in_keeps_only_the_heard_words(qtbot: Any, runtime: Any, speak: Any,
                                             asr: Any) -> None:
    c = runtime.controller
    heard: list[Any] = []
    c.sig_heard.connect(heard.append)
    _say(qtbot, runtime, speak("Explain how a car engine works."))
    qtbot.waitUntil(lambda: c.machine.state is State.ASSISTANT_SPEAKING, timeout=60_000)
    # Let about two and a half seconds of the answer play (counted in played samples, not
    # wall time: on a busy machine the speaker waits between chunks).
    qtbot.waitUntil(lambda: c.machine.reply_played_s >= 2.5
                    or c.machine.state is not State.ASSISTANT_SPEAKING, timeout=60_000)
    assert c.machine.state is State.ASSISTANT_SPEAKING, "the answer ended too soon to cut"
    played_before = len(runtime.backend.speaker_audio())
    c.ptt_press()
    qtbot.waitUntil(lambda: bool(heard), timeout=5_000)
    c.ptt_release()
    qtbot.waitUntil(lambda: c.machine.state is State.LISTENING, timeout=10_000)

    report = heard[-1]
    assert report.interrupted and report.heard_text and report.unheard_text
    last = c.machine.history.messages[-1]
    assert last.role == "assistant" and last.interrupted
    assert last.content == report.heard_text
    assert report.unheard_text not in " ".join(m.content for m in c.machine.history.messages)
    assert 1.5 < report.cut_at_s < 4.5

    # What the speaker really played, transcribed, is the heard text (give or take the
    # word being spoken at the cut).
    speaker = runtime.backend.speaker_audio()
    voiced = np.flatnonzero(np.abs(speaker) > 1e-3)
    assert len(voiced), "nothing was played"
    played = speaker[voiced[0]:voiced[-1] + 1]
    # Wall time from first to last voiced sample: at least what was counted as played (it
    # may be longer: a busy machine leaves silent gaps between chunks).
    assert len(played) / 16_000 >= report.cut_at_s - 0.1
    # Silent within one block of the press, give or take a scheduler stall on a busy machine.
    assert voiced[-1] < played_before + 0.25 * 16_000
    got = _words(asr.transcribe(played).text)
    # A reply slow to start opens with the filler ("One moment."): played, never in the
    # history (TurnPolicy.filler_after_s; on a busy machine the first token is often late).
    filler = _words(c.machine.policy.filler_text)
    if got[:len(filler)] == filler:
        got = got[len(filler):]
    want = _words(report.heard_text)
    common = sum(1 for a, b in zip(got, want, strict=False) if a == b)
    # Give or take the words at the cut: the word being spoken counts as heard from half
    # its samples, and Whisper drops a short fragment that follows the pause between two
    # clauses (the opening clause is two or three words, so the cut often lands there).
    assert common >= len(want) - 3, (got, want)
    assert len(got) <= len(want) + 2, (got, want)


def test_plain_turn_and_spans(qtbot: Any, runtime: Any, speak: Any) -> None:
    c = runtime.controller
    spans: list[Any] = []
    c.sig_span.connect(spans.append)
    finals: list[str] = []
    c.sig_user_final.connect(lambda _t, text: finals.append(text))
    _say(qtbot, runtime, speak("What is the capital of Italy?"))
    qtbot.waitUntil(lambda: bool(spans), timeout=60_000)
    assert _words(finals[0]) == ["what", "is", "the", "capital", "of", "italy"]
    assert "rome" in c.machine.history.messages[-1].content.lower()
    targets = [t.target for t in c.transitions]
    assert targets == [State.USER_SPEAKING, State.PROCESSING, State.ASSISTANT_SPEAKING,
                       State.LISTENING]
    marks = spans[0].marks
    # A slow first token (a busy machine) has the filler spoken first: its chunk and audio
    # then come before the model's first token, and the answer's order is checked apart.
    orders = ([["endpoint", "asr_final", "filler", "first_chunk", "first_audio"],
               ["endpoint", "asr_final", "filler", "llm_first_token"]] if "filler" in marks
              else [["endpoint", "asr_final", "llm_first_token", "first_chunk", "first_audio"]])
    for order in orders:
        assert [marks[m] for m in order] == sorted(marks[m] for m in order), (order, marks)


def test_repeat_and_rephrase(qtbot: Any, runtime: Any, speak: Any) -> None:
    from desktop_agent.runtime.extras import REPHRASE_REQUEST

    c = runtime.controller
    spans: list[Any] = []
    c.sig_span.connect(spans.append)
    _say(qtbot, runtime, speak("What is the capital of Italy?"))
    qtbot.waitUntil(lambda: len(spans) == 1, timeout=60_000)
    before = list(c.machine.history.messages)
    heard_at = len(runtime.backend.speaker_audio())

    c.repeat_last_answer()  # spoken again, outside the turn machine: history unchanged
    qtbot.waitUntil(lambda: np.abs(runtime.backend.speaker_audio()[heard_at:]).max(initial=0)
                    > 0.05, timeout=10_000)
    assert c.machine.state is State.LISTENING
    assert list(c.machine.history.messages) == before

    qtbot.waitUntil(lambda: runtime.backend.player.queued_s == 0.0,  # the repetition ends
                    timeout=30_000)
    c.rephrase_last_answer()  # a typed turn through the real machine
    qtbot.waitUntil(lambda: len(spans) == 2, timeout=60_000)
    users = [m.content for m in c.machine.history.messages if m.role == "user"]
    assert users[-1] == REPHRASE_REQUEST
    assert c.machine.history.messages[-1].role == "assistant"
