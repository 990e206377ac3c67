"""Reading any audio file into 16 kHz mono float32, and writing WAV files."""

from __future__ import annotations

import wave
from pathlib import Path
from typing import Any

from desktop_agent.core.errors import AudioFileError
from desktop_agent.core.ports import ASR_SAMPLE_RATE


def read_audio(path: Path, sample_rate: int = ASR_SAMPLE_RATE) -> Any:
    """Decode ``path`` (any rate, any channel count, WAV/FLAC/MP3/OGG...) to mono float32.

    Raises:
        AudioFileError: the file is missing, empty, not audio, or holds no samples.
    """
    import numpy as np

    path = Path(path)
    if not path.is_file():
        raise AudioFileError("audio_file_missing", f"{path} does not exist.",
                             "Check the path of the audio file.")
    if path.stat().st_size == 0:
        raise AudioFileError("audio_file_empty", f"{path} is empty.", "Record the question again.")
    try:
        import av
    except ImportError as exc:  # faster-whisper depends on PyAV
        raise AudioFileError("audio_decoder_missing", "PyAV is not installed.",
                             "Run scripts/setup.sh.") from exc
    try:
        with av.open(str(path), metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise AudioFileError("not_audio", f"{path} has no audio stream.",
                                     "Give a WAV (or FLAC/MP3/OGG) recording of speech.")
            resampler = av.AudioResampler(format="s16", layout="mono", rate=sample_rate)
            pieces = []
            for frame in container.decode(audio=0):
                for out in resampler.resample(frame):
                    pieces.append(out.to_ndarray().reshape(-1))
            for out in resampler.resample(None):
                pieces.append(out.to_ndarray().reshape(-1))
    except AudioFileError:
        raise
    except Exception as exc:  # av.error.InvalidDataError and friends
        raise AudioFileError(
            "not_audio", f"{path} is not a readable audio file ({exc.__class__.__name__}: {exc}).",
            "Give a WAV (or FLAC/MP3/OGG) recording of speech.") from exc
    if not pieces:
        raise AudioFileError("audio_file_no_samples", f"{path} holds no audio samples.",
                             "Record the question again.")
    return np.concatenate(pieces).astype(np.float32) / 32768.0


def write_wav(path: Path, samples: Any, sample_rate: int) -> None:
    """Write int16 (or float in [-1, 1]) mono ``samples`` as a 16-bit WAV, atomically."""
    import numpy as np

    data = np.asarray(samples)
    if data.dtype != np.int16:
        data = (np.clip(data, -1.0, 1.0) * 32767).astype(np.int16)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with wave.open(str(tmp), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(int(sample_rate))
            out.writeframes(data.tobytes())
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise AudioFileError("audio_write_failed", f"Cannot write {path}: {exc.strerror}.",
                             "Choose a writable output path.") from exc
