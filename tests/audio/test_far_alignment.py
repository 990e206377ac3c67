"""Far-end alignment for the AEC on real devices: timeline, pointer and measured delay."""

from __future__ import annotations

import numpy as np

from desktop_agent.audio.far_alignment import (
    RECHECK_AFTER_S,
    Correction,
    EchoDelayTracker,
    FarTimeline,
)


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
    shift, relearn = 0, False
    # The echo arrives 20 ms BEFORE the reference handed to the AEC: uncancellable.
    near = np.concatenate([speech[320:], np.zeros(320, np.float32)])
    for i in range(0, len(speech), 160):
        fix = tracker.observe(near[i:i + 160], speech[i:i + 160])
        shift = shift or fix.shift
        relearn = relearn or fix.relearn
    assert shift == -320 - tracker.target  # read the far-end 50 ms earlier
    assert relearn  # the canceller never learnt the echo at its new lag
    assert tracker.lag == tracker.target  # where the echo sits once the pointer moved


def test_a_wake_after_the_reference_was_moved_restores_where_it_was_moved_to() -> None:
    """The echo came 200 ms after its reference (PulseAudio's loopback, the test's room,
    grows its buffer on a busy machine); the tracker moved the reference to 30 ms. After a
    wake the reference is placed anew a few ms off: the restore goes back to 30 ms, the lag
    the canceller relearnt, not to the 200 ms it measured before moving it."""
    rate = 16_000
    speech = np.random.default_rng(7).standard_normal(6 * rate).astype(np.float32) * 0.1
    tracker = EchoDelayTracker(rate)
    first = speech[:3 * rate]
    fixes = _feed(tracker, _delayed(first, 3200), first)
    assert [(f.shift, f.relearn) for f in fixes if f.shift or f.relearn] == [(3200 - 480, True)]
    # The pointer moved: the echo now sits 30 ms after the reference. The stream sleeps,
    # wakes, and the fresh timestamps place the reference 3.5 ms early.
    assert tracker.expect_restore()
    rest = speech[3 * rate:5 * rate]
    moved = [f for f in _feed(tracker, _delayed(rest, 536), rest) if f.shift or f.relearn]
    assert [(f.shift, f.relearn) for f in moved] == [(56, False)]
    assert tracker.lag == 480


def test_delay_tracker_leaves_a_good_alignment_alone() -> None:
    rate = 16_000
    rng = np.random.default_rng(4)
    speech = rng.standard_normal(3 * rate).astype(np.float32) * 0.1
    near = np.concatenate([np.zeros(480, np.float32), speech[:-480]]) * 0.5  # 30 ms later
    tracker = EchoDelayTracker(rate)
    fixes = [tracker.observe(near[i:i + 160], speech[i:i + 160])
             for i in range(0, len(speech), 160)]
    assert tracker.lag == 480 and not any(f.shift or f.relearn for f in fixes)


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


def _feed(tracker: EchoDelayTracker, near: np.ndarray, far: np.ndarray) -> list[Correction]:
    return [tracker.observe(near[i:i + 160], far[i:i + 160]) for i in range(0, len(far), 160)]


def _delayed(signal: np.ndarray, samples: int) -> np.ndarray:
    return np.concatenate([np.zeros(samples, np.float32), signal[:-samples]]) * 0.5


def test_after_an_underrun_the_learnt_lag_is_restored_without_a_reset() -> None:
    rate = 16_000
    speech = np.random.default_rng(5).standard_normal(4 * rate).astype(np.float32) * 0.1
    tracker = EchoDelayTracker(rate)
    _feed(tracker, _delayed(speech[:2 * rate], 480), speech[:2 * rate])  # learnt: 30 ms
    assert tracker.lag == 480
    # The reference was placed anew 3.5 ms early: the echo now sits 33.5 ms after it.
    assert tracker.expect_restore() and tracker.restoring
    rest = speech[2 * rate:]
    fixes = _feed(tracker, _delayed(rest, 536), rest)
    moved = [f for f in fixes if f.shift or f.relearn]
    # Two 0.25 s measurements that agree: back to 30 ms, to the sample, and the canceller
    # keeps its filter.
    assert [(f.shift, f.relearn) for f in moved] == [(56, False)]
    assert fixes.index(moved[0]) < int(0.55 * rate) // 160
    assert not tracker.restoring and tracker.lag == 480 and tracker.restores == 1


