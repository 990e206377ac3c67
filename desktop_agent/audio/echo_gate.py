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

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True, slots=True)
class EchoGateSettings:
    """Thresholds of :class:`EchoGate`."""

    far_active_db: float = -50.0
    """Speaker level, dBFS, above which echo is expected."""
    tail_s: float = 0.25
    """Seconds after a far-end block during which its echo may still arrive."""
    margin_db: float = 6.0
    """How far above the expected residual the cleaned signal must be to be the user."""
    hold_margin_db: float = 2.0
    """The same, for a frame right after one that passed: hysteresis, so the decaying end
    of the user's first word is not cut off before the onset is confirmed."""
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

    def far_active(self) -> bool:
        """Whether the speaker played loud enough recently for its echo to matter."""
        return self.far_db() >= self.settings.far_active_db

    def _user_ratio_db(self, holding: bool, settling: bool) -> float:
        """Frame-to-speaker ratio (dB) from which a frame is someone talking: what the
        canceller leaves (as if nothing while ``settling``) plus the margin."""
        s = self.settings
        learnt = max(self.ratio_db, s.initial_ratio_db) if settling else self.ratio_db
        return learnt + (s.hold_margin_db if holding else s.margin_db)

    def above_residual(self, cleaned_power: float, holding: bool = False) -> bool:
        """Whether a frame is louder than what the canceller is known to leave (by the
        margin): someone may be talking. Learns nothing (``is_echo`` does)."""
        ratio = power_db(cleaned_power) - self.far_db()
        return ratio >= self._user_ratio_db(holding, settling=False)

    def is_echo(self, cleaned_power: float, holding: bool = False,
                settling: bool = False) -> bool:
        """Whether a cleaned VAD frame of mean-square ``cleaned_power`` is only echo.

        ``holding``: the previous frame passed as the user (``hold_margin_db`` applies).
        ``settling``: the echo reference was just placed anew and is being measured back
        to where the canceller learnt it (a few hundred milliseconds): until then the
        canceller may leave much more than it learnt to, so the frame is judged as if it
        removed nothing (``initial_ratio_db``), and it teaches the learnt ratio nothing.
        """
        s = self.settings
        far_db = self.far_db()
        if far_db < s.far_active_db:
            return False
        ratio = power_db(cleaned_power) - far_db
        if ratio >= self._user_ratio_db(holding, settling):
            return False  # well above what the canceller leaves: someone is talking
        if settling:
            return True
        self.ratio_db += s.ratio_smoothing * (ratio - self.ratio_db)
        self.gated_frames += 1
        return True

    def reset(self) -> None:
        """The canceller was reset: it must learn the room again."""
        self.ratio_db = self.settings.initial_ratio_db
        self._far.clear()
        self._far_s = 0.0


class EchoCoherence:
    """How much of the raw microphone is a delayed copy of what the speaker played.

    The canceller can fall behind the echo path (a sound server that resamples or
    underruns moves the echo by a fraction of a millisecond at a time, and speexdsp needs
    seconds to follow), and then its residual is as loud as a person. The raw mic still
    says what it is: a window that correlates at ``threshold`` or more with the far end at
    some lag in [``min_lag_s``, ``max_lag_s``] is at most ``1/threshold**2 - 1`` (0.56 at
    0.8, -2.5 dB) user against echo, so it is taken for echo. In a reverberant room no
    single lag explains the echo that well: the rule then stays silent and the power gate
    of :class:`EchoGate` decides alone.

    Runs on: the capture worker thread (with the pipeline that owns it).
    """

    def __init__(self, rate: int = 16_000, window_s: float = 0.128, min_lag_s: float = -0.05,
                 max_lag_s: float = 0.3, threshold: float = 0.8) -> None:
        self.window = int(window_s * rate)
        self.min_lag = int(min_lag_s * rate)
        self.max_lag = int(max_lag_s * rate)
        self.threshold = threshold
        self._cap = self.window + self.max_lag - min(self.min_lag, 0) + 4 * rate // 10
        self._near = np.zeros(self._cap, np.float64)
        self._far = np.zeros(self._cap, np.float64)
        self.end = 0
        """Absolute index one past the newest sample pushed."""
        self.coherent_frames = 0
        """Frames judged echo by this rule so far (for the benchmark and the log)."""

    def push(self, near: npt.NDArray[np.float32], far: npt.NDArray[np.float32]) -> None:
        """Append equal-length raw mic and far-end blocks (16 kHz)."""
        near_a = np.asarray(near, np.float64).reshape(-1)
        far_a = np.asarray(far, np.float64).reshape(-1)[:len(near_a)]
        if len(far_a) < len(near_a):
            far_a = np.concatenate([far_a, np.zeros(len(near_a) - len(far_a))])
        n = min(len(near_a), self._cap)
        self._near = np.concatenate([self._near[n:], near_a[-n:]])
        self._far = np.concatenate([self._far[n:], far_a[-n:]])
        self.end += len(near_a)

    def rho(self, end: int) -> float:
        """Best |normalised correlation| of the mic window ending at absolute ``end``."""
        stop = self._cap - (self.end - end)  # position of ``end`` in the buffers
        lo = stop - self.window - self.max_lag
        if lo < 0 or stop > self._cap:
            return 0.0
        a = self._near[stop - self.window:stop]
        b = self._far[lo:stop - self.min_lag] if self.min_lag < 0 else self._far[lo:stop]
        na = float(np.linalg.norm(a))
        if na < 1e-6 or float(np.linalg.norm(b)) < 1e-6:
            return 0.0
        size = 1 << int(np.ceil(np.log2(len(a) + len(b))))
        xc = np.fft.irfft(np.conj(np.fft.rfft(a, size)) * np.fft.rfft(b, size), size)
        xc = xc[:len(b) - self.window + 1]
        energy = np.concatenate([[0.0], np.cumsum(b * b)])
        nb = np.sqrt(np.maximum(energy[self.window:] - energy[:-self.window], 1e-12))
        return float(np.max(np.abs(xc) / (nb * na)))

    def is_echo(self, end: int) -> bool:
        """Whether the mic window ending at ``end`` is (almost) only the speaker's echo."""
        if self.rho(end) >= self.threshold:
            self.coherent_frames += 1
            return True
        return False
