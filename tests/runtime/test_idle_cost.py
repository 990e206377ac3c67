"""What the app does while nobody talks and nothing plays: as little as it can, same results.

The idle window used ~10-14 % of a core (bench idle): a 100 Hz playback poll on the GUI
thread, a 15 Hz meter timer, the echo canceller and Silero on every block of silence, the
resampler filtering zeros, the mic ring waking every 2 ms, and level readings that never
changed sent 15 times a second. Each is checked here to stop while idle and to give the
same results as before when there is something to do.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from desktop_agent.audio.capture import AEC_IDLE_S, CapturePipeline
from desktop_agent.audio.resample import Resampler
from desktop_agent.audio.ring import SampleRing
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.runtime.audio_workers import _changed
from desktop_agent.runtime.playback_monitor import PlaybackMonitor


class _CountingVad:
    def __init__(self) -> None:
        self.calls = 0

    def speech_probability(self, frame: Any) -> float:
        self.calls += 1
        return 0.9 if float(np.max(np.abs(frame))) > 0.05 else 0.01

    def reset(self) -> None:
        pass


class _CountingAec:
    frame_samples = 160

    def __init__(self) -> None:
        self.calls = 0

    def process(self, near: Any, far: Any) -> Any:
        self.calls += 1
        return np.asarray(near, np.int16)


def test_silence_costs_no_vad_and_no_echo_canceller_and_speech_still_starts() -> None:
    vad, aec = _CountingVad(), _CountingAec()
    pipe = CapturePipeline(vad, aec)
    silence, far0 = np.zeros(160, np.float32), np.zeros(160, np.float32)
    for _ in range(100):  # 1 s of digital silence, nothing playing
        assert pipe.process(silence, far0) == []
    assert vad.calls == 0
    assert aec.calls <= int(AEC_IDLE_S * 100) + 1  # only until the far end was quiet long enough
    bypassed_at = aec.calls
    rng = np.random.default_rng(0)
    events = []
    for _ in range(60):  # 0.6 s of loud "speech": the VAD runs and the onset is reported
        events += pipe.process((0.3 * rng.standard_normal(160)).astype(np.float32), far0)
    assert vad.calls > 0 and [e.kind.name for e in events] == ["SPEECH_STARTED"]
    assert aec.calls == bypassed_at  # still nothing played: no echo to cancel
    tone = (0.2 * np.sin(np.arange(160) / 3)).astype(np.float32)
    pipe.process(silence, tone)  # the assistant speaks: the canceller is back at once
    assert aec.calls > bypassed_at


def test_the_bypass_passes_the_microphone_through_in_order() -> None:
    pipe = CapturePipeline(_CountingVad(), _CountingAec())
    mic = (0.01 * np.arange(160 * 80) / (160 * 80)).astype(np.float32)
    for i in range(80):
        pipe.process(mic[i * 160:(i + 1) * 160], np.zeros(160, np.float32))
    held = pipe.history.slice(0, pipe.history.end)
    # Through the (identity) canceller the samples went as int16; through the bypass as they
    # are: either way the history is the microphone, in order, with nothing lost.
    assert pipe.history.end == len(mic)
    assert np.allclose(held, mic, atol=1 / 16384)


def test_the_resampler_gives_exact_silence_for_silence_and_the_same_signal_otherwise() -> None:
    sig = np.concatenate([np.zeros(4800, np.float32),
                          np.sin(np.arange(4800) / 7).astype(np.float32),
                          np.zeros(9600, np.float32)])
    a, b = Resampler(48_000, 16_000), Resampler(48_000, 16_000)
    whole = a.process(sig)
    pieces = np.concatenate([b.process(sig[i:i + 480]) for i in range(0, len(sig), 480)])
    assert np.allclose(whole, pieces, atol=1e-6)
    assert not pieces[:1500].any()  # leading silence is exactly zero
    assert pieces[1700:3100].any()
    assert not pieces[-1000:].any()  # and so is silence again once the filter has passed


def test_the_ring_wait_sleeps_until_samples_are_due_and_returns_when_they_come() -> None:
    ring = SampleRing(48_000, np.float32)
    threading.Timer(0.05, lambda: ring.write(np.zeros(480, np.float32))).start()
    t0 = time.monotonic()
    assert ring.wait(480, 2.0, rate=48_000)
    assert time.monotonic() - t0 < 1.0
    assert not ring.wait(10_000, 0.05, rate=48_000)  # a timeout is still a timeout


def _blocks_every_40_ms(monkeypatch: Any, ring: SampleRing) -> list[float]:
    """A fake clock for the ring: each sleep advances it; a device delivers 1411 samples
    (32 ms at 44.1 kHz) at 40 ms and 80 ms, as the PulseAudio plugin does. Returns the
    sleeps taken."""
    import types

    import desktop_agent.audio.ring as ring_module

    clock, sleeps = [0.0], []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock[0] += seconds
        while ring.total_written < 1411 * int(clock[0] / 0.040 + 1e-9):
            ring.write(np.zeros(1411, np.float32))

    monkeypatch.setattr(ring_module, "time", types.SimpleNamespace(
        monotonic=lambda: clock[0], sleep=sleep))
    return sleeps


def test_the_ring_wait_sleeps_until_the_next_block_instead_of_polling(monkeypatch: Any) -> None:
    ring = SampleRing(48_000, np.float32)
    sleeps = _blocks_every_40_ms(monkeypatch, ring)
    next_block = lambda: 0.040 * (ring.total_written // 1411 + 1)  # noqa: E731
    assert ring.wait(1412, 1.0, rate=44_100, next_write=next_block)  # one sample past a block
    assert len(sleeps) == 2, sleeps  # until each block, and no polls in between

    ring = SampleRing(48_000, np.float32)  # by the rate alone: polled through a whole period
    sleeps = _blocks_every_40_ms(monkeypatch, ring)
    assert ring.wait(1412, 1.0, rate=44_100)
    assert len(sleeps) >= 8, sleeps  # 32 ms, 32 ms, then 2 ms polls from 64 to 80 ms


def test_level_readings_are_resent_only_when_a_meter_would_move() -> None:
    quiet = (-100.0, -100.0, None)
    assert not _changed(quiet, quiet)
    assert not _changed((-99.5, -100.0, None), quiet)
    assert _changed((-40.0, -100.0, None), quiet)
    assert _changed((-100.0, -100.0, 12.0), quiet)
    assert _changed((-100.0, -100.0, 14.0), (-100.0, -100.0, 12.0))


class _Player:
    paused = False
    queued_s = 0.0

    def status(self, turn_id: TurnId) -> None:
        return None

    def flush(self, turn_id: TurnId) -> None:
        pass

    def end_turn(self, turn_id: TurnId) -> None:
        pass


def test_the_playback_monitor_polls_only_while_a_stream_is_known(qtbot: Any) -> None:
    fed: list[Any] = []
    monitor = PlaybackMonitor(_Player(), fed.append)
    monitor.start()
    assert not monitor._timer.isActive()  # idle: no 100 Hz wake-ups of the GUI thread
    monitor.add(TurnId(1), 5, 1600, CancelToken(TurnId(1)))
    assert monitor._timer.isActive()
    monitor._streams[5].drained = True
    monitor.forget(TurnId(1))
    qtbot.waitUntil(lambda: not monitor._timer.isActive(), timeout=2000)
    monitor.stop()
    monitor.add(TurnId(2), 6, 1600, CancelToken(TurnId(2)))
    assert not monitor._timer.isActive()  # stopped means stopped


def test_the_meters_draw_a_reading_once_and_then_sleep(qtbot: Any) -> None:
    from desktop_agent.gui.meters import LevelMeters
    from desktop_agent.runtime.view_api import LevelReading

    meters = LevelMeters()
    qtbot.addWidget(meters)
    assert not meters._timer.isActive()
    for db in (-30.0, -20.0, -10.0):
        meters.push(LevelReading(db, -100.0, None))
    qtbot.waitUntil(lambda: meters.draws == 1, timeout=2000)
    assert meters.mic.format() == "-10 dB"
    assert not meters._timer.isActive()
