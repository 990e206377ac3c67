"""Smart Turn v3.2 (pipecat's audio end-of-turn model, ONNX) as a ``TurnDetector``.

The model hears the last 8 s of the user's turn (16 kHz; a shorter turn is zero-padded
at the start) as Whisper log-mel features: 80 mels x 800 frames, 25 ms windows every
10 ms, the waveform first normalised to zero mean and unit variance (transformers'
``WhisperFeatureExtractor(chunk_length=8, do_normalize=True)``, which pipecat's
``local_smart_turn_v3.py`` reproduces in numpy; faster-whisper's ``FeatureExtractor``
computes the same spectrogram to within 3e-6). Input ``input_features`` [1, 80, 800];
output ``logits`` [1, 1], already a sigmoid probability that the turn is complete.

The .onnx file ships inside the ``pipecat-ai`` wheel (installed with ``--no-deps``); it is
loaded by path and the pipecat package is never imported.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Final

import numpy as np

from desktop_agent.core.errors import ModelError
from desktop_agent.core.ports import ASR_SAMPLE_RATE

_LOGGER = logging.getLogger(__name__)

WINDOW_S: Final = 8
"""Seconds of audio the model hears (the end of the turn)."""
N_MELS: Final = 80
_WINDOW_SAMPLES: Final = WINDOW_S * ASR_SAMPLE_RATE
_NORM_EPS: Final = 1e-7
_INPUT: Final = "input_features"
_FIX: Final = ("Install it: pip install --no-deps --require-hashes -r "
               "models/requirements-default.txt (it carries pipecat-ai==1.14.0, which ships "
               "the model), or run scripts/setup.sh. Hands-free turns still work without it "
               "(the transcript rule alone decides when you finished).")


class SmartTurn:
    """Smart Turn v3.2 end-of-turn model, implementing ``core.listening.endpointing.TurnDetector``.

    Runs on: the capture worker thread (one call at a time; ~50 ms each on one core).
    One intra-op and one inter-op thread, sequential execution, so it never takes a
    second core from ASR or the LLM.
    """

    def __init__(self, model_path: str | os.PathLike[str]) -> None:
        """Load the model.

        Args:
            model_path: the ``smart-turn-v3.2-cpu.onnx`` file.

        Raises:
            ModelError: ``turn_model_missing`` / ``turn_model_corrupt`` naming the file and
                the fix.
        """
        path = Path(model_path)
        self.model_path = path
        if not path.is_file():
            raise ModelError("turn_model_missing",
                             f"The end-of-turn model {path} does not exist.", _FIX)
        try:
            import onnxruntime
            from faster_whisper.feature_extractor import FeatureExtractor
        except ImportError as exc:
            raise ModelError("turn_model_missing",
                             f"The end-of-turn model needs onnxruntime and faster-whisper "
                             f"({exc.name} is not installed).",
                             "Run scripts/setup.sh (or pip install -e .).") from exc
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 4
        try:
            self._session = onnxruntime.InferenceSession(
                str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelError("turn_model_corrupt",
                             f"The end-of-turn model {path} could not be loaded ({exc}).",
                             _FIX) from exc
        inputs = self._session.get_inputs()
        if [i.name for i in inputs] != [_INPUT] or list(inputs[0].shape[1:]) != [N_MELS, 800]:
            raise ModelError("turn_model_corrupt",
                             f"The end-of-turn model {path} takes "
                             f"{[(i.name, i.shape) for i in inputs]}, expected "
                             f"{_INPUT} [batch, {N_MELS}, 800] (Smart Turn v3).", _FIX)
        self._features = FeatureExtractor(feature_size=N_MELS, chunk_length=WINDOW_S)

    def features(self, audio: Any) -> np.ndarray:
        """Whisper log-mel features [80, 800] of the last 8 s of ``audio`` (16 kHz float)."""
        x = np.asarray(audio, dtype=np.float32).reshape(-1)[-_WINDOW_SAMPLES:]
        x = np.pad(x, (_WINDOW_SAMPLES - len(x), 0))  # a short turn: silence before it
        x = (x - x.mean()) / np.sqrt(x.var() + _NORM_EPS)
        feats = self._features(x.astype(np.float32), padding=0)
        return np.asarray(feats, dtype=np.float32)

    def probability(self, audio: Any) -> float:
        """Probability in [0, 1] that the turn in ``audio`` is complete.

        Args:
            audio: the turn so far, 16 kHz mono float32 in [-1, 1] (int16 is converted),
                ending with the silence heard since the last word; only the last 8 s
                count.
        """
        x = np.asarray(audio).reshape(-1)
        if x.dtype == np.int16:
            x = x.astype(np.float32) / 32768.0
        (out,) = self._session.run(None, {_INPUT: self.features(x)[np.newaxis]})
        return float(np.asarray(out).reshape(-1)[0])


def load_turn_detector(resolver: Any = None) -> SmartTurn | None:
    """The default end-of-turn model, or None (with a warning) when it is not installed.

    Hands-free mode works without it: the transcript rule alone ends turns.

    Args:
        resolver: a ``ModelResolver`` (the project manifest's by default).
    """
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest

    try:
        model = (resolver or ModelResolver(load_manifest())).resolve("", "turn")
        return SmartTurn(model.path)
    except ModelError as exc:
        _LOGGER.warning("end-of-turn model unavailable [%s] %s %s", exc.code, exc.message,
                        exc.fix)
        return None
