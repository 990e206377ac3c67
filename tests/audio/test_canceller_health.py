"""The convergence estimate behind the coherence rule (capture-level behaviour: test_capture)."""

from __future__ import annotations

import math

import numpy as np

from desktop_agent.audio.canceller_health import MIN_ERLE_FRAMES, CancellerHealth, weighted_median


def test_weighted_median_follows_the_weight_not_the_count() -> None:
    assert weighted_median([(30.0, 1.0), (5.0, 1.0), (31.0, 1.0)]) == 30.0
    # One loud frame outweighs two quiet ones; two loud ones are not moved by a quiet one.
    assert weighted_median([(30.0, 1.0), (5.0, 10.0), (31.0, 1.0)]) == 5.0
    assert weighted_median([(30.0, 10.0), (5.0, 1.0), (31.0, 10.0)]) == 30.0
    assert math.isnan(weighted_median([]))


def test_a_loud_frame_is_left_out_unless_it_is_a_copy_of_the_speaker() -> None:
    rng = np.random.default_rng(1)
    far = (rng.standard_normal(16_000) * 0.1).astype(np.float32)
    health = CancellerHealth()
    health.push(far * 0.001, far)  # the filter leaves 60 dB under the echo
    frame = far[-512:]
    for _ in range(MIN_ERLE_FRAMES):
        health.measure(16_000, frame, float(np.mean((frame * 0.001) ** 2)), False)
    assert health.converged
    user = (rng.standard_normal(512) * 0.1).astype(np.float32)  # loud, not the speaker
    health.push(user, np.zeros(512, np.float32) + far[:512])
    for _ in range(MIN_ERLE_FRAMES * 4):
        health.measure(16_512, user, float(np.mean(user ** 2)), True)
    assert health.converged
    leak = far[:2048]
    health.push(leak, leak)  # the filter's output is the speaker: a leak
    health.measure(16_512 + 2048, leak[-512:], float(np.mean(leak[-512:] ** 2)), True)
    assert not health.converged
    health.reset()
    assert not health.converged
