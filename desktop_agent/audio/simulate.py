"""A synthetic echo path for AEC tests and the audio bench: delay + room response + gain."""

from __future__ import annotations

import numpy as np


def room_echo(
    far: np.ndarray,
    fs: int = 16_000,
    delay_s: float = 0.03,
    rt_s: float = 0.015,
    rir_s: float = 0.08,
    gain: float = 0.5,
    soft_clip: float | None = None,
    seed: int = 1,
) -> np.ndarray:
    """Return the echo of float ``far`` as a microphone would pick it up.

    Args:
        far: loudspeaker signal, float in [-1, 1].
        fs: sample rate.
        delay_s: acoustic + converter delay.
        rt_s: decay time constant of the room response.
        rir_s: length of the room response.
        gain: linear echo gain (0.5 = -6 dB).
        soft_clip: if set, drive of a tanh loudspeaker nonlinearity applied first.
        seed: room response randomness.
    """
    x = np.asarray(far, dtype=np.float64)
    if soft_clip:
        x = np.tanh(soft_clip * x) / np.tanh(soft_clip)
    rng = np.random.default_rng(seed)
    n = int(rir_s * fs)
    rir = rng.standard_normal(n) * np.exp(-np.arange(n) / (rt_s * fs))
    rir[0] = 3.0  # the direct path dominates
    rir /= np.sqrt(np.sum(rir**2))
    echo = np.convolve(x, rir)[: len(x)]
    d = int(round(delay_s * fs))
    return np.concatenate([np.zeros(d), echo])[: len(x)] * gain


def speech_like(seconds: float, fs: int = 16_000, pitch_hz: float = 120.0,
                seed: int = 0, level: float = 0.3) -> np.ndarray:
    """A deterministic speech-like test signal (no model needed).

    A glottal pulse train with drifting pitch through three formant resonators,
    gated by a ~4 Hz syllable envelope with pauses; float64 peaking near ``level``.
    """
    rng = np.random.default_rng(seed)
    n = int(seconds * fs)
    t = np.arange(n) / fs
    f0 = pitch_hz * (1 + 0.1 * np.sin(2 * np.pi * 0.7 * t + rng.uniform(0, 6)))
    phase = np.cumsum(f0 / fs)
    pulses = (np.diff(np.floor(phase), prepend=0) > 0).astype(np.float64)
    src = pulses + 0.05 * rng.standard_normal(n)
    out = np.zeros(n)
    for formant, bw in ((700.0, 130.0), (1220.0, 70.0), (2600.0, 160.0)):
        r = np.exp(-np.pi * bw / fs)
        theta = 2 * np.pi * formant * (1 + 0.15 * rng.standard_normal()) / fs
        a1, a2 = -2 * r * np.cos(theta), r * r
        # A two-pole resonator, run block-free through a tiny recursion.
        y = np.zeros(n)
        y1 = y2 = 0.0
        for i in range(n):
            y0 = src[i] - a1 * y1 - a2 * y2
            y[i] = y0
            y2, y1 = y1, y0
        out += y / np.max(np.abs(y))
    syll = 0.5 * (1 - np.cos(2 * np.pi * 4.0 * t + rng.uniform(0, 6)))
    words = (np.sin(2 * np.pi * 0.45 * t + rng.uniform(0, 6)) > -0.6).astype(np.float64)
    out *= syll * words
    return out / np.max(np.abs(out)) * level
