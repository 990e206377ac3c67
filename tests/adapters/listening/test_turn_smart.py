"""Smart Turn v3.2 on real recordings, and through the real capture pipeline.

The recordings are Debian's ``asterisk-core-sounds-en-wav`` (Allison Smith's IVR prompts,
8 kHz, CC-BY-SA-3.0). Over its 358 top-level prompts the model scores most of them
complete (median 0.94): many fragments were recorded with a falling, finished-sounding
end. The examples below are the ones with a wide margin: complete sentences at >= 0.97,
fragments that stop mid-sentence ("the number i have is", "you have") at <= 0.2.
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from desktop_agent.audio.resample import resample
from desktop_agent.core.errors import ModelError
from tests.needs import unavailable

SOUNDS = Path("/usr/share/asterisk/sounds/en_US_f_Allison")
FS = 16_000
COMPLETE = ("all-circuits-busy-now", "cannot-complete-as-dialed", "check-number-dial-again")
"""All circuits are busy now. / Your call cannot be completed as dialed. / Please check the
number and dial again."""
UNFINISHED = ("vm-num-i-have", "vm-youhave", "if-correct-press")
"""the number i have is / you have / If this is correct, press..."""


def _skip_or_fail(what: str, why: str) -> None:
    unavailable(what, why)


@pytest.fixture(scope="module")
def smart_turn():  # type: ignore[no-untyped-def]
    from desktop_agent.adapters.listening.turn_smart import SmartTurn
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest

    try:
        return SmartTurn(ModelResolver(load_manifest()).resolve("", "turn").path)
    except ModelError as exc:
        _skip_or_fail("the Smart Turn model", f"[{exc.code}] {exc.message} {exc.fix}")


def prompt(name: str) -> np.ndarray:
    """A prompt at 16 kHz, trimmed to its speech (35 dB below its peak), float32."""
    path = SOUNDS / f"{name}.wav"
    if not path.is_file():
        _skip_or_fail("the real recordings",
                      f"{path} is missing: apt-get install asterisk-core-sounds-en-wav")
    with wave.open(str(path)) as w:
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32) / 32768
    x = resample(x, rate, FS)
    env = np.abs(x) > np.max(np.abs(x)) * 10 ** (-35 / 20)
    idx = np.flatnonzero(env)
    return x[idx[0]:idx[-1] + 1]


def _with_silence(x: np.ndarray, seconds: float) -> np.ndarray:
    return np.concatenate([x, np.zeros(int(seconds * FS), np.float32)])


def test_a_complete_sentence_scores_high_a_fragment_low(smart_turn) -> None:  # type: ignore[no-untyped-def]
    # What the pipeline asks: the turn followed by the 0.2 s of silence that triggered it.
    done = {n: smart_turn.probability(_with_silence(prompt(n), 0.2)) for n in COMPLETE}
    cut = {n: smart_turn.probability(_with_silence(prompt(n), 0.2)) for n in UNFINISHED}
    assert min(done.values()) >= 0.9, done
    assert max(cut.values()) <= 0.35, cut
    assert all(0.0 <= p <= 1.0 for p in (*done.values(), *cut.values()))


def test_only_the_last_8_s_count_and_int16_is_accepted(smart_turn) -> None:  # type: ignore[no-untyped-def]
    turn = _with_silence(prompt("vm-num-i-have"), 0.2)
    rng = np.random.default_rng(3)
    before = (0.1 * rng.standard_normal(10 * FS)).astype(np.float32)  # 10 s of anything
    tail = np.concatenate([before, turn])[-8 * FS:]
    assert smart_turn.probability(np.concatenate([before, turn])) == pytest.approx(
        smart_turn.probability(tail), abs=1e-6)
    assert smart_turn.features(turn).shape == (80, 800)
    as_int16 = (turn * 32767).astype(np.int16)
    assert smart_turn.probability(as_int16) == pytest.approx(smart_turn.probability(turn),
                                                             abs=0.02)


def test_missing_model_is_a_clear_error_and_the_app_goes_on_without(tmp_path: Path) -> None:
    from desktop_agent.adapters.listening.turn_smart import SmartTurn, load_turn_detector
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest

    with pytest.raises(ModelError) as err:
        SmartTurn(tmp_path / "smart-turn-v3.2-cpu.onnx")
    assert err.value.code == "turn_model_missing"
    assert "requirements-default.txt" in err.value.fix and "without it" in err.value.fix
    (tmp_path / "bad.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelError) as err:
        SmartTurn(tmp_path / "bad.onnx")
    assert err.value.code == "turn_model_corrupt"
    # No package installed: the resolver says model_missing, the loader returns None.
    nowhere = ModelResolver(load_manifest(), data_dir=tmp_path, module_dir=lambda m: None)
    assert load_turn_detector(nowhere) is None


def _endpoint_after_speech_s(smart_turn, audio: np.ndarray, silence_s: float) -> float | None:  # type: ignore[no-untyped-def]
    """Seconds from the end of ``audio``'s speech to SPEECH_ENDED, through the real
    capture pipeline (Silero VAD, no echo canceller) with ``silence_s`` from the
    transcript rule; None when the turn never ended."""
    from desktop_agent.adapters.listening.vad_silero import SileroVad
    from desktop_agent.audio.capture import CapturePipeline
    from desktop_agent.core.listening.segmenter import SegmentEvent

    pipe = CapturePipeline(SileroVad(), turn_detector=smart_turn)
    pipe.silence_s = silence_s
    lead = np.zeros(FS // 2, np.float32)
    x = np.concatenate([lead, audio, np.zeros(3 * FS, np.float32)])
    speech_end = len(lead) + len(audio)
    for i in range(0, len(x), 160):  # 10 ms blocks, as the capture worker delivers them
        for event in pipe.process(x[i:i + 160]):
            if event.kind is SegmentEvent.SPEECH_ENDED:
                return (event.detected_sample - speech_end) / FS
    return None


def test_the_pipeline_ends_a_finished_turn_early_and_waits_for_a_fragment(smart_turn) -> None:  # type: ignore[no-untyped-def]
    # The transcript rule says "complete sentence" (0.5 s) in both cases.
    done = _endpoint_after_speech_s(smart_turn, prompt("check-number-dial-again"), 0.5)
    cut = _endpoint_after_speech_s(smart_turn, prompt("vm-num-i-have"), 0.5)
    without = _endpoint_after_speech_s(None, prompt("check-number-dial-again"), 0.5)
    assert done is not None and cut is not None and without is not None
    # Silero's tail (~0.1 s) + the 0.224 s probe, against + 0.5 s without the model.
    assert done < without - 0.2, (done, without)
    assert cut >= 1.0, cut  # the model heard more to come: the longer wait