def test_a_restore_that_finds_no_echo_asks_for_a_reset() -> None:
    rate = 16_000
    rng = np.random.default_rng(6)
    speech = rng.standard_normal(2 * rate).astype(np.float32) * 0.1
    tracker = EchoDelayTracker(rate)
    _feed(tracker, _delayed(speech, 480), speech)
    assert tracker.expect_restore()
    # The mic hears something unrelated to the speaker (the path changed beyond measure).
    other = rng.standard_normal(rate).astype(np.float32) * 0.1
    fixes = _feed(tracker, other, rng.standard_normal(rate).astype(np.float32) * 0.1)
    fixes += _feed(tracker, other, rng.standard_normal(rate).astype(np.float32) * 0.1)
    assert [f.relearn for f in fixes if f.relearn] == [True]
    assert tracker.lag is None and not tracker.restoring


def test_with_nothing_learnt_there_is_nothing_to_restore() -> None:
    assert not EchoDelayTracker().expect_restore()


def test_after_a_silent_speaker_a_drifted_echo_is_put_back_at_its_learnt_lag() -> None:
    """Between two replies the echo moved 2.2 ms with no underrun or wake to say so (the
    test's loopback adapts its latency; separate clocks drift): the first sound after the
    silence is measured as a restore, and the pointer goes back to the learnt lag."""
    rate = 16_000
    speech = np.random.default_rng(8).standard_normal(5 * rate).astype(np.float32) * 0.1
    tracker = EchoDelayTracker(rate)
    _feed(tracker, _delayed(speech[:2 * rate], 645), speech[:2 * rate])  # learnt: 40.3 ms
    assert tracker.lag == 645 and not tracker.restoring
    silence = np.zeros(int(RECHECK_AFTER_S * rate), np.float32)
    assert not any(f.shift or f.relearn for f in _feed(tracker, silence, silence))
    assert not tracker.restoring  # nothing to do while nothing plays
    rest = _delayed(speech[2 * rate:4 * rate], 610)  # now 38.1 ms
    fixes = [tracker.observe(rest[:160], speech[2 * rate:2 * rate + 160])]
    # Measuring, without bypassing the canceller (most checks find the echo in place).
    assert tracker.checks == 1 and tracker.checking and not tracker.restoring
    # The first 0.25 s window finds the echo 35 samples early: from then on, until the
    # pointer is back, the echo gate judges as if nothing were removed (the filter misfits).
    settling = []
    for i in range(160, 2 * rate, 160):
        fixes.append(tracker.observe(rest[i:i + 160], speech[2 * rate + i:2 * rate + i + 160]))
        settling.append(tracker.restoring)
    moved = [f for f in fixes if f.shift or f.relearn]
    assert [(f.shift, f.relearn) for f in moved] == [(-35, False)]
    at = fixes.index(moved[0])
    assert at < int(0.55 * rate) // 160
    first_window = int(0.25 * rate) // 160
    assert not any(settling[:first_window - 2])  # not before a window said so
    assert all(settling[first_window:at - 1])  # from the first window to the fix
    assert not any(settling[at:])  # and no more once it is put back
    assert not tracker.checking and tracker.lag == 645


