"""ASR with faster-whisper (CTranslate2), int8 on the CPU, strictly local files.

Short utterances take a shorter encoder window. Whisper's encoder always sees 30 s of
log-mel frames, most of them padding silence for a spoken question; CTranslate2 accepts a
shorter input, and the encoder's cost falls with it (tiny.en: ~300 ms for 30 s of frames,
~70 ms for 15 s, on two cores). Too short a window makes Whisper loop ("Transfer. Transfer.
..."): with at least ``MIN_PAD_S`` of padding after the speech it stops as it does on 30 s.
Measured on 150 real recorded prompts (Debian's asterisk-core-sounds-en, 0.4-9 s): WER
9.3 % on the full window, 9.6 % on a 15 s one, at a third of the CPU time. Longer audio,
and a window that does not fit, go through faster-whisper's own 30 s path.

Context. ``transcribe(audio, context=...)`` decodes audio that follows words already
transcribed (the words two partial transcripts agreed on, see ``core/listening/partials.py``):
the last ``CONTEXT_TOKENS`` of them go before the start of transcript as Whisper's "previous
text" (``<|startofprev|>``), which the decoder reads in one pass (18 tokens of context added
~38 ms to a tiny.en pass on the loaded 2-core machine, where generating 18 tokens took ~180
ms). The result holds only what the audio adds. Forcing the words as a decoder prefix instead
saves nothing: CTranslate2 runs one decoder step per forced token, as for a generated one
(18 forced of 23 tokens: 254 ms against 227 ms with none forced, same run).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Final

from desktop_agent.adapters.offline import import_or_hint
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AsrError, ModelError
from desktop_agent.core.ports import ASR_SAMPLE_RATE, Transcript, TranscriptSegment

_LOGGER = logging.getLogger(__name__)

SHORT_WINDOW_S: Final = 15.0
"""Encoder window for short utterances, seconds (Whisper's own is 30 s)."""
MIN_PAD_S: Final = 3.0
"""Padding silence the short window keeps after the audio, seconds."""
CONTEXT_TOKENS: Final = 24
"""Tokens of context kept (the newest): enough for the sentence under way (~18 words)."""
NO_SPEECH_THRESHOLD: Final = 0.6
LOG_PROB_THRESHOLD: Final = -1.0
"""faster-whisper's defaults: a window with no_speech_prob above the first and an average
log-probability below the second is silence (its text is dropped)."""


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
        self._short: Any = None

    def transcribe(self, audio: Any, cancel: CancelToken | None = None,
                   context: str = "") -> Transcript:
        """Transcribe float32 16 kHz mono ``audio``.

        ``context``: words said just before ``audio`` (see the module doc); they guide the
        decoder and are not part of the result.

        Runs on: the ASR worker thread. The segment generator is lazy: decoding happens
        while iterating, so a cancel between segments stops the work.
        """
        import numpy as np

        samples = np.ascontiguousarray(audio, dtype=np.float32).reshape(-1)
        duration = len(samples) / ASR_SAMPLE_RATE
        if duration < 0.1:
            return Transcript(text="", segments=(), audio_s=duration)
        if duration + MIN_PAD_S <= SHORT_WINDOW_S:
            if cancel is not None and cancel.cancelled:
                return Transcript(text="", segments=(), audio_s=duration)
            try:
                return self._transcribe_short(samples, duration, context)
            except Exception as exc:
                raise AsrError("asr_failed", f"Whisper failed on {duration:.1f} s of audio: "
                               f"{exc}.", "Try again; if it repeats, run `desktop-agent "
                               "doctor`.") from exc
        try:
            segments, _info = self._model.transcribe(
                samples,
                language=self.language if self._multilingual else None,
                beam_size=self.beam_size,
                condition_on_previous_text=False,
                without_timestamps=True,
                vad_filter=False,
                temperature=0.0,
                initial_prompt=context.strip() or None,
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

    def _transcribe_short(self, samples: Any, duration: float, context: str = "") -> Transcript:
        """One greedy decode over a ``SHORT_WINDOW_S`` encoder window (see the module doc)."""
        import ctranslate2
        import numpy as np

        fw = self._model
        if self._short is None:
            from faster_whisper.tokenizer import Tokenizer
            from faster_whisper.transcribe import get_suppressed_tokens

            tokenizer = Tokenizer(fw.hf_tokenizer, self._multilingual, task="transcribe",
                                  language=self.language if self._multilingual else "en")
            prompt = [*tokenizer.sot_sequence, tokenizer.no_timestamps]
            self._short = (tokenizer, prompt, list(get_suppressed_tokens(tokenizer, (-1,))))
        tokenizer, base_prompt, suppress = self._short
        prompt = base_prompt
        if context.strip():
            previous = tokenizer.encode(" " + context.strip())[-CONTEXT_TOKENS:]
            prompt = [tokenizer.sot_prev, *previous, *base_prompt]
        features = fw.feature_extractor(samples)
        frames = int(SHORT_WINDOW_S * fw.feature_extractor.sampling_rate
                     / fw.feature_extractor.hop_length)
        window = np.zeros((1, features.shape[0], frames), dtype=np.float32)
        used = min(features.shape[1], frames)
        window[0, :, :used] = features[:, :used]
        encoded = fw.model.encode(ctranslate2.StorageView.from_array(window))
        # A spoken sentence is ~3 words/s, ~1.3 tokens a word: 8 tokens/s bounds any real
        # transcript and stops a runaway loop early. CTranslate2 generates at most
        # min(max_length / 2, max_length - prompt read in one pass) tokens: the budget is
        # set so that context does not change it.
        total = len(base_prompt) + 10 + int(duration * 8)
        budget = min(total // 2, total - (len(base_prompt) - 1))
        start_step = len(prompt) - 1
        max_length = min(fw.max_length, max(start_step + budget, 2 * budget))
        result = fw.model.generate(encoded, [prompt], beam_size=self.beam_size,
                                   max_length=max_length, return_scores=True,
                                   return_no_speech_prob=True, suppress_blank=True,
                                   suppress_tokens=suppress)[0]
        tokens = result.sequences_ids[0]
        avg_logprob = result.scores[0] * len(tokens) / (len(tokens) + 1)
        no_speech = float(result.no_speech_prob)
        if no_speech > NO_SPEECH_THRESHOLD and avg_logprob < LOG_PROB_THRESHOLD:
            return Transcript(text="", segments=(), audio_s=duration)
        text = tokenizer.decode(tokens).strip()
        segment = TranscriptSegment(text=text, start_s=0.0, end_s=duration,
                                    no_speech_prob=no_speech, avg_logprob=float(avg_logprob))
        return Transcript(text=text, segments=(segment,) if text else (), audio_s=duration)
