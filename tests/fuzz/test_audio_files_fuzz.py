"""Hostile audio files: a clear error or a sensible result, never a crash, memory bounded.

``read_audio`` is what ``ask --wav``, ``replay`` and ``bench turns --wav-dir`` read with.
What each case does is listed at the top of adapters/audio/audio_files.py.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tracemalloc
import wave
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_agent.adapters.audio.audio_files import MAX_AUDIO_S, read_audio
from desktop_agent.core.errors import AudioFileError

ROOT = Path(__file__).resolve().parents[2]
RATE = 16_000


def _wav16(path: Path, frames: np.ndarray, rate: int) -> Path:
    data = np.asarray(frames)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1 if data.ndim == 1 else data.shape[1])
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(np.clip(data * 32767, -32768, 32767).astype("<i2").tobytes())
    return path


def _wav_float(path: Path, frames: np.ndarray, rate: int) -> Path:
    """An IEEE-float WAV (format 3), which may carry NaN and infinities."""
    data = np.asarray(frames, "<f4")
    channels = 1 if data.ndim == 1 else data.shape[1]
    raw = data.tobytes()
    fmt = struct.pack("<HHIIHH", 3, channels, rate, rate * channels * 4, channels * 4, 32)
    path.write_bytes(b"RIFF" + struct.pack("<I", 36 + len(raw)) + b"WAVE" + b"fmt "
                     + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", len(raw)) + raw)
    return path


def _tone(seconds: float, rate: int, hz: float = 440.0) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (0.5 * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def _code(path: Path) -> str:
    with pytest.raises(AudioFileError) as err:
        read_audio(path)
    assert err.value.fix  # every refusal says what to do
    return err.value.code


def test_random_bytes_are_not_audio(tmp_path: Path) -> None:
    path = tmp_path / "noise.wav"
    path.write_bytes(np.random.default_rng(3).bytes(50_000))
    assert _code(path) == "not_audio"


def test_a_header_without_data_and_an_empty_file(tmp_path: Path) -> None:
    whole = _wav16(tmp_path / "ok.wav", _tone(1.0, RATE), RATE).read_bytes()
    (tmp_path / "head.wav").write_bytes(whole[:30])
    assert _code(tmp_path / "head.wav") == "not_audio"
    (tmp_path / "empty.wav").write_bytes(b"")
    assert _code(tmp_path / "empty.wav") == "audio_file_empty"


def test_zero_samples(tmp_path: Path) -> None:
    assert _code(_wav16(tmp_path / "zero.wav", np.zeros(0), RATE)) == "audio_file_no_samples"


def test_a_truncated_file_gives_the_samples_that_are_there(tmp_path: Path) -> None:
    whole = _wav16(tmp_path / "ok.wav", _tone(2.0, RATE), RATE).read_bytes()
    (tmp_path / "cut.wav").write_bytes(whole[: 44 + 2 * RATE])  # 1 s of the 2 s promised
    audio = read_audio(tmp_path / "cut.wav")
    assert len(audio) == RATE and np.abs(audio).max() == pytest.approx(0.5, abs=0.01)


def test_eight_channels_are_mixed_down(tmp_path: Path) -> None:
    tone = _tone(1.0, RATE)
    frames = np.stack([tone] + [np.zeros_like(tone)] * 7, axis=1)
    audio = read_audio(_wav16(tmp_path / "8ch.wav", frames, RATE))
    assert audio.shape == (RATE,) and audio.dtype == np.float32
    assert 0.05 < np.abs(audio).max() <= 1.0


def test_384_khz_is_resampled(tmp_path: Path) -> None:
    audio = read_audio(_wav16(tmp_path / "384k.wav", _tone(1.0, 384_000), 384_000))
    assert abs(len(audio) - RATE) <= 32
    spectrum = np.abs(np.fft.rfft(audio))
    assert np.argmax(spectrum) * RATE / len(audio) == pytest.approx(440, abs=2)


def test_nan_and_infinite_samples_become_silence(tmp_path: Path) -> None:
    tone = _tone(1.0, RATE)
    tone[4000:4400] = np.nan
    tone[9000] = np.inf
    tone[9001] = -np.inf
    audio = read_audio(_wav_float(tmp_path / "nan.wav", tone, RATE))
    assert np.isfinite(audio).all() and len(audio) == RATE
    assert np.abs(audio[4010:4390]).max() < 0.01  # silence where the NaNs were
    assert np.abs(audio[:3900]).max() == pytest.approx(0.5, abs=0.01)  # the rest is intact
    stereo = np.stack([tone, tone], axis=1)
    assert np.isfinite(read_audio(_wav_float(tmp_path / "nan2.wav", stereo, RATE))).all()


def test_only_nan_samples_is_refused(tmp_path: Path) -> None:
    path = _wav_float(tmp_path / "allnan.wav", np.full(RATE, np.nan, np.float32), RATE)
    assert _code(path) == "audio_not_finite"


def test_a_two_hour_file_is_refused_without_being_loaded(tmp_path: Path) -> None:
    path = tmp_path / "two_hours.wav"
    with wave.open(str(path), "wb") as out:  # 8 kHz, 8-bit: 57.6 MB on disk
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(8000)
        minute = np.full(8000 * 60, 128, np.uint8).tobytes()
        for _ in range(120):
            out.writeframes(minute)
    tracemalloc.start()
    try:
        with pytest.raises(AudioFileError) as err:
            read_audio(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert err.value.code == "audio_too_long"
    assert "2 h 0 min" in err.value.message and "ffmpeg" in err.value.fix
    assert peak < 5_000_000  # refused from the header: nothing decoded (2 h would be 460 MB)


def test_a_header_that_claims_4_gb_is_read_by_what_is_there(tmp_path: Path) -> None:
    whole = bytearray(_wav16(tmp_path / "ok.wav", _tone(3.0, RATE), RATE).read_bytes())
    whole[4:8] = whole[40:44] = struct.pack("<I", 0xFFFFFFFF)  # a streamed WAV's header
    (tmp_path / "stream.wav").write_bytes(bytes(whole))
    assert len(read_audio(tmp_path / "stream.wav")) == 3 * RATE


def test_the_length_limit_is_a_parameter(tmp_path: Path) -> None:
    path = _wav16(tmp_path / "five.wav", _tone(5.0, RATE), RATE)
    with pytest.raises(AudioFileError, match="audio_too_long"):
        read_audio(path, max_seconds=2.0)
    assert len(read_audio(path, max_seconds=MAX_AUDIO_S)) == 5 * RATE


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(payload=st.binary(min_size=1, max_size=4096), header=st.booleans(),
       fmt=st.sampled_from([1, 3]), channels=st.integers(1, 8),
       rate=st.sampled_from([8000, 16000, 44100, 384000]))
def test_any_bytes_give_audio_or_a_clear_error(tmp_path: Path, payload: bytes, header: bool,
                                               fmt: int, channels: int, rate: int) -> None:
    width = 4 if fmt == 3 else 2
    if header:
        head = struct.pack("<HHIIHH", fmt, channels, rate, rate * channels * width,
                           channels * width, 8 * width)
        payload = (b"RIFF" + struct.pack("<I", 36 + len(payload)) + b"WAVE" + b"fmt "
                   + struct.pack("<I", 16) + head + b"data" + struct.pack("<I", len(payload))
                   + payload)
    path = tmp_path / "fuzz.wav"
    path.write_bytes(payload)
    try:
        audio = read_audio(path)
    except AudioFileError as err:
        assert err.code in {"not_audio", "audio_file_no_samples", "audio_not_finite"}
        return
    assert audio.dtype == np.float32 and audio.ndim == 1 and len(audio) > 0
    assert np.isfinite(audio).all() and np.abs(audio).max() <= 1.0


@pytest.mark.parametrize("name", ["noise", "allnan", "two_hours"])
def test_ask_wav_says_what_is_wrong_without_a_traceback(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.wav"
    if name == "noise":
        path.write_bytes(np.random.default_rng(5).bytes(20_000))
    elif name == "allnan":
        _wav_float(path, np.full(RATE, np.nan, np.float32), RATE)
    else:
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(1)
            out.setframerate(8000)
            out.writeframes(bytes(8000 * 60 * 120))
    proc = subprocess.run([sys.executable, "-m", "desktop_agent.cli", "ask", "--wav", str(path)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "DESKTOP_AGENT_CONFIG_DIR": str(tmp_path)})
    assert proc.returncode == 1
    assert proc.stderr.startswith("[") and "Fix:" in proc.stderr
    assert "Traceback" not in proc.stderr
