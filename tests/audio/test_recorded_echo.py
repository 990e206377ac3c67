"""A real recording of the assistant's own voice coming back, replayed through the pipeline.

``tests/data/loopback_echo_drift.npz`` holds 9 s of a hands-free reply through PulseAudio's
loopback (a capture trace, ``DESKTOP_AGENT_CAPTURE_TRACE``): the raw microphone and the
far-end reference the canceller got, 16 kHz int16, no one talking. The loopback resamples
to keep its latency, so the echo drifts by about 0.2 ms a second; around 7.5-9 s speexdsp
falls behind (ERLE drops to ~5 dB) and the residual is as loud as speech. Before the
coherence rule the app paused and then cut its own reply there ("That's also correct.").
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from desktop_agent.audio.capture import CapturePipeline
from desktop_agent.core.listening.segmenter import SegmentEvent

pytestmark = pytest.mark.models

DATA = Path(__file__).resolve().parents[1] / "data" / "loopback_echo_drift.npz"


def _onsets(coherence_threshold: float) -> tuple[list[float], CapturePipeline]:
    from desktop_agent.adapters.listening.speex import SpeexEchoCanceller
    from desktop_agent.adapters.listening.vad_silero import SileroVad

    data = np.load(DATA)
    near = data["near"].astype(np.float32) / 32768
    far = data["far"].astype(np.float32) / 32768
    pipe = CapturePipeline(SileroVad(), SpeexEchoCanceller())
    pipe.coherence.threshold = coherence_threshold
    pipe.set_playback(True)  # the assistant is speaking all along
    onsets = []
    for i in range(0, len(near) - 160, 160):
        for event in pipe.process(near[i:i + 160], far[i:i + 160]):
            if event.kind is SegmentEvent.SPEECH_STARTED:
                onsets.append(round(i / 16_000, 2))
    return onsets, pipe


def test_the_recorded_echo_never_starts_speech() -> None:
    onsets, pipe = _onsets(coherence_threshold=0.8)
    assert onsets == []
    assert pipe.coherence.coherent_frames > 10  # the rule did the work, not luck


def test_without_the_coherence_rule_the_recording_would_interrupt() -> None:
    # Keeps the recording honest: it must still contain the burst the rule is for.
    onsets, _ = _onsets(coherence_threshold=2.0)
    assert onsets, "the recording no longer shows the failure it guards against"