def test_a_check_that_finds_the_echo_in_place_never_makes_the_gate_judge_without_it() -> None:
    """A reply in bursts on a busy machine: every burst after 1.5 s of silence is checked,
    and an echo that did not move must keep being cancelled and judged so throughout."""
    rate = 16_000
    speech = np.random.default_rng(10).standard_normal(8 * rate).astype(np.float32) * 0.1
    tracker = EchoDelayTracker(rate)
    _feed(tracker, _delayed(speech[:2 * rate], 645), speech[:2 * rate])
    silence = np.zeros(int(RECHECK_AFTER_S * rate), np.float32)
    seen = []
    for burst in range(3):
        _feed(tracker, silence, silence)
        part = speech[(2 + 2 * burst) * rate:(4 + 2 * burst) * rate]
        echo = _delayed(part, 645)
        for i in range(0, len(part), 160):
            fix = tracker.observe(echo[i:i + 160], part[i:i + 160])
            assert not fix.relearn and abs(fix.shift) <= 1
            seen.append(tracker.restoring)
    assert tracker.checks == 3 and not any(seen) and tracker.lag == 645


def test_a_short_pause_is_not_checked_and_a_failed_check_resets_nothing() -> None:
    rate = 16_000
    rng = np.random.default_rng(9)
    speech = rng.standard_normal(3 * rate).astype(np.float32) * 0.1
    tracker = EchoDelayTracker(rate)
    _feed(tracker, _delayed(speech[:rate * 2], 480), speech[:rate * 2])
    pause = np.zeros(int(0.9 * RECHECK_AFTER_S * rate), np.float32)
    _feed(tracker, pause, pause)
    _feed(tracker, _delayed(speech[2 * rate:], 480), speech[2 * rate:])
    assert tracker.checks == 0 and not tracker.restoring
    # A long silence, then the mic hears nothing of the speaker (a user talking over a
    # muted echo path): the check gives up without a reset and keeps the learnt lag.
    silence = np.zeros(int(RECHECK_AFTER_S * rate), np.float32)
    _feed(tracker, silence, silence)
    other = [rng.standard_normal(rate).astype(np.float32) * 0.1 for _ in range(4)]
    fixes = _feed(tracker, np.concatenate(other[:2]), np.concatenate(other[2:]))
    assert tracker.checks == 1 and not tracker.checking
    assert not any(f.shift or f.relearn for f in fixes) and tracker.lag == 480


def test_one_window_with_a_wrong_peak_does_not_keep_the_canceller_off() -> None:
    """A 0.25 s window of speech can put a clear peak far from the echo (RESTORE_AGREE's
    docstring): the next clear window, in place, lets the canceller run again."""
    rate = 16_000
    speech = np.random.default_rng(11).standard_normal(6 * rate).astype(np.float32) * 0.1
    tracker = EchoDelayTracker(rate)
    _feed(tracker, _delayed(speech[:2 * rate], 645), speech[:2 * rate])
    silence = np.zeros(int(RECHECK_AFTER_S * rate), np.float32)
    _feed(tracker, silence, silence)
    window = int(0.25 * rate)
    part = speech[2 * rate:3 * rate]
    wrong = _delayed(part[:window], 900)  # the first window: a clear peak 16 ms off
    _feed(tracker, wrong, part[:window])
    assert tracker.checking and tracker.restoring  # measured off: the filter misfits
    _feed(tracker, _delayed(part[window:2 * window], 645), part[window:2 * window])
    assert not tracker.restoring  # in place after all: cancelling again
    assert tracker.lag == 645


def test_a_check_that_gives_up_after_finding_the_echo_moved_ends_all_of_it() -> None:
    rate = 16_000
    rng = np.random.default_rng(12)
    speech = rng.standard_normal(6 * rate).astype(np.float32) * 0.1
    tracker = EchoDelayTracker(rate)
    _feed(tracker, _delayed(speech[:2 * rate], 645), speech[:2 * rate])
    silence = np.zeros(int(RECHECK_AFTER_S * rate), np.float32)
    _feed(tracker, silence, silence)
    # Four windows, each a clear peak somewhere else: none agrees with the one before.
    for k, lag in enumerate((900, 300, 1200, 500)):
        part = speech[2 * rate + k * 4000:2 * rate + (k + 1) * 4000]
        fixes = _feed(tracker, _delayed(part, lag), part)
    assert not any(f.shift or f.relearn for f in fixes)
    assert not tracker.restoring and not tracker.checking and tracker.lag == 645
