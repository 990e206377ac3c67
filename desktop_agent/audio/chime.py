"""A short two-note chime that announces a timer or a reminder before its spoken line."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def chime(sample_rate: int, *, gain: float = 0.25) -> npt.NDArray[np.int16]:
    """Two soft notes (E6 then C6, 0.18 s each, smooth envelopes) and 0.15 s of silence.

    Args:
        sample_rate: Hz of the voice it is played with (the chime joins its audio).
        gain: Peak amplitude, 0..1.

    Returns:
        int16 mono samples.
    """
    note_n = int(0.18 * sample_rate)
    t = np.arange(note_n) / sample_rate
    envelope = np.sin(np.pi * np.arange(note_n) / note_n) ** 2  # no clicks at either end
    notes = [np.sin(2 * np.pi * f * t) * envelope for f in (1318.5, 1046.5)]
    gap = np.zeros(int(0.15 * sample_rate))
    wave = np.concatenate([notes[0], notes[1], gap]) * gain
    return (wave * 32767).astype(np.int16)
