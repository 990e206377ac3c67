"""The audio backend port: a speaker and a microphone on one clock.

``audio.virtual.VirtualAudio`` (headless runs, tests, benchmarks) and
``adapters.audio.device_audio.DeviceAudio`` (the system's sound card) both present it; the runtime
sees nothing else of them. Mixing speech into a virtual microphone (``inject``) is a test and
bench tool, not part of the port.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeAlias, runtime_checkable

import numpy as np
import numpy.typing as npt

from desktop_agent.audio.player import Player

MicBlock: TypeAlias = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]
"""(mic samples, far-end samples played over the same span), both 16 kHz float32."""


class AudioBackend(Protocol):
    """A speaker (through a Player) and a microphone whose samples map to clock seconds."""

    @property
    def rate(self) -> int:
        """Microphone sample rate, Hz (16 kHz)."""
        ...

    @property
    def player(self) -> Player:
        """The Player the speaker pulls from (bounded look-ahead, flush, duck, pause)."""
        ...

    def start(self) -> None:
        """Open the speaker and the microphone (a second call does nothing)."""
        ...

    def stop(self) -> None:
        """Close them."""
        ...

    def read(self, timeout_s: float = 0.1, min_samples: int | None = None) -> MicBlock | None:
        """The next mic block and its far-end block, or None after ``timeout_s`` seconds.

        ``min_samples``: wait for about that many mic samples (a hint: a clocked backend
        may deliver its own block size instead).

        Runs on: the capture thread. Raises ``DeviceError`` when the device failed.
        """
        ...

    def time_of(self, sample: int) -> float:
        """Monotonic clock seconds of absolute mic index ``sample``."""
        ...

    def sample_at(self, t: float) -> int:
        """Absolute mic index at monotonic clock seconds ``t``."""
        ...


@runtime_checkable
class MovingEchoPath(Protocol):
    """A backend whose echo reference can move (the real device: underruns, a reopen)."""

    @property
    def echo_path_version(self) -> int:
        """Bumped whenever the echo reference moved: the echo canceller relearns the path."""
        ...

    @property
    def echo_path_settling(self) -> bool:
        """True while the reference, placed anew, is measured back to the learnt lag."""
        ...


def echo_path_reader(backend: AudioBackend) -> Callable[[], int]:
    """Reads ``backend``'s echo path version (always 0 for one whose path never moves, a
    virtual card). The kind is checked once here: a Protocol ``isinstance`` is slow, and the
    capture loop reads the version for every block."""
    if isinstance(backend, MovingEchoPath):
        moving = backend
        return lambda: moving.echo_path_version
    return lambda: 0


def echo_settling_reader(backend: AudioBackend) -> Callable[[], bool]:
    """Reads whether ``backend``'s echo reference is being measured back into place
    (always False for one whose path never moves). Checked once, like
    :func:`echo_path_reader`."""
    if isinstance(backend, MovingEchoPath):
        moving = backend
        return lambda: moving.echo_path_settling
    return lambda: False


def echo_path_version(backend: AudioBackend) -> int:
    """``backend``'s echo path version; 0 for one whose path never moves (a virtual card)."""
    return echo_path_reader(backend)()
