"""Far-end alignment for the AEC on real devices: timeline, pointer and measured delay."""

from __future__ import annotations

import numpy as np

from desktop_agent.audio.far_alignment import EchoDelayTracker, FarTimeline


def test_timeline_hands_out_the_far_end_that_played_with_each_mic_block() -> None:
    far = FarTimeline(rate=1000)
    far.push(np.arange(500, dtype=np.float32), dac_s=10.0)  # index 0 played at t = 10 s
    block = far.take(10.1, 50)
    assert block is not None and list(block[:3]) == [100.0, 101.0, 102.0]
    # The next mic block continues from the pointer, whatever its own timestamp says
    # (timestamps jitter), unless the average error passes 20 ms.
    nxt = far.take(10.157, 50)
    assert nxt is not None and nxt[0] == 150.0
    # A mic block from before any far-end was played gets zeros, never garbage.
    early = FarTimeline(rate=1000)
    early.push(np.ones(100, dtype=np.float32), dac_s=10.0)
    block = early.take(9.0, 10)
    assert block is not None and np.all(block == 0)


def test_delay_tracker_moves_a_reference_that_comes_after_its_echo() -> None:
    rate = 16_000
    rng = np.random.default_rng(3)
    speech = rng.standard_normal(3 * rate).astype(np.float32) * 0.1
    tracker = EchoDelayTracker(rate)
    shift = 0
    # The echo arrives 20 ms BEFORE the reference handed to the AEC: uncancellable.
    near = np.concatenate([speech[320:], np.zeros(320, np.float32)])
    for i in range(0, len(speech), 160):
        shift = shift or tracker.observe(near[i:i + 160], speech[i:i + 160])
    assert tracker.lag == -320
    assert shift == -320 - tracker.target  # read the far-end 50 ms earlier


def test_delay_tracker_leaves_a_good_alignment_alone() -> None:
    rate = 16_000
    rng = np.random.default_rng(4)
    speech = rng.standard_normal(3 * rate).astype(np.float32) * 0.1
    near = np.concatenate([np.zeros(480, np.float32), speech[:-480]]) * 0.5  # 30 ms later
    tracker = EchoDelayTracker(rate)
    shifts = [tracker.observe(near[i:i + 160], speech[i:i + 160])
              for i in range(0, len(speech), 160)]
    assert tracker.lag == 480 and not any(shifts)


def test_an_underrun_places_the_pointer_anew_at_once() -> None:
    far = FarTimeline(rate=1000)
    far.push(np.arange(2000, dtype=np.float32), dac_s=10.0)
    block = far.take(10.1, 50)
    assert block is not None and block[0] == 100.0
    # The device skipped 120 ms: from now on its timestamps say index 0 played at 9.88 s.
    far.reanchor()
    far.push(np.arange(2000, 2100, dtype=np.float32), dac_s=11.88)
    block = far.take(10.2, 50)
    assert block is not None and block[0] == 320.0  # not 150, and not 20 ms at a time
