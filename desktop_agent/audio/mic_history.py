"""The cleaned microphone audio and its VAD probabilities, addressed by absolute sample index.

The capture pipeline (capture.py) appends each cleaned block and the probability of each
VAD frame; a recording is cut from any past instant (push-to-talk pre-roll, hands-free
onset), and the barge-in tracker reads how much of a span was speech.
"""

from __future__ import annotations

import threading

import numpy as np
import numpy.typing as npt

from desktop_agent.core.ports import ASR_SAMPLE_RATE

VAD_FRAME = 512
"""Silero's frame at 16 kHz: 32 ms."""


class MicHistory:
    """The last ``seconds`` of cleaned mic audio and VAD probabilities, by absolute index."""

    def __init__(self, seconds: float = 120.0) -> None:
        self.capacity = int(seconds * ASR_SAMPLE_RATE)
        self._audio = np.zeros(self.capacity, dtype=np.float32)
        self._probs = np.zeros(self.capacity // VAD_FRAME + 1, dtype=np.float32)
        self.end = 0
        """Absolute index one past the newest sample."""
        self.judged_end = 0
        """Absolute index one past the newest sample the VAD has judged. Samples are appended
        before the VAD reads them (and a partial frame waits for the next block), so
        ``last_speech_between`` knows nothing past this index yet."""
        self._lock = threading.Lock()  # the capture thread writes, the GUI thread slices

    def append(self, samples: npt.NDArray[np.float32]) -> None:
        """Add cleaned samples (any length)."""
        with self._lock:
            self._append(samples)

    def _append(self, samples: npt.NDArray[np.float32]) -> None:
        n = len(samples)
        if n >= self.capacity:
            samples, n = samples[-self.capacity:], self.capacity
            self.end += len(samples) - n
        start = self.end % self.capacity
        first = min(n, self.capacity - start)
        self._audio[start:start + first] = samples[:first]
        self._audio[:n - first] = samples[first:]
        self.end += n

    def set_prob(self, frame_end: int, prob: float) -> None:
        """Record the VAD probability of the frame ending at absolute index ``frame_end``."""
        self._probs[(frame_end // VAD_FRAME) % len(self._probs)] = prob
        self.judged_end = max(self.judged_end, frame_end)

    @property
    def start(self) -> int:
        """Oldest absolute index still held."""
        return max(0, self.end - self.capacity)

    def slice(self, start: int, stop: int) -> npt.NDArray[np.float32]:
        """Samples [start, stop) clipped to what is held."""
        with self._lock:
            start, stop = max(start, self.start), min(stop, self.end)
            if stop <= start:
                return np.zeros(0, dtype=np.float32)
            idx = np.arange(start, stop) % self.capacity
            return self._audio[idx].copy()

    def last_speech_between(self, start: int, stop: int, threshold: float = 0.5) -> int | None:
        """End index of the newest VAD frame in [start, stop) judged speech (None if none)."""
        start, stop = max(start, self.start), min(stop, self.judged_end)
        for frame in range(stop // VAD_FRAME, start // VAD_FRAME, -1):
            if self._probs[frame % len(self._probs)] >= threshold:
                return frame * VAD_FRAME
        return None

    def speech_ratio(self, start: int, stop: int, threshold: float = 0.5) -> float:
        """Fraction of VAD frames in [start, stop) at or above ``threshold``."""
        start, stop = max(start, self.start), min(stop, self.end)
        frames = range(start // VAD_FRAME + 1, stop // VAD_FRAME + 1)
        if not frames:
            return 0.0
        probs = self._probs[[f % len(self._probs) for f in frames]]
        return float(np.mean(probs >= threshold))
