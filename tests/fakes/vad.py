"""Fake voice-activity detectors and end-of-turn models (stand-ins for Silero and Smart Turn)."""

from __future__ import annotations

from typing import Any

import numpy as np


class FakeVad:
    """Never hears speech: an idle microphone for tests that only wire things up."""

    frame_samples = 512

    def speech_probability(self, frame: Any) -> float:
        return 0.0

    def reset(self) -> None:
        pass


class ScriptedVad:
    """Speech where the frame is loud (stands in for Silero, exact frame by frame)."""

    def speech_probability(self, frame: np.ndarray) -> float:
        return 0.9 if float(np.max(np.abs(frame))) > 0.005 else 0.0

    def reset(self) -> None:
        pass


class FakeDetector:
    """A TurnDetector that answers a fixed probability and remembers what it heard."""

    def __init__(self, probability: float) -> None:
        self.p = probability
        self.heard: list[int] = []

    def probability(self, audio: np.ndarray) -> float:
        self.heard.append(len(audio))
        return self.p


class LoudnessVad:
    """Speech exactly where the frame is loud (stands in for Silero)."""

    def speech_probability(self, frame: np.ndarray) -> float:
        return 0.9 if float(np.max(np.abs(frame))) > 0.005 else 0.05

    def reset(self) -> None:
        pass


class HesitantVad:
    """Scores every frame 0.45: a soft syllable, just under the usual threshold."""

    def speech_probability(self, frame: np.ndarray) -> float:
        return 0.45

    def reset(self) -> None:
        pass
