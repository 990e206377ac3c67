"""Tells the user's voice from what the echo canceller left of the speaker.

Silero hears speech at any level: the faint residual echo that speexdsp leaves (all of
it in the first second, while its filter learns the room; then -20 to -40 dB) is speech
to it, and the assistant would interrupt itself. So while the speaker plays (or played
within ``tail_s``), a VAD frame may count as speech only when the cleaned signal stands
``margin_db`` above the residual expected from the speaker's level: the residual-to-far
ratio, learned from the frames judged echo. It starts at ``initial_ratio_db`` (assume
the canceller removes nothing) and follows the canceller as it converges, so the mic is
deaf to the speaker, never to a user louder than what is left of it.

Runs on: the capture worker thread (with the pipeline that owns it).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EchoGateSettings:
    """Thresholds of :class:`EchoGate`."""

    far_active_db: float = -50.0
    """Speaker level, dBFS, above which echo is expected."""
    tail_s: float = 0.25
    """Seconds after a far-end block during which its echo may still arrive."""
    margin_db: float = 6.0
    """How far above the expected residual the cleaned signal must be to be the user."""
    initial_ratio_db: float = 0.0
    """Residual-to-far ratio assumed before the canceller has learned anything, dB."""
    ratio_smoothing: float = 0.08
    """Weight of each echo frame in the learned ratio (about 0.4 s at 32 ms frames)."""


def power_db(power: float) -> float:
    """Mean-square power to dBFS (-120 for silence)."""
    return 10 * math.log10(power) if power > 1e-12 else -120.0


class EchoGate:
    """Judges VAD frames while the speaker plays: the user's voice, or residual echo."""

    def __init__(self, settings: EchoGateSettings | None = None) -> None:
        self.settings = settings or EchoGateSettings()
        self.ratio_db = self.settings.initial_ratio_db
        """Learned residual-to-far ratio, dB (0: the canceller removes nothing yet)."""
        self._far: deque[tuple[float, float]] = deque()  # (duration s, power) per block
        self._far_s = 0.0
        self.gated_frames = 0
        """VAD frames judged echo so far (for the benchmark and the log)."""

    def far_block(self, seconds: float, power: float) -> None:
        """The speaker played a block of ``seconds`` at mean-square ``power``."""
        self._far.append((seconds, power))
        self._far_s += seconds
        while self._far and self._far_s - self._far[0][0] >= self.settings.tail_s:
            self._far_s -= self._far.popleft()[0]

    def far_db(self) -> float:
        """The loudest recent far-end block, dBFS (its echo may still be arriving)."""
        return power_db(max((p for _, p in self._far), default=0.0))

    def is_echo(self, cleaned_power: float) -> bool:
        """Whether a cleaned VAD frame of mean-square ``cleaned_power`` is only echo."""
        s = self.settings
        far_db = self.far_db()
        if far_db < s.far_active_db:
            return False
        ratio = power_db(cleaned_power) - far_db
        if ratio >= self.ratio_db + s.margin_db:
            return False  # well above what the canceller leaves: someone is talking
        self.ratio_db += s.ratio_smoothing * (ratio - self.ratio_db)
        self.gated_frames += 1
        return True

    def reset(self) -> None:
        """The canceller was reset: it must learn the room again."""
        self.ratio_db = self.settings.initial_ratio_db
        self._far.clear()
        self._far_s = 0.0
