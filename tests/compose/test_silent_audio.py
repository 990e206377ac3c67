"""The sound card of an app that could not open one (compose.desktop._silent_audio).

It runs as long as the app does, so it must stay cheap and must not grow: a 50 ms clock
instead of 10 ms, digital silence the VAD skips, and no log of what was played (the
benchmark's ``speaker_log`` grew by 64 KB a second in a window left open without sound).
"""

from __future__ import annotations

import numpy as np

from desktop_agent.audio.virtual import VirtualAudio
from desktop_agent.compose.desktop import _silent_audio
from desktop_agent.core.cancel import TurnId


def _blocks(audio: VirtualAudio, samples: int) -> list[tuple[np.ndarray, np.ndarray]]:
    got: list[tuple[np.ndarray, np.ndarray]] = []
    while sum(len(m) for m, _ in got) < samples:
        block = audio.read(timeout_s=5.0)
        assert block is not None, "the virtual clock stopped ticking"
        got.append(block)
    return got


def test_the_silent_card_ticks_slowly_in_digital_silence_and_keeps_no_log() -> None:
    audio = _silent_audio()
    audio.start()
    try:
        tone = (0.3 * np.sin(np.arange(8000) * 0.1) * 32767).astype(np.int16)
        assert audio.player.enqueue(TurnId(1), tone, audio.rate, timeout_s=5.0)
        blocks = _blocks(audio, audio.rate)  # one second of its clock
        played = [far for _, far in blocks]
    finally:
        audio.stop()
    assert {len(mic) for mic, _ in blocks} == {800}  # 50 ms a tick: 20 wake-ups a second
    assert all(not mic.any() for mic, _ in blocks)  # exact zeros: no noise to run the VAD on
    assert max(float(np.abs(far).max()) for far in played) > 0.1  # the reply did play
    assert audio.speaker_log == []


def test_the_test_card_still_logs_what_it_played() -> None:
    audio = VirtualAudio()
    audio.start()
    try:
        _blocks(audio, 1600)
    finally:
        audio.stop()
    assert audio.speaker_log and len(audio.speaker_log[0]) == 160
