"""Silero VAD v6 through onnxruntime, on real speech and on noise."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_agent.adapters.listening.vad_silero import FRAME_SAMPLES, SileroVad
from desktop_agent.core.errors import ModelError
from tests.audio.speech import synth_16k

FS = 16_000


@pytest.fixture(scope="module")
def vad() -> SileroVad:
    return SileroVad()


def _pink(n: int, rng: np.random.Generator) -> np.ndarray:
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.arange(len(spec), dtype=np.float64)
    f[0] = 1.0
    x = np.fft.irfft(spec / np.sqrt(f), n)
    return x / np.max(np.abs(x))


def test_speech_gives_high_probability_frames(vad: SileroVad) -> None:
    vad.reset()
    probs = vad.probabilities(synth_16k())
    assert (probs > 0.5).mean() > 0.6, f"speech frames: {(probs > 0.5).mean():.2f}"
    assert probs.max() > 0.9


@pytest.mark.parametrize("kind", ["silence", "white", "pink"])
def test_no_speech_in_silence_or_noise(vad: SileroVad, kind: str) -> None:
    rng = np.random.default_rng(11)
    n = FS * 4
    signal = {
        "silence": np.zeros(n),
        "white": rng.standard_normal(n) * 0.1,
        "pink": _pink(n, rng) * 0.3,
    }[kind].astype(np.float32)
    vad.reset()
    probs = vad.probabilities(signal)
    assert (probs > 0.5).mean() <= 0.02, f"{kind}: {(probs > 0.5).mean():.2f} frames > 0.5"


def test_streaming_matches_faster_whisper_batch_and_reset_restarts(vad: SileroVad) -> None:
    from faster_whisper.vad import get_vad_model

    x = np.asarray(synth_16k())
    x = x[: len(x) // FRAME_SAMPLES * FRAME_SAMPLES].copy()
    vad.reset()
    streamed = vad.probabilities(x)
    batch = get_vad_model()(x.copy()).reshape(-1)
    np.testing.assert_allclose(streamed, batch, atol=5e-3)
    vad.reset()
    np.testing.assert_allclose(vad.probabilities(x[: 20 * FRAME_SAMPLES]), streamed[:20], atol=1e-6)


def test_int16_frames_and_wrong_length(vad: SileroVad) -> None:
    vad.reset()
    assert 0.0 <= vad.speech_probability(np.zeros(FRAME_SAMPLES, np.int16)) <= 1.0
    with pytest.raises(ValueError):
        vad.speech_probability(np.zeros(480, np.float32))


def test_missing_model_names_file_and_fix(tmp_path) -> None:
    missing = tmp_path / "silero_vad_v6.onnx"
    with pytest.raises(ModelError) as err:
        SileroVad(missing)
    assert err.value.code == "vad_model_missing"
    assert str(missing) in err.value.message
    assert "faster-whisper==1.2.1" in err.value.fix


def test_corrupt_model_is_a_model_error(tmp_path) -> None:
    bad = tmp_path / "silero_vad_v6.onnx"
    bad.write_bytes(b"\x08\x07not a protobuf" * 10)
    with pytest.raises(ModelError) as err:
        SileroVad(bad)
    assert err.value.code == "vad_model_corrupt"
    assert str(bad) in err.value.message
