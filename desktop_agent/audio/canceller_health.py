"""Whether the echo canceller's linear filter follows the echo path (for the coherence rule).

The coherence rule of :class:`~desktop_agent.audio.echo_gate.EchoCoherence` takes a raw mic
coherent with the speaker for echo; right for a canceller that fell behind the path, wrong
for one that follows it (a user under the echo keeps the raw mic coherent). This module
says which: :class:`CancellerHealth` watches how much the linear filter removes, frame by
frame, while the speaker plays.

Runs on: the capture worker thread (with the pipeline that owns it).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from desktop_agent.audio.echo_gate import EchoCoherence, power_db
from desktop_agent.core.ports import ASR_SAMPLE_RATE

COHERENCE_VETO_ERLE_DB = 15.0
"""The coherence rule judges frames only while the linear filter removes less than this
(the median over the last second of playback, ``ERLE_WINDOW_FRAMES``): it is there for a
canceller that fell behind a drifting path (the recorded loopback: 5-12 dB). With a
canceller that follows the path (30 dB and more on a fixed one), a user 6 dB under the
echo keeps the raw mic coherent with the speaker (0.89) and the rule took them for echo
although the power gate, with the residual 25 dB under them, knew better: a quiet "okay"
over a reply went unheard."""
ERLE_WINDOW_FRAMES = 31
"""Frames (about 1 s of playback) whose median echo removal, each frame weighted by the
mic's power (a quiet frame near the noise floor says little about the filter), says
whether the linear filter follows the path. Frames louder than what it leaves are left
out unless they are a leak (``LEAK_RHO``): the user's voice is not echo. A power-weighted
mean of the same second made a converged canceller look lost within one loud frame of an
"okay" (or of the 200 ms of echo after a bypass), and the coherence rule vetoed the rest
of the word (the e2e backchannel test under two CPU hogs: 3 runs in 3, then 1 in 4); the
median of a second does not move for a word."""
MIN_ERLE_FRAMES = 8
"""Frames measured before the filter can be called converged (a quarter second)."""
LEAK_HOLD_S = 0.5
"""After a leak (a loud frame of the filter's output that is a copy of the speaker) the
filter is not trusted for this long, whatever the median says: a moved path is caught at
its first frames, not after half a second of them."""
LEAK_RHO = 0.8
"""Coherence of the linear filter's output with the speaker at or above which a loud frame
is a leak, not a user: a moved echo path leaks a copy of the speaker (0.9 and more), and
the estimate must fall at once so the coherence rule returns; a user's voice, with what a
converged filter leaves, is not a copy (0.1-0.3). (The raw mic could not tell them apart:
with the echo in it a user 5 dB under the echo reached 0.95.)"""


def weighted_median(pairs: Iterable[tuple[float, float]]) -> float:
    """The value at half the total weight of (value, weight) pairs (nan when empty)."""
    ordered = sorted(pairs)
    total = sum(w for _, w in ordered)
    acc = 0.0
    for value, weight in ordered:
        acc += weight
        if acc >= total / 2:
            return value
    return float("nan")


class CancellerHealth:
    """The linear filter's echo removal over the last second of playback, and its leaks."""

    def __init__(self) -> None:
        self.leak_coherence = EchoCoherence(ASR_SAMPLE_RATE)
        """How much of the linear filter's output is a copy of the speaker: a leak is, a
        user is not."""
        self._removal_db: deque[tuple[float, float]] = deque(maxlen=ERLE_WINDOW_FRAMES)
        """The removal (dB) on the latest frames of playback, each with the raw mic's power
        (its weight)."""
        self._removal_at = 0
        self._leak_until = 0

    def push(self, linear: npt.NDArray[np.float32], far: npt.NDArray[np.float32]) -> None:
        """Append the linear filter's output (the mic itself while bypassed) and the far end."""
        self.leak_coherence.push(linear, far)

    def measure(self, frame_end: int, raw_frame: npt.NDArray[np.float32],
                linear_power: float, above_residual: bool) -> None:
        """Record how much the linear filter removed from this frame of playback, unless
        the frame is louder than what it leaves (``above_residual``) and no copy of the
        speaker (the user, a cough, a door: never echo, whatever the VAD makes of it)."""
        if above_residual:
            if self.leak_coherence.rho(frame_end) < LEAK_RHO:
                return
            self._leak_until = frame_end + int(LEAK_HOLD_S * ASR_SAMPLE_RATE)
        raw_power = float(np.mean(np.square(raw_frame, dtype=np.float64))) if len(
            raw_frame) else linear_power
        self._removal_db.append((power_db(raw_power) - power_db(linear_power), raw_power))
        self._removal_at = frame_end

    @property
    def converged(self) -> bool:
        """Whether the linear filter follows the echo path: over the last second of playback
        it removed at least ``COHERENCE_VETO_ERLE_DB`` (median), and nothing leaked for
        ``LEAK_HOLD_S``. Then the power gate alone tells a user from what it leaves, and
        the coherence rule, made for a canceller that fell behind, stays silent."""
        if len(self._removal_db) < MIN_ERLE_FRAMES or self._removal_at < self._leak_until:
            return False
        return weighted_median(self._removal_db) >= COHERENCE_VETO_ERLE_DB

    def reset(self) -> None:
        """A canceller learning anew has not converged."""
        self._removal_db.clear()
        self._leak_until = 0
