"""Reading any audio file into 16 kHz mono float32, and writing WAV files.

Hostile input (tests/fuzz/test_audio_files_fuzz.py): random bytes, a header with no data, a
file with 0 samples -> a clear ``AudioFileError``; a truncated file -> the samples that are
there; any channel count and any rate (8 channels, 384 kHz) -> mixed down and resampled;
NaN or infinite float samples -> silence in their place (a file with nothing else is refused:
``audio_not_finite``); longer than ``MAX_AUDIO_S`` (a spoken question, not a 2-hour
recording) -> refused before decoding when the header says so (``audio_too_long``), and
decoding stops there when the header lies, so memory and time stay bounded (10 minutes at
16 kHz is 38 MB of float32).
"""

from __future__ import annotations

import wave
from pathlib import Path
from typing import Any, Final

from desktop_agent.core.errors import AudioFileError
from desktop_agent.core.ports import ASR_SAMPLE_RATE

MAX_AUDIO_S: Final = 600.0
"""Longest audio ``read_audio`` accepts by default (seconds)."""

_FLOAT_FORMATS: Final = frozenset({"flt", "fltp", "dbl", "dblp"})


def _too_long(path: Path, seconds: float, max_s: float) -> AudioFileError:
    return AudioFileError(
        "audio_too_long",
        f"{path} is {_duration(seconds)} long; at most {_duration(max_s)} of audio is read "
        "(a spoken question, not a long recording).",
        f"Cut the recording to the part you want, e.g. ffmpeg -i {path.name} -t "
        f"{int(max_s)} short.wav.")


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def _finite(frame: Any, av: Any, np: Any) -> tuple[Any, int, int]:
    """``frame`` with NaN/inf samples replaced by 0, the count replaced, and its size."""
    if frame.format.name not in _FLOAT_FORMATS:
        return frame, 0, frame.samples
    data = frame.to_ndarray()
    bad = ~np.isfinite(data)
    n_bad = int(bad.sum())
    if not n_bad:
        return frame, 0, data.size
    clean = av.AudioFrame.from_ndarray(np.where(bad, 0, data).astype(data.dtype),
                                       format=frame.format.name, layout=frame.layout.name)
    clean.sample_rate, clean.pts, clean.time_base = frame.sample_rate, frame.pts, frame.time_base
    return clean, n_bad, data.size


def read_audio(path: Path, sample_rate: int = ASR_SAMPLE_RATE,
               max_seconds: float = MAX_AUDIO_S) -> Any:
    """Decode ``path`` (any rate, any channel count, WAV/FLAC/MP3/OGG...) to mono float32.

    Args:
        path: The audio file.
        sample_rate: The rate of the result (Hz).
        max_seconds: Longer files are refused (the header is checked first; decoding stops
            at the limit when it lies).

    Raises:
        AudioFileError: the file is missing, empty, not audio, holds no samples, holds only
            NaN/infinite samples, or is longer than ``max_seconds``.
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
            if container.duration is not None and container.duration / 1e6 > max_seconds:
                raise _too_long(path, container.duration / 1e6, max_seconds)
            resampler = av.AudioResampler(format="s16", layout="mono", rate=sample_rate)
            pieces = []
            limit = int(max_seconds * sample_rate)
            held = bad = total = 0
            for frame in container.decode(audio=0):
                frame, n_bad, n_all = _finite(frame, av, np)
                bad, total = bad + n_bad, total + n_all
                for out in resampler.resample(frame):
                    pieces.append(out.to_ndarray().reshape(-1))
                    held += pieces[-1].size
                if held > limit:  # the header lied about the length: stop, bounded
                    raise _too_long(path, held / sample_rate, max_seconds)
            for out in resampler.resample(None):
                pieces.append(out.to_ndarray().reshape(-1))
    except AudioFileError:
        raise
    except Exception as exc:  # av.error.InvalidDataError and friends
        raise AudioFileError(
            "not_audio", f"{path} is not a readable audio file ({exc.__class__.__name__}: {exc}).",
            "Give a WAV (or FLAC/MP3/OGG) recording of speech.") from exc
    if total and bad == total:
        raise AudioFileError("audio_not_finite",
                             f"{path} holds no valid samples (every one is NaN or infinite).",
                             "Export the recording again from the program that made it.")
    if not pieces or not sum(p.size for p in pieces):
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
