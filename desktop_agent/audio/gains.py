"""The Player's two gains: the click-free fade of a flush or pause, and the duck's level.

Both are state moved only by the output callback (``Player.render``, under the Player's
lock); other threads set a target (``Duck.target``) and the next block ramps to it.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt


class Fade:
    """A 0..1 envelope moved by ``1 / length`` a sample: fades out to stop, in to resume."""

    def __init__(self, length: int) -> None:
        """``length``: samples from full level to silence (at least 1)."""
        self.length = max(1, int(length))
        self.level = 1.0

    @property
    def silent(self) -> bool:
        """True once a fade-out has reached silence."""
        return self.level <= 0.0

    def samples_left(self) -> int:
        """Samples a fade-out from the current level still takes."""
        return math.ceil(self.level * self.length)

    def reset(self) -> None:
        """Full level at once (nothing is playing: the next turn starts unfaded)."""
        self.level = 1.0

    def ramp(self, n: int, target: float) -> npt.NDArray[np.float32] | None:
        """The gains of the next ``n`` samples moving toward ``target`` (0.0 or 1.0).

        None when they are all 1.0 (full level, staying there): the samples pass unchanged.
        """
        if self.level == target == 1.0 or n == 0:
            return None
        step = 1.0 / self.length
        sign = 1.0 if target > self.level else -1.0
        gains = np.clip(self.level + sign * step * np.arange(1, n + 1, dtype=np.float64),
                        0.0, 1.0)
        self.level = float(gains[-1])
        return gains.astype(np.float32)


class Duck:
    """The output level while the user may be speaking: set from any thread, ramped over
    one rendered block."""

    def __init__(self) -> None:
        """Full level."""
        self.gain = 1.0
        """The level applied to the last block."""
        self.target = 1.0
        """The level asked for (``duck``/``unduck``); reached by the end of the next block."""

    def set(self, gain: float) -> None:
        """Ask for ``gain``, clamped to 0..1. Runs on: any thread."""
        self.target = float(min(1.0, max(0.0, gain)))

    def apply(self, out: npt.NDArray[np.float32]) -> None:
        """Scale the block ``out`` in place, ramping from the last level to the target."""
        target = self.target
        if target == self.gain == 1.0:
            return
        if target == self.gain:
            out *= np.float32(target)
            return
        out *= np.linspace(self.gain, target, len(out), dtype=np.float32)
        self.gain = target
