"""Frames, resampling, the SPSC ring and the far-end tap."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from desktop_agent.audio.frames import (
    FrameAssembler,
    float32_to_int16,
    frames_of,
    int16_to_float32,
    rms_db,
    to_mono,
)
from desktop_agent.audio.reference import BlockTiming, FarEndTap
from desktop_agent.audio.resample import Resampler, resample
from desktop_agent.audio.ring import SampleRing


def test_int16_float_round_trip_and_clipping() -> None:
    x = np.array([-32768, -1, 0, 1, 32767], np.int16)
    assert np.array_equal(float32_to_int16(int16_to_float32(x)), x)
    assert list(float32_to_int16(np.array([1.5, -1.5], np.float32))) == [32767, -32768]


def test_to_mono_frames_and_assembler() -> None:
    stereo = np.array([[0.2, 0.4], [1.0, 0.0]], np.float32)
    np.testing.assert_allclose(to_mono(stereo), [0.3, 0.5])
    assert [len(f) for f in frames_of(np.zeros(1000), 160)] == [160] * 6
    asm = FrameAssembler(160)
    got = asm.push(np.arange(100)) + asm.push(np.arange(100, 400))
    assert [f[0] for f in got] == [0, 160] and asm.pending == 80
    assert rms_db(np.full(100, 0.5)) == pytest.approx(-6.02, abs=0.01)


@pytest.mark.parametrize("rate_in,rate_out", [(48_000, 16_000), (22_050, 16_000),
                                              (22_050, 48_000), (44_100, 16_000)])
def test_resample_tone_accuracy_and_streaming(rate_in: int, rate_out: int) -> None:
    t = np.arange(rate_in) / rate_in
    x = np.sin(2 * np.pi * 1000 * t).astype(np.float32)
    y = resample(x, rate_in, rate_out)
    assert len(y) == rate_out
    ref = np.sin(2 * np.pi * 1000 * np.arange(rate_out) / rate_out)
    # The residual is a sub-sample delay rounding (< 0.05 sample) and the filter's ripple.
    assert np.max(np.abs(y[200:-200] - ref[200:-200])) < 0.03
    r1, r2 = Resampler(rate_in, rate_out), Resampler(rate_in, rate_out)
    chunks = [r1.process(x[i : i + 437]) for i in range(0, len(x), 437)]
    whole = r2.process(x)
    streamed = np.concatenate(chunks)
    np.testing.assert_allclose(streamed, whole[: len(streamed)], atol=1e-5)


def test_downsampling_rejects_aliases() -> None:
    t = np.arange(48_000) / 48_000
    x = np.sin(2 * np.pi * 10_000 * t).astype(np.float32)  # above 8 kHz Nyquist
    y = resample(x, 48_000, 16_000)
    assert rms_db(y[100:-100]) < -70


@pytest.mark.parametrize("n", [0, 1, 5, 1001, 48_000])
def test_resample_whole_signal_lengths_and_alias_floor(n: int) -> None:
    # libsoxr "HQ": a tone just above the new Nyquist (1.1x) is gone to below -120 dB
    # (the polyphase filter leaves -82 dB there), and every length comes out as documented.
    t = np.arange(n) / 48_000
    x = (0.5 * np.sin(2 * np.pi * 8_800 * t)).astype(np.float32)
    y = resample(x, 48_000, 16_000)
    assert y.dtype == np.float32 and len(y) == round(n * 16_000 / 48_000)
    if n >= 48_000:
        leak_db = 10 * np.log10(np.mean(np.square(y[200:-200], dtype=np.float64)) / 0.125)
        assert leak_db < -120


@pytest.mark.parametrize("rate_in,rate_out", [(48_000, 16_000), (22_050, 48_000)])
def test_streaming_resampler_holds_nothing_back(rate_in: int, rate_out: int) -> None:
    # The live paths need every computable sample at once: after each 10 ms block the
    # output is at most one sample short of the input duration (soxr holds back ~21 ms).
    r = Resampler(rate_in, rate_out)
    fed = out = 0
    for _ in range(50):
        block = np.zeros(rate_in // 100, np.float32)
        fed += len(block)
        out += len(r.process(block))
        assert fed * rate_out / rate_in - out <= 1.0
    assert r.delay_s < 0.0015


def test_ring_wraps_drops_when_full_and_threads() -> None:
    ring = SampleRing(10, np.int16)
    assert ring.write(np.arange(8)) == 8
    assert list(ring.read(5)) == [0, 1, 2, 3, 4]
    assert ring.write(np.arange(8, 20)) == 7 and ring.dropped == 5
    assert list(ring.read_available()) == list(range(5, 15))
    assert not ring.wait(1, 0.01)

    big = SampleRing(256, np.int32)
    total = 20_000
    got: list[np.ndarray] = []

    def consume() -> None:
        n = 0
        while n < total:
            if big.wait(1, 1.0):
                chunk = big.read(64)
                got.append(chunk)
                n += len(chunk)

    th = threading.Thread(target=consume)
    th.start()
    src = np.arange(total, dtype=np.int32)
    i = 0
    while i < total:
        i += big.write(src[i : i + 50])
    th.join(5)
    assert np.array_equal(np.concatenate(got), src)


def test_tap_reads_back_at_16k_with_dac_time() -> None:
    tap = FarEndTap(48_000)
    t = np.arange(4800) / 48_000
    block = np.sin(2 * np.pi * 500 * t).astype(np.float32)
    tap.push(block, BlockTiming(stream_now_s=1.0, dac_s=1.02))
    out, dac = tap.read()
    assert abs(len(out) - 1600) <= 2
    delay = Resampler(48_000, 16_000).delay_s
    assert dac == pytest.approx(1.02 - delay)
    assert tap.output_latency_s == pytest.approx(0.02)
    tap.push(block, BlockTiming(stream_now_s=1.1, dac_s=1.12))
    out2, dac2 = tap.read()
    assert dac2 == pytest.approx(1.02 - delay + len(out) / 16_000)
