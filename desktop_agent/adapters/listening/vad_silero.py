"""Silero VAD v6 (the ONNX file shipped inside faster-whisper) as a streaming ``VadEngine``.

The model takes one 32 ms frame (512 samples at 16 kHz) prefixed with the last 64
samples of the previous frame (the "context"), plus the LSTM state ``h`` and ``c``
(each [1, 1, 128]); it returns the speech probability and the next state. This is
exactly how ``faster_whisper/vad.py`` feeds it in batch, done one frame at a time.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from desktop_agent.core.errors import ModelError
from desktop_agent.core.ports import ASR_SAMPLE_RATE

_LOGGER = logging.getLogger(__name__)

FRAME_SAMPLES: Final = 512
"""32 ms at 16 kHz: the only frame size the v6 model accepts at this rate."""
CONTEXT_SAMPLES: Final = 64
_STATE_SHAPE: Final = (1, 1, 128)
_MODEL_FILE: Final = "silero_vad_v6.onnx"
_FIX: Final = "Reinstall faster-whisper: pip install --force-reinstall faster-whisper==1.2.1"


def default_model_path() -> Path:
    """Where faster-whisper keeps its Silero VAD v6 model.

    Raises:
        ModelError: ``vad_model_missing`` when faster-whisper is not installed.
    """
    try:
        import faster_whisper
    except ImportError as exc:
        raise ModelError(
            "vad_model_missing",
            "faster-whisper (which ships the Silero VAD model) is not installed.",
            _FIX,
        ) from exc
    return Path(os.path.dirname(faster_whisper.__file__)) / "assets" / _MODEL_FILE


class SileroVad:
    """Streaming voice-activity detection, implementing ``core.ports.VadEngine``.

    Runs on: one worker thread (the state carried between frames makes it
    single-stream and not thread-safe). One intra-op and one inter-op thread,
    so it never competes with ASR/LLM/TTS for the two cores.
    """

    frame_samples: int = FRAME_SAMPLES

    def __init__(self, model_path: str | os.PathLike[str] | None = None) -> None:
        """Load the model.

        Args:
            model_path: the .onnx file; faster-whisper's copy by default.

        Raises:
            ModelError: ``vad_model_missing`` / ``vad_model_corrupt`` naming the file and the fix.
        """
        path = Path(model_path) if model_path is not None else default_model_path()
        self.model_path = path
        if not path.is_file():
            raise ModelError("vad_model_missing", f"The VAD model {path} does not exist.", _FIX)
        try:
            import onnxruntime
        except ImportError as exc:
            raise ModelError(
                "onnxruntime_missing",
                "onnxruntime (needed for the VAD) is not installed.",
                "pip install onnxruntime==1.32.0",
            ) from exc
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.enable_cpu_mem_arena = False
        opts.log_severity_level = 4
        try:
            self._session = onnxruntime.InferenceSession(
                str(path), sess_options=opts, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelError(
                "vad_model_corrupt", f"The VAD model {path} could not be loaded ({exc}).", _FIX
            ) from exc
        names = {i.name for i in self._session.get_inputs()}
        if names != {"input", "h", "c"}:
            raise ModelError(
                "vad_model_corrupt",
                f"The VAD model {path} has inputs {sorted(names)}, expected input, h, c "
                "(Silero VAD v6 as shipped by faster-whisper).",
                _FIX,
            )
        self.reset()

    def reset(self) -> None:
        """Forget the recurrent state and the context (start of a new stream)."""
        self._h = np.zeros(_STATE_SHAPE, dtype=np.float32)
        self._c = np.zeros(_STATE_SHAPE, dtype=np.float32)
        self._context = np.zeros(CONTEXT_SAMPLES, dtype=np.float32)

    def speech_probability(self, frame: Any) -> float:
        """Probability in [0, 1] that ``frame`` is speech.

        Args:
            frame: 512 samples at 16 kHz, float32 in [-1, 1] (int16 is converted).

        Raises:
            ValueError: for a frame of the wrong length.
        """
        x = np.asarray(frame).reshape(-1)
        if x.dtype == np.int16:
            x = x.astype(np.float32) / 32768.0
        x = x.astype(np.float32, copy=False)
        if len(x) != FRAME_SAMPLES:
            raise ValueError(f"Silero VAD needs {FRAME_SAMPLES}-sample frames, got {len(x)}")
        batch = np.concatenate([self._context, x])[np.newaxis, :]
        prob, self._h, self._c = self._session.run(
            None, {"input": batch, "h": self._h, "c": self._c}
        )
        self._context = x[-CONTEXT_SAMPLES:].copy()
        return float(np.asarray(prob).reshape(-1)[0])

    def probabilities(self, audio: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """Run a whole 16 kHz signal frame by frame (trailing partial frame dropped).

        Continues from the current state; call :meth:`reset` first for a new stream.
        """
        x = np.asarray(audio).reshape(-1)
        n = len(x) // FRAME_SAMPLES
        return np.array(
            [self.speech_probability(x[i * FRAME_SAMPLES : (i + 1) * FRAME_SAMPLES])
             for i in range(n)],
            dtype=np.float32,
        )


SAMPLE_RATE: Final = ASR_SAMPLE_RATE
"""The rate ``FRAME_SAMPLES`` assumes."""
