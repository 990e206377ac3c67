"""Audio benchmark: how well the speexdsp echo canceller does on a synthetic echo path.

``run()`` plays a speech-like far-end signal through a simulated room (delay + decaying
room response + gain, optionally a soft-clipping loudspeaker), cancels it with
:class:`SpeexEchoCanceller`, and reports medians of per-100-ms ERLE over windows:
the first second, 2-3 s, and the steady state. A second pass adds near-end speech
while the far end plays (double talk) and reports how much the near-end level changes
from the microphone to the canceller output. Figures are printed, never asserted.
"""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np

from desktop_agent.adapters.speex import SpeexEchoCanceller
from desktop_agent.audio.frames import float32_to_int16
from desktop_agent.audio.simulate import room_echo, speech_like

FS = 16_000
_WIN = FS // 10  # 100 ms analysis windows


def _win_power(x: np.ndarray) -> np.ndarray:
    n = len(x) // _WIN
    return np.mean(np.square(x[: n * _WIN].astype(np.float64).reshape(n, _WIN)), axis=1)


def _erle_windows(mic: np.ndarray, out: np.ndarray, far: np.ndarray) -> np.ndarray:
    """Per-window ERLE in dB, NaN where the far end is quiet."""
    pm, po, pf = _win_power(mic), _win_power(out), _win_power(far)
    n = min(len(pm), len(po), len(pf))
    erle = 10 * np.log10((pm[:n] + 1e-12) / (po[:n] + 1e-12))
    erle[pf[:n] < np.max(pf) * 1e-3] = np.nan  # only while the far end is active
    return erle


def _median(values: np.ndarray, start_s: float, end_s: float) -> float:
    seg = values[int(start_s * 10) : int(end_s * 10)]
    seg = seg[~np.isnan(seg)]
    return round(float(np.median(seg)), 1) if len(seg) else float("nan")


def _cancel(mic: np.ndarray, far: np.ndarray, residual: bool) -> np.ndarray:
    aec = SpeexEchoCanceller(filter_ms=200, residual_suppression=residual)
    try:
        out = aec.process_signal(float32_to_int16(mic), float32_to_int16(far))
    finally:
        aec.close()
    return out.astype(np.float64) / 32768.0


def measure(
    far: np.ndarray | None = None,
    near: np.ndarray | None = None,
    delay_s: float = 0.03,
    soft_clip: float | None = None,
    residual: bool = True,
) -> dict[str, float]:
    """Measure ERLE and double-talk for one configuration.

    Args:
        far: far-end float signal at 16 kHz (>= 12 s); speech-like synthetic by default.
        near: near-end float signal at 16 kHz (>= 3 s) for the double-talk pass.
        delay_s: echo path delay.
        soft_clip: tanh drive of a loudspeaker nonlinearity, or None for a linear path.
        residual: enable speexdsp's residual echo suppression.
    """
    far = speech_like(12.0, FS, 120.0, seed=1) if far is None else np.asarray(far, np.float64)
    near = speech_like(3.0, FS, 210.0, seed=2) if near is None else np.asarray(near, np.float64)
    rng = np.random.default_rng(3)
    sensor = rng.standard_normal(len(far)) * 10 ** (-70 / 20)
    mic = room_echo(far, FS, delay_s=delay_s, soft_clip=soft_clip) + sensor
    t0 = time.perf_counter()
    out = _cancel(mic, far, residual)
    cpu_s = time.perf_counter() - t0
    erle = _erle_windows(mic, out, far)
    total_s = len(out) / FS

    # Double talk: near-end speech from 8 s while the far end keeps playing. The change
    # is output level over near-end input level, per window, where the near end is active
    # (residual echo adds to it, the canceller's suppression takes from it).
    dt_start = int(8.0 * FS)
    dt_near = np.zeros(len(far))
    seg = near[: len(far) - dt_start]
    dt_near[dt_start : dt_start + len(seg)] = seg
    out_dt = _cancel(mic + dt_near, far, residual)
    pn, po = _win_power(dt_near), _win_power(out_dt)
    n = min(len(pn), len(po))
    active = pn[:n] > np.max(pn) * 1e-2
    change = 10 * np.log10((po[:n][active] + 1e-12) / (pn[:n][active] + 1e-12))
    return {
        "erle_first_s_db": _median(erle, 0.0, 1.0),
        "erle_2_3s_db": _median(erle, 2.0, 3.0),
        "erle_steady_db": _median(erle, 4.0, 8.0),
        "doubletalk_nearend_change_db": round(float(np.median(change)), 1),
        "aec_realtime_factor": round(cpu_s / total_s, 4),
    }


def run(json_out: bool = False) -> dict[str, Any]:
    """Run the audio bench, print its figures, and return them.

    Args:
        json_out: print one JSON object instead of a table.

    Returns:
        Keys: erle_first_s_db, erle_2_3s_db, erle_steady_db, doubletalk_nearend_change_db,
        aec_realtime_factor (CPU seconds per audio second), and the same ERLE/double-talk
        figures for the linear filter alone (``linear_*``) and a soft-clipping
        loudspeaker (``softclip_*``).
    """
    result: dict[str, Any] = dict(measure())
    for prefix, kwargs in (("linear_", {"residual": False}), ("softclip_", {"soft_clip": 2.0})):
        for key, value in measure(**kwargs).items():
            if key != "aec_realtime_factor":
                result[prefix + key] = value
    if json_out:
        print(json.dumps(result, indent=2))
    else:
        print("audio bench (speexdsp AEC, 200 ms filter, synthetic room, medians of 100 ms)")
        for key, value in result.items():
            print(f"  {key:<42} {value}")
    return result


if __name__ == "__main__":
    run()
