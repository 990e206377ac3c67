"""Player.render driven directly, as the output callback would, without a device."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from desktop_agent.audio.player import Player
from desktop_agent.audio.reference import BlockTiming, FarEndTap
from desktop_agent.audio.resample import Resampler
from desktop_agent.core.cancel import CancelToken, TurnId

RATE = 16_000  # device rate == voice rate keeps sample arithmetic exact
BLOCK = 160


def tone(seconds: float, rate: int = RATE, amp: float = 0.5) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (amp * 32767 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)


def ones(n: int) -> np.ndarray:
    return np.full(n, 16384, dtype=np.int16)  # 0.5 full scale, easy to reason about


def drain(player: Player, blocks: int) -> np.ndarray:
    return np.concatenate([player.render(BLOCK) for _ in range(blocks)])


def test_plays_samples_in_order_and_counts_consumption() -> None:
    p = Player(RATE)
    data = tone(0.1)
    assert p.enqueue(TurnId(1), data, RATE)
    assert p.status(TurnId(1)).played_samples == 0
    out = drain(p, 5)
    np.testing.assert_allclose(out, data[: 5 * BLOCK] / 32768, atol=1e-6)
    st = p.status(TurnId(1))
    assert st.played_samples == 5 * BLOCK
    assert st.enqueued_samples == len(data)
    assert st.state == "playing"


def test_turn_finishes_after_end_turn_and_full_consumption() -> None:
    p = Player(RATE)
    p.enqueue(TurnId(1), ones(400), RATE)
    p.end_turn(TurnId(1))
    drain(p, 2)
    assert p.status(TurnId(1)).state == "playing"
    out = drain(p, 2)
    assert p.status(TurnId(1)).state == "finished"
    assert p.status(TurnId(1)).played_samples == 400
    assert np.all(out[400 - 2 * BLOCK :] == 0)


def test_flush_mid_chunk_fades_within_one_block_then_silence() -> None:
    p = Player(RATE, fade_s=0.005)  # 80 samples
    p.enqueue(TurnId(1), ones(RATE), RATE)
    drain(p, 3)
    p.flush(TurnId(1))
    block = p.render(BLOCK)
    fade = block[:80]
    assert fade[0] < 0.5 and fade[0] > 0.49  # continues the signal, no jump
    assert np.all(np.diff(fade) < 0)  # monotone fade
    assert np.max(np.abs(np.diff(block))) < 0.5 / 80 + 1e-6  # no click larger than a fade step
    assert np.all(block[80:] == 0)
    assert np.all(drain(p, 5) == 0)
    st = p.status(TurnId(1))
    assert st.state == "flushed"
    assert st.played_samples == 3 * BLOCK + 80
    assert p.queued_s == 0


def test_flushed_and_stale_turns_are_refused() -> None:
    p = Player(RATE)
    p.enqueue(TurnId(2), ones(800), RATE)
    assert not p.enqueue(TurnId(1), ones(10), RATE), "an older turn is stale"
    p.flush(TurnId(2))
    assert not p.enqueue(TurnId(2), ones(10), RATE), "a flushed turn stays flushed"
    p.flush(TurnId(5))  # flushed before it ever queued
    assert not p.enqueue(TurnId(5), ones(10), RATE)
    assert np.all(drain(p, 3) == 0)


def test_newer_turn_supersedes_the_older_one() -> None:
    p = Player(RATE, fade_s=0.005)
    p.enqueue(TurnId(1), ones(RATE), RATE)
    drain(p, 2)
    second = np.full(800, -8192, dtype=np.int16)
    assert p.enqueue(TurnId(2), second, RATE)
    out = drain(p, 6)
    assert p.status(TurnId(1)).state == "flushed"
    assert np.all(out[:79] > 0) and out[79] == 0  # turn 1 fades out
    assert np.all(out[80:160] <= 0)  # turn 2 fades in: no turn-1 audio after the fade
    assert np.all(out[160:880] == pytest.approx(-0.25))
    assert p.status(TurnId(2)).played_samples == 800
    assert p.status(TurnId(1)).played_samples == 2 * BLOCK + 80


def test_lookahead_bound_and_nonblocking_enqueue() -> None:
    p = Player(RATE, max_ahead_s=0.5)
    assert p.enqueue(TurnId(1), ones(int(0.4 * RATE)), RATE, timeout_s=0)
    assert not p.enqueue(TurnId(1), ones(int(0.2 * RATE)), RATE, timeout_s=0)
    assert p.queued_s == pytest.approx(0.4)
    assert not p.enqueue(TurnId(1), ones(int(0.2 * RATE)), RATE, timeout_s=0.05)
    assert p.queued_s <= 0.5


def test_blocking_enqueue_is_paced_by_the_callback() -> None:
    p = Player(RATE, max_ahead_s=0.25)
    data = tone(1.0)
    done = threading.Event()
    result = []

    def producer() -> None:
        result.append(p.enqueue(TurnId(1), data, RATE, timeout_s=5.0))
        done.set()

    threading.Thread(target=producer, daemon=True).start()
    deadline = time.monotonic() + 5
    while p.queued_s < 0.2 and time.monotonic() < deadline:
        time.sleep(0.001)
    out = []
    max_queued = 0.0
    while not done.is_set() or p.queued_s > 0:
        max_queued = max(max_queued, p.queued_s)
        out.append(p.render(BLOCK))
        time.sleep(0.001)
    assert result == [True]
    assert max_queued <= 0.25 + 1e-9
    played = np.concatenate(out)
    np.testing.assert_allclose(played[: len(data)], data / 32768, atol=1e-6)


def test_cancel_and_flush_release_a_blocked_producer() -> None:
    p = Player(RATE, max_ahead_s=0.1)
    token = CancelToken(TurnId(1))
    threading.Timer(0.05, token.cancel).start()
    t0 = time.monotonic()
    assert not p.enqueue(TurnId(1), ones(RATE), RATE, cancel=token)
    assert time.monotonic() - t0 < 1.0
    threading.Timer(0.05, p.flush, args=(TurnId(1),)).start()
    assert not p.enqueue(TurnId(1), ones(RATE), RATE)


def test_pause_keeps_position_and_resume_fades_in() -> None:
    p = Player(RATE, fade_s=0.005)
    p.enqueue(TurnId(1), ones(RATE), RATE)
    drain(p, 2)
    p.pause()
    out = p.render(BLOCK)
    assert np.all(out[80:] == 0) and out[0] > 0.49
    before = p.status(TurnId(1)).played_samples
    assert np.all(drain(p, 10) == 0)
    assert p.status(TurnId(1)).played_samples == before == 2 * BLOCK + 80
    p.resume()
    out = p.render(BLOCK)
    assert out[0] < 0.01 and np.all(np.diff(out[:80]) > 0)
    assert np.all(out[80:] == pytest.approx(0.5))


def test_duck_ramps_down_and_back_up() -> None:
    p = Player(RATE)
    p.enqueue(TurnId(1), ones(RATE), RATE)
    p.render(BLOCK)
    p.duck(0.25)
    ramp = p.render(BLOCK)
    assert ramp[0] == pytest.approx(0.5, rel=0.01) and ramp[-1] == pytest.approx(0.125)
    assert np.all(p.render(BLOCK) == pytest.approx(0.125))
    p.unduck()
    p.render(BLOCK)
    assert np.all(p.render(BLOCK) == pytest.approx(0.5))


def test_counters_at_voice_rate_with_resampling() -> None:
    p = Player(48_000)
    data = tone(0.5, rate=22_050)
    p.enqueue(TurnId(1), data, 22_050)
    p.end_turn(TurnId(1))
    for _ in range(10):
        p.render(2400)  # 0.5 s of device audio
    st = p.status(TurnId(1))
    # 0.5 s of device time minus the resampler's group delay (~0.8 ms) has been heard.
    delay_voice = Resampler(22_050, 48_000).delay_s * 22_050
    assert abs(st.played_samples - (11_025 - delay_voice)) <= 2
    while p.status(TurnId(1)).state != "finished":
        p.render(2400)
    assert p.status(TurnId(1)).played_samples == len(data)


def test_first_sample_time_and_tap_gets_exactly_the_output() -> None:
    now = [100.0]
    tap = FarEndTap(RATE)
    p = Player(RATE, tap=tap, clock=lambda: now[0])
    p.render(BLOCK, BlockTiming(stream_now_s=5.0, dac_s=5.03))
    p.enqueue(TurnId(1), ones(300), RATE)
    outs = [p.render(BLOCK, BlockTiming(stream_now_s=5.01, dac_s=5.04))]
    st = p.status(TurnId(1))
    assert st.first_sample_stream_s == pytest.approx(5.04)
    assert st.first_sample_monotonic_s == pytest.approx(100.03)
    outs.append(p.render(BLOCK, BlockTiming(stream_now_s=5.02, dac_s=5.05)))
    ref, dac = tap.read()
    played = np.concatenate([np.zeros(BLOCK, np.float32), *outs])
    np.testing.assert_array_equal(ref, played)
    assert dac == pytest.approx(5.03)
    assert tap.output_latency_s == pytest.approx(0.03)


def test_a_chunk_longer_than_the_look_ahead_counts_as_played_while_it_queues() -> None:
    import threading

    from desktop_agent.audio.player import Player
    from desktop_agent.core.cancel import TurnId

    player = Player(16_000, max_ahead_s=0.5)
    chunk = np.full(32_000, 0.1, dtype=np.float32)  # 2 s at 16 kHz: four look-aheads
    feeder = threading.Thread(target=player.enqueue, args=(TurnId(1), chunk, 16_000))
    feeder.start()
    for _ in range(100):  # 1 s of 10 ms blocks while the producer is still blocked
        player.render(160)
        time.sleep(0.001)
    status = player.status(TurnId(1))
    assert status is not None
    assert 15_000 < status.played_samples <= 16_000  # about one second, not zero
    player.flush(TurnId(1))
    player.render(160)
    feeder.join(timeout=2)
