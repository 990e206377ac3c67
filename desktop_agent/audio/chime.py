"""Short tones: the chime before a timer's or a reminder's line, the cues of listening."""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

CueKind = Literal["start", "stop"]
CUE_NOTES_HZ = {"start": (880.0, 1318.5), "stop": (1318.5, 880.0)}
"""Listening starts on a rising fifth (A5 then E6) and stops on the same notes falling."""


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


def listening_cue(kind: CueKind, sample_rate: int, *, gain: float = 0.12) -> npt.NDArray[np.int16]:
    """The soft cue that listening started or stopped: two 50 ms notes, 100 ms in all.

    Short and quiet (-18 dBFS peak) so that it is over before the first word and the echo
    canceller, which gets it in its reference like the voice, removes what the mic hears.
    No trailing silence: nothing waits on it.

    Args:
        kind: 'start' (rising) or 'stop' (falling).
        sample_rate: Hz of the samples.
        gain: Peak amplitude, 0..1.

    Returns:
        int16 mono samples.
    """
    note_n = int(0.05 * sample_rate)
    t = np.arange(note_n) / sample_rate
    envelope = np.sin(np.pi * np.arange(note_n) / note_n) ** 2  # no clicks at either end
    wave = np.concatenate([np.sin(2 * np.pi * f * t) * envelope for f in CUE_NOTES_HZ[kind]])
    return (wave * gain * 32767).astype(np.int16)
