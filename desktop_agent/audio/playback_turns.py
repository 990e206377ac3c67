"""A turn's playback in the Player: the snapshot it reports, its record, its queued audio.

``TurnPlayback`` is what ``Player.status`` returns (any thread). ``TurnRecord`` and
``Segment`` are the Player's own bookkeeping (player.py), read and written only under its
lock: a turn's counters and resampler, and one queued piece of its device-rate audio.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from desktop_agent.audio.resample import Resampler
from desktop_agent.core.cancel import TurnId


@dataclass(frozen=True, slots=True)
class TurnPlayback:
    """A snapshot of one turn's playback."""

    turn_id: TurnId
    sample_rate: int
    """The voice's sample rate (the unit of the sample counts below)."""
    enqueued_samples: int
    """Samples accepted by :meth:`Player.enqueue`."""
    played_samples: int
    """Samples the device consumed (heard, give or take the output latency)."""
    first_sample_monotonic_s: float | None
    """``time.monotonic`` instant the first sample reached the DAC (None: not yet)."""
    first_sample_stream_s: float | None
    """The same in PortAudio stream time (None without device timing)."""
    state: str
    """'pending' (nothing played yet), 'playing', 'finished' or 'flushed'."""


class TurnRecord:
    """One turn's playback counters, resampler and state (the Player's, under its lock)."""

    __slots__ = ("turn_id", "rate", "resampler", "enqueued", "consumed_dev", "delay_dev",
                 "first_mono", "first_stream", "ended", "flush_pending", "state")

    def __init__(self, turn_id: TurnId) -> None:
        self.turn_id = turn_id
        self.rate = 0
        self.resampler: Resampler | None = None
        self.enqueued = 0  # voice-rate samples accepted
        self.consumed_dev = 0  # device-rate samples the callback handed out
        self.delay_dev = 0.0  # resampler delay in device samples
        self.first_mono: float | None = None
        self.first_stream: float | None = None
        self.ended = False
        self.flush_pending = False
        self.state = "pending"


class Segment:
    """A queued piece of a turn's device-rate audio; ``off``: samples already handed out."""

    __slots__ = ("turn", "data", "off")

    def __init__(self, turn: TurnRecord, data: npt.NDArray[np.float32]) -> None:
        self.turn = turn
        self.data = data
        self.off = 0

