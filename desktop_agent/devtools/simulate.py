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


class EchoPath:
    """The loudspeaker-to-mic path of :func:`room_echo`, run block by block."""

    def __init__(self, gain: float, delay_s: float, seed: int = 1,
                 soft_clip: float | None = None, fs: int = 16_000) -> None:
        self.fs = fs
        impulse = np.zeros(int((delay_s + 0.08) * self.fs) + 1)
        impulse[0] = 1.0
        self.h = room_echo(impulse, self.fs, delay_s=delay_s, gain=gain, seed=seed)
        self.soft_clip = soft_clip
        self._hist = np.zeros(len(self.h) - 1)

    def process(self, far: np.ndarray) -> np.ndarray:
        """The echo the mic picks up over the span ``far`` plays."""
        x = np.asarray(far, np.float64)
        if self.soft_clip:
            x = np.tanh(self.soft_clip * x) / np.tanh(self.soft_clip)
        full = np.concatenate([self._hist, x])
        self._hist = full[len(x):]
        return np.convolve(full, self.h, mode="valid")


def true_start(x: np.ndarray, below_peak_db: float = 30.0, block: int = 160) -> int:
    """First sample of the first 10 ms window within ``below_peak_db`` of the loudest."""
    n = len(x) // block
    p = np.mean(np.square(x[: n * block].astype(np.float64).reshape(n, block)), axis=1)
    return int(np.flatnonzero(p >= np.max(p) * 10 ** (-below_peak_db / 10))[0]) * block


NONSPEECH_KINDS = ("cough", "clap", "knock", "breath")


def _band_noise(n: int, fs: int, lo: float, hi: float, rng: np.random.Generator) -> np.ndarray:
    spec = np.fft.rfft(rng.standard_normal(n))
    freqs = np.fft.rfftfreq(n, 1 / fs)
    spec[(freqs < lo) | (freqs > hi)] = 0
    x = np.fft.irfft(spec, n)
    return x / (np.max(np.abs(x)) + 1e-12)


def nonspeech(kind: str, fs: int = 16_000, seed: int = 0, level: float = 0.5) -> np.ndarray:
    """A non-speech sound a listener makes, approximated with shaped noise.

    Args:
        kind: 'cough' (two short broadband bursts), 'clap' (three claps), 'knock' (a
            train of eight knocks/clicks) or 'breath' (a long, soft, band-limited hiss).
        fs: sample rate.
        seed: randomness of the noise.
        level: peak amplitude.

    Returns:
        float64 mono audio with a little silence before and after.
    """
    rng = np.random.default_rng(seed)
    pad = np.zeros(int(0.2 * fs))
    if kind == "cough":
        parts = []
        for dur in (0.22, 0.16):
            n = int(dur * fs)
            env = (1 - np.exp(-np.arange(n) / (0.01 * fs))) * np.exp(-np.arange(n) / (0.07 * fs))
            parts += [_band_noise(n, fs, 200, 5000, rng) * env, np.zeros(int(0.12 * fs))]
        x = np.concatenate(parts)
    elif kind in ("clap", "knock"):
        count, gap, tau, band = (3, 0.45, 0.006, (500, 7000)) if kind == "clap" else \
            (8, 0.12, 0.004, (150, 1500))
        x = np.zeros(int(count * gap * fs))
        n = int(0.05 * fs)
        for i in range(count):
            burst = _band_noise(n, fs, *band, rng) * np.exp(-np.arange(n) / (tau * fs))
            at = int(i * gap * fs)
            x[at:at + n] += burst
    elif kind == "breath":
        n = int(0.9 * fs)
        x = _band_noise(n, fs, 300, 2500, rng) * np.hanning(n) * 0.6
    else:
        raise ValueError(f"unknown non-speech kind {kind!r}; use one of {NONSPEECH_KINDS}")
    x = np.concatenate([pad, x, pad])
    return x / (np.max(np.abs(x)) + 1e-12) * level
