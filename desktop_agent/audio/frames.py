"""Sample-format conversion and framing for mono audio.

Conventions: pipeline audio is mono; int16 is the wire format (Piper, speexdsp),
float32 in [-1, 1] is the working format (Silero, Whisper, the output device).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import numpy as np
import numpy.typing as npt

INT16_SCALE: Final = 32768.0
"""Full scale of int16 as a float: int16 ``x`` maps to ``x / 32768``."""

Float32Array = npt.NDArray[np.float32]
Int16Array = npt.NDArray[np.int16]


def int16_to_float32(samples: npt.ArrayLike) -> Float32Array:
    """Convert int16 samples to float32 in [-1, 1).

    Args:
        samples: int16 samples (any shape).

    Returns:
        A new float32 array of the same shape.
    """
    return np.asarray(samples, dtype=np.int16).astype(np.float32) / np.float32(INT16_SCALE)


def float32_to_int16(samples: npt.ArrayLike) -> Int16Array:
    """Convert float samples to int16, rounding and clipping at full scale.

    Args:
        samples: float samples in [-1, 1]; values beyond are clipped, not wrapped.

    Returns:
        A new int16 array of the same shape.
    """
    scaled = np.rint(np.asarray(samples, dtype=np.float32) * np.float32(INT16_SCALE))
    return np.clip(scaled, -32768, 32767).astype(np.int16)


def to_mono(block: npt.ArrayLike) -> Float32Array:
    """Average a (frames, channels) block to mono float32; a 1-D block passes through.

    Args:
        block: (frames,) or (frames, channels) samples.

    Returns:
        (frames,) float32.
    """
    arr = np.asarray(block)
    if arr.dtype == np.int16:
        arr = int16_to_float32(arr)
    arr = arr.astype(np.float32, copy=False)
    if arr.ndim == 1:
        return arr
    if arr.shape[1] == 1:
        return arr[:, 0]
    return arr.mean(axis=1, dtype=np.float32)


def frames_of(samples: npt.ArrayLike, frame_samples: int) -> Iterator[npt.NDArray[np.generic]]:
    """Yield consecutive whole frames of ``frame_samples``; a trailing partial frame is dropped.

    Args:
        samples: 1-D samples.
        frame_samples: samples per frame (> 0).
    """
    if frame_samples <= 0:
        raise ValueError("frame_samples must be positive")
    arr = np.asarray(samples)
    for start in range(0, len(arr) - frame_samples + 1, frame_samples):
        yield arr[start : start + frame_samples]


def rms_db(samples: npt.ArrayLike, floor_db: float = -120.0) -> float:
    """Root-mean-square level in dB relative to full scale (float in [-1, 1] or int16).

    Args:
        samples: the signal.
        floor_db: returned for silence or an empty signal.
    """
    arr = np.asarray(samples)
    if arr.size == 0:
        return floor_db
    if arr.dtype == np.int16:
        arr = arr.astype(np.float64) / INT16_SCALE
    power = float(np.mean(np.square(arr, dtype=np.float64)))
    if power <= 0.0:
        return floor_db
    return max(floor_db, 10.0 * float(np.log10(power)))


class FrameAssembler:
    """Re-block a stream of arbitrary-length chunks into fixed-size frames.

    Runs on: one worker thread (not thread-safe).
    """

    def __init__(self, frame_samples: int, dtype: npt.DTypeLike = np.float32) -> None:
        """Create an assembler.

        Args:
            frame_samples: samples per output frame.
            dtype: sample type of the frames.
        """
        if frame_samples <= 0:
            raise ValueError("frame_samples must be positive")
        self.frame_samples = frame_samples
        self._dtype = np.dtype(dtype)
        self._pending = np.zeros(0, dtype=self._dtype)

    def push(self, chunk: npt.ArrayLike) -> list[npt.NDArray[np.generic]]:
        """Add ``chunk`` and return every frame that is now complete (oldest first)."""
        data = np.concatenate([self._pending, np.asarray(chunk, dtype=self._dtype)])
        n_whole = len(data) // self.frame_samples * self.frame_samples
        frames = [
            data[i : i + self.frame_samples].copy() for i in range(0, n_whole, self.frame_samples)
        ]
        self._pending = data[n_whole:].copy()
        return frames

    @property
    def pending(self) -> int:
        """Samples waiting for the next frame to fill."""
        return len(self._pending)

    def reset(self) -> None:
        """Drop any partial frame."""
        self._pending = np.zeros(0, dtype=self._dtype)
