"""Audio benchmark: the echo canceller, push-to-talk silence, and barge-in (bench_bargein).

``run()`` plays a speech-like far-end signal through a simulated room (delay + decaying
room response + gain, optionally a soft-clipping loudspeaker), cancels it with
:class:`SpeexEchoCanceller`, and reports medians of per-100-ms ERLE over windows:
the first second, 2-3 s, and the steady state. A second pass adds near-end speech
while the far end plays (double talk) and reports how much the near-end level changes
from the microphone to the canceller output. :func:`ptt_to_silence` times how long the
Player takes to fall silent after a flush, and :mod:`desktop_agent.devtools.bench_bargein` adds the
barge-in figures on the real models. Figures are printed, never asserted.
"""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np

from desktop_agent.adapters.listening.speex import SpeexEchoCanceller
from desktop_agent.audio.frames import float32_to_int16
from desktop_agent.devtools.busy import busy_processes
from desktop_agent.devtools.simulate import room_echo, speech_like

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


def ptt_to_silence(speech: np.ndarray, rate: int, trials: int = 50, device_rate: int = 48_000,
                   block_s: float = 0.01, seed: int = 0) -> dict[str, float]:
    """Flush the Player at random instants of ``speech``; time until its output is silent.

    The Player is driven by ``render()`` in ``block_s`` blocks on a simulated clock (output
    sample ``i`` sounds at ``i / device_rate``; device latency is not included). A flush
    at instant ``t`` acts on the next block; the figure is the time from ``t`` to the
    first sample after which everything rendered is exactly zero (the fade's end).

    Args:
        speech: int16 or float mono audio at ``rate`` (at least 1 s).
        rate: its sample rate.
        trials: how many flushes.
        device_rate: the simulated output stream's rate.
        block_s: the output callback's block.
        seed: where the flushes fall.
    """
    from desktop_agent.audio.player import Player
    from desktop_agent.core.cancel import TurnId

    rng = np.random.default_rng(seed)
    dur = len(speech) / rate
    block = int(round(block_s * device_rate))
    lat = []
    for i in range(trials):
        player = Player(device_rate, max_ahead_s=dur + 1.0)
        turn = TurnId(i + 1)
        player.enqueue(turn, speech, rate, timeout_s=0)
        player.end_turn(turn)
        t_flush = float(rng.uniform(0.2 * dur, 0.8 * dur))
        out = []
        while len(out) * block / device_rate <= t_flush:
            out.append(player.render(block))
        player.flush(turn)
        for _ in range(int(0.1 * device_rate / block)):
            out.append(player.render(block))
        audio = np.concatenate(out)
        last = int(np.flatnonzero(audio)[-1]) + 1 if np.any(audio) else 0
        lat.append(max(0.0, last / device_rate - t_flush) * 1000)
    return {"ptt_to_silence_p50_ms": round(float(np.percentile(lat, 50)), 1),
            "ptt_to_silence_p95_ms": round(float(np.percentile(lat, 95)), 1),
            "ptt_to_silence_max_ms": round(float(np.max(lat)), 1)}


def run(json_out: bool = False, quick: bool = False, load: int = 0) -> dict[str, Any]:
    """Run the audio bench, print its figures, and return them.

    Args:
        json_out: print one JSON object instead of a table.
        quick: about 1.5 minutes of self-echo and fewer barge-in trials (under ~90 s).
        load: busy processes beside it. The clock is simulated, but a transcript still
            arrives after the CPU time Whisper really took, so a loaded machine judges
            barge-ins later (and differently) than a quiet one.

    Returns:
        Keys: erle_first_s_db, erle_2_3s_db, erle_steady_db, doubletalk_nearend_change_db,
        aec_realtime_factor (CPU seconds per audio second), and the same ERLE/double-talk
        figures for the linear filter alone (``linear_*``) and a soft-clipping
        loudspeaker (``softclip_*``); ptt_to_silence_* (:func:`ptt_to_silence` on a
        Piper answer); and the barge-in figures of
        :func:`desktop_agent.devtools.bench_bargein.measure` (``bargein_error`` instead when
        the models are missing).
    """
    with busy_processes(load):
        result = _measure_all(quick)
    result["load"] = load
    rows = result.pop("bargein_trial_rows", [])
    if json_out:
        print(json.dumps(result, indent=2))
    else:
        _print_table(result, rows)
    return result


def _measure_all(quick: bool) -> dict[str, Any]:
    """Every figure of the bench (the barge-in trial rows under ``bargein_trial_rows``)."""
    import desktop_agent.devtools.bench_bargein as bench_bargein
    from desktop_agent.core.errors import ModelError

    t0 = time.perf_counter()
    result: dict[str, Any] = dict(measure())
    for prefix, kwargs in (("linear_", {"residual": False}), ("softclip_", {"soft_clip": 2.0})):
        for key, value in measure(**kwargs).items():
            if key != "aec_realtime_factor":
                result[prefix + key] = value
    rows: list[dict[str, Any]] = []
    try:
        voices = bench_bargein.Voices.load()
    except ModelError as exc:
        result["bargein_error"] = f"[{exc.code}] {exc.message}"
        speech, rate = speech_like(6.0, FS, seed=4), FS
    else:
        speech, rate = voices.say(bench_bargein.ANSWERS[0]), FS
        figures = bench_bargein.measure(voices, quick=quick)
        rows = figures.pop("bargein_trial_rows")
        result.update(figures)
    result.update(ptt_to_silence(speech, rate, trials=50))
    result["bench_seconds"] = round(time.perf_counter() - t0, 1)
    if rows:
        result["bargein_trial_rows"] = rows
    return result


def _print_table(result: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    print("audio bench (speexdsp AEC, 200 ms filter, synthetic room, medians of 100 ms;"
          " barge-in on the real models, simulated clock)")
    for key, value in result.items():
        print(f"  {key:<42} {value}")
    if rows:
        print("\n  barge-in trials")
        print(f"  {'kind':<12} {'sound':<40} {'duck ms':>8} {'decide ms':>9}  verdict / transcript")
        for r in rows:
            duck, dec = r["onset_to_duck_ms"], r["onset_to_decision_ms"]
            print(f"  {r['kind']:<12} {r['label'][:40]:<40} "
                  f"{'-' if duck is None else f'{duck:.0f}':>8} "
                  f"{'-' if dec is None else f'{dec:.0f}':>9}  {r['verdict'] or 'no onset'}"
                  f" {r['transcript']!r}")


if __name__ == "__main__":
    run()
