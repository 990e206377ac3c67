"""ASR with faster-whisper (CTranslate2), int8 on the CPU, strictly local files."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from desktop_agent.adapters.offline import import_or_hint
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AsrError, ModelError
from desktop_agent.core.ports import ASR_SAMPLE_RATE, Transcript, TranscriptSegment

_LOGGER = logging.getLogger(__name__)


class WhisperAsr:
    """faster-whisper behind core.ports.AsrEngine.

    Args:
        model_dir: A faster-whisper CTranslate2 folder (model.bin, config.json, tokenizer).
        cpu_threads: Threads for CTranslate2. Two cores: the LLM and TTS need the rest.
        language: Forced language ('en'); None lets multilingual models detect it.
        beam_size: 1 (greedy) keeps latency low; partials always use 1.
    """

    def __init__(
        self,
        model_dir: Path,
        cpu_threads: int = 2,
        language: str | None = "en",
        beam_size: int = 1,
    ) -> None:
        fw = import_or_hint("faster_whisper", "faster-whisper==1.2.1")
        self.model_dir = Path(model_dir)
        self.language = language
        self.beam_size = beam_size
        try:
            self._model = fw.WhisperModel(
                str(self.model_dir),
                device="cpu",
                compute_type="int8",
                cpu_threads=cpu_threads,
                num_workers=1,
                local_files_only=True,
            )
        except Exception as exc:  # CTranslate2 raises RuntimeError/ValueError/OSError
            raise ModelError(
                "asr_load_failed",
                f"Whisper could not load {self.model_dir}: {exc}.",
                "Check that the folder is a complete faster-whisper CTranslate2 model "
                "(run `desktop-agent doctor`), or choose another ASR model in Settings.",
            ) from exc
        self._multilingual = bool(getattr(self._model.model, "is_multilingual", False))

    def transcribe(self, audio: Any, cancel: CancelToken | None = None) -> Transcript:
        """Transcribe float32 16 kHz mono ``audio``.

        Runs on: the ASR worker thread. The segment generator is lazy: decoding happens
        while iterating, so a cancel between segments stops the work.
        """
        import numpy as np

        samples = np.ascontiguousarray(audio, dtype=np.float32).reshape(-1)
        duration = len(samples) / ASR_SAMPLE_RATE
        if duration < 0.1:
            return Transcript(text="", segments=(), audio_s=duration)
        try:
            segments, _info = self._model.transcribe(
                samples,
                language=self.language if self._multilingual else None,
                beam_size=self.beam_size,
                condition_on_previous_text=False,
                without_timestamps=True,
                vad_filter=False,
                temperature=0.0,
            )
            out: list[TranscriptSegment] = []
            for seg in segments:
                out.append(TranscriptSegment(
                    text=seg.text.strip(), start_s=float(seg.start), end_s=float(seg.end),
                    no_speech_prob=float(seg.no_speech_prob), avg_logprob=float(seg.avg_logprob),
                ))
                if cancel is not None and cancel.cancelled:
                    break
        except Exception as exc:
            raise AsrError("asr_failed", f"Whisper failed on {duration:.1f} s of audio: {exc}.",
                           "Try again; if it repeats, run `desktop-agent doctor`.") from exc
        text = " ".join(s.text for s in out if s.text).strip()
        return Transcript(text=text, segments=tuple(out), audio_s=duration)
