"""An opt-in recording of what the capture pipeline saw, for "it hears itself" reports.

Set ``DESKTOP_AGENT_CAPTURE_TRACE=/some/file.npz`` before starting the app and the
capture worker keeps, per mic block, the raw mic, the far-end reference handed to the
echo canceller and the cleaned signal, and per 32 ms VAD frame the speech probability,
whether the echo gate took it for echo, the frame's level and the speaker's level. The
file is written when the app stops (``numpy.load`` reads it). Nothing is recorded unless
the variable is set: this is raw microphone audio, and it stays on this computer.

Runs on: the capture worker thread.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

from desktop_agent.core.ports import ASR_SAMPLE_RATE

ENV_VAR = "DESKTOP_AGENT_CAPTURE_TRACE"
MAX_MARKS = 10_000
"""Most event marks kept (a device that resets its echo path every block cannot grow it)."""


class CaptureTrace:
    """Collects blocks and VAD-frame facts; ``save`` writes them as one ``.npz``."""

    def __init__(self, path: Path, max_seconds: float = 900.0) -> None:
        """Args: path: the ``.npz`` to write; max_seconds: mic audio kept (the first ones).

        The cap bounds memory and the file: 900 s hold 3 x 14.4 M float32 samples
        (about 173 MB in memory, less compressed on disk) plus one row per 32 ms frame.
        """
        self.path = path
        self._max = int(max_seconds * ASR_SAMPLE_RATE)
        self._held = 0
        self.near: list[npt.NDArray[np.float32]] = []
        self.far: list[npt.NDArray[np.float32]] = []
        self.cleaned: list[npt.NDArray[np.float32]] = []
        self.frames: list[tuple[float, ...]] = []
        """(frame end index, VAD prob, gated 0/1, frame dBFS, far dBFS, gate ratio dB)."""
        self.marks: list[tuple[int, str]] = []
        """(mic index, label): echo path resets and other events worth seeing."""

    @classmethod
    def from_env(cls) -> CaptureTrace | None:
        """A trace when ``DESKTOP_AGENT_CAPTURE_TRACE`` names a file, else None."""
        value = os.environ.get(ENV_VAR, "").strip()
        return cls(Path(value).expanduser()) if value else None

    @property
    def full(self) -> bool:
        """True once ``max_seconds`` of audio are held (later blocks are not kept)."""
        return self._held >= self._max

    def block(self, near: npt.NDArray[np.float32], far: npt.NDArray[np.float32] | None,
              cleaned: npt.NDArray[np.float32]) -> None:
        """Keep one block (far None: silence of the same length)."""
        if self.full:
            return
        self._held += len(near)
        self.near.append(np.asarray(near, np.float32).copy())
        self.far.append(np.zeros(len(near), np.float32) if far is None
                        else np.asarray(far, np.float32)[:len(near)].copy())
        self.cleaned.append(np.asarray(cleaned, np.float32).copy())

    def frame(self, end: int, prob: float, gated: bool, frame_db: float, far_db: float,
              ratio_db: float) -> None:
        """Keep the facts of one VAD frame."""
        if not self.full:
            self.frames.append((end, prob, float(gated), frame_db, far_db, ratio_db))

    def mark(self, index: int, label: str) -> None:
        """Note an event at mic index ``index`` (the first ``MAX_MARKS`` are kept)."""
        if len(self.marks) < MAX_MARKS:
            self.marks.append((index, label))

    def save(self) -> Path:
        """Write the ``.npz`` (creating its folder); returns its path."""
        self.path.parent.mkdir(parents=True, exist_ok=True)

        def cat(parts: list[npt.NDArray[np.float32]]) -> npt.NDArray[np.float32]:
            return np.concatenate(parts) if parts else np.zeros(0, np.float32)

        np.savez_compressed(
            self.path, near=cat(self.near), far=cat(self.far), cleaned=cat(self.cleaned),
            frames=np.asarray(self.frames, np.float64).reshape(-1, 6),
            mark_index=np.asarray([m[0] for m in self.marks], np.int64),
            mark_label=np.asarray([m[1] for m in self.marks], dtype=str))
        return self.path
