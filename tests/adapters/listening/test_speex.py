"""The speexdsp ctypes binding on real speech through a synthetic echo path."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_agent.adapters.listening import speex
from desktop_agent.adapters.listening.speex import EchoPath, SpeexEchoCanceller, SpeexPreprocessor
from desktop_agent.audio.frames import float32_to_int16
from desktop_agent.core.errors import DeviceError
from desktop_agent.devtools.simulate import room_echo
from tests.audio.speech import synth_16k

FS = 16_000


def _erle_db(mic: np.ndarray, out: np.ndarray, start_s: float, end_s: float) -> float:
    s = slice(int(start_s * FS), int(end_s * FS))
    m = mic[s].astype(np.float64)
    o = out[s].astype(np.float64)
    return float(10 * np.log10(np.mean(m**2) / max(np.mean(o**2), 1e-20)))


@pytest.fixture(scope="session")
def echo_scene() -> tuple[np.ndarray, np.ndarray]:
    """(far int16, mic int16): 13 s of speech and its echo plus a little sensor noise."""
    speech = np.asarray(synth_16k())
    far = np.concatenate([speech, speech])
    rng = np.random.default_rng(7)
    mic = room_echo(far) + rng.standard_normal(len(far)) * 10 ** (-70 / 20)
    return float32_to_int16(far), float32_to_int16(mic)


def test_linear_filter_cancels_at_least_15_db_after_convergence(echo_scene) -> None:
    far, mic = echo_scene
    aec = SpeexEchoCanceller(filter_ms=200, residual_suppression=False)
    out = aec.process_signal(mic, far)
    aec.close()
    first = _erle_db(mic, out, 0.0, 1.0)
    steady = _erle_db(mic, out, 6.0, len(out) / FS)
    assert steady >= 15.0, f"steady ERLE {steady:.1f} dB"
    assert steady > first + 5.0, "the filter should adapt: later ERLE beats the first second"


def test_residual_suppression_adds_to_the_linear_filter(echo_scene) -> None:
    far, mic = echo_scene
    lin = SpeexEchoCanceller(residual_suppression=False).process_signal(mic, far)
    res = SpeexEchoCanceller(residual_suppression=True).process_signal(mic, far)
    end = len(res) / FS
    assert _erle_db(mic, res, 6.0, end) > _erle_db(mic, lin, 6.0, end) + 3.0


def test_near_end_alone_passes_through_nearly_unchanged() -> None:
    speech = float32_to_int16(np.asarray(synth_16k()) * 0.5)
    silence = np.zeros_like(speech)
    aec = SpeexEchoCanceller(residual_suppression=False)
    out = aec.process_signal(speech, silence)
    change = _erle_db(speech[: len(out)], out, 1.0, len(out) / FS)
    assert abs(change) < 1.0, f"near-end level changed by {change:.2f} dB with no far end"


def test_frame_validation_and_close() -> None:
    aec = SpeexEchoCanceller()
    with pytest.raises(ValueError):
        aec.process(np.zeros(100, np.int16), np.zeros(160, np.int16))
    with pytest.raises(TypeError):
        aec.process(np.zeros(160, np.float32), np.zeros(160, np.int16))
    aec.reset()
    assert aec.process(np.zeros(160, np.int16), np.zeros(160, np.int16)).dtype == np.int16
    aec.close()
    aec.close()  # idempotent
    with pytest.raises(DeviceError) as err:
        aec.process(np.zeros(160, np.int16), np.zeros(160, np.int16))
    assert err.value.code == "speexdsp_closed"


def test_preprocessor_denoises_white_noise() -> None:
    rng = np.random.default_rng(3)
    noise = float32_to_int16(rng.standard_normal(FS * 3) * 0.05)
    pre = SpeexPreprocessor(denoise=True, noise_suppress_db=-20)
    out = np.concatenate([pre.process(noise[i : i + 160]) for i in range(0, len(noise), 160)])
    pre.close()
    assert _erle_db(noise, out, 2.0, 3.0) > 8.0


def test_missing_library_is_a_typed_error() -> None:
    with pytest.raises(DeviceError) as err:
        speex.load_speexdsp("libspeexdsp-does-not-exist.so.9")
    assert err.value.code == "speexdsp_missing"
    assert "apt-get install libspeexdsp1" in err.value.fix


def test_echo_path_erle_estimate_tracks_attenuation() -> None:
    rng = np.random.default_rng(5)
    path = EchoPath(time_constant_s=0.5)
    silent = np.zeros(160, np.int16)
    assert path.update(silent, silent, silent) is None  # far end never active yet
    for _ in range(300):
        far = float32_to_int16(rng.standard_normal(160) * 0.1)
        near = float32_to_int16(rng.standard_normal(160) * 0.1)
        out = float32_to_int16(near.astype(np.float32) / 32768 * 0.1)  # 20 dB less
        path.update(near, out, far)
    assert path.erle_db == pytest.approx(20.0, abs=0.5)
    # Frames without far-end activity do not move the estimate.
    before = path.erle_db
    path.update(float32_to_int16(rng.standard_normal(160) * 0.3), silent, silent)
    assert path.erle_db == before
