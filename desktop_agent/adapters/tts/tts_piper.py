"""TTS with Piper (ONNX): one chunk per sentence, with word timings from phoneme alignments."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop_agent.adapters.offline import import_or_hint
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import ModelError, TtsError
from desktop_agent.core.ports import SpeechChunk, WordTiming

_LOGGER = logging.getLogger(__name__)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD_SEP = " "


WARM_UP_TEXT = "Okay, ready."
"""Spoken (and dropped) once at load time."""


class PiperTts:
    """Piper behind core.ports.TtsEngine.

    Args:
        model_path: The voice's .onnx (its .onnx.json must sit beside it).
        threads: onnxruntime intra-op threads (explicit: two cores are shared).
        speaking_rate: 1.0 = the voice's natural pace; 1.25 = 25 % faster.
        alignments: Patch the voice in memory to report per-phoneme sample counts
            (needs the ``onnx`` package). Without them word timings are estimated.
        warm: Synthesise a short phrase once at load, off the turn's critical path.
        deterministic: No generator or phoneme-width noise: the same text gives the same
            samples on every call (Piper draws its noise inside the graph, unseeded). For
            tests that speak as the user: a run must not depend on a draw.
    """

    def __init__(
        self,
        model_path: Path,
        threads: int = 1,
        speaking_rate: float = 1.0,
        alignments: bool = True,
        warm: bool = True,
        deterministic: bool = False,
    ) -> None:
        piper = import_or_hint("piper", "piper-tts==1.8.0")
        ort = import_or_hint("onnxruntime", "onnxruntime==1.32.0")
        self.model_path = Path(model_path)
        config_path = Path(f"{self.model_path}.json")
        try:
            config = piper.config.PiperConfig.from_dict(
                json.loads(config_path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError) as exc:
            raise ModelError("tts_load_failed", f"The Piper voice config {config_path} cannot "
                             f"be read ({exc}).", "Reinstall the voice, or choose another in "
                             "Settings.") from exc
        model: Any = str(self.model_path)
        self.aligned = False
        if alignments:
            try:
                import onnx
                from piper.patch_voice_with_alignment import add_alignment_output

                proto = onnx.load(str(self.model_path))
                add_alignment_output(proto)
                model = proto.SerializeToString()
                self.aligned = True
            except ImportError:
                _LOGGER.warning("onnx is not installed: word timings will be estimated")
            except Exception as exc:  # already patched, or an unusual graph
                _LOGGER.info("voice not patched for alignments (%s)", exc)
                self.aligned = "already" in str(exc).lower()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # No memory arena: each clause has its own tensor shapes, and the arena kept the
        # largest of them for good (RSS +200 MiB after a few 200-character clauses, and in the
        # soak a one-time step of +70 MiB at the first long reply). Without it the voice holds
        # ~175 MiB whatever it says (docs/notes/soak.md).
        options.enable_cpu_mem_arena = False
        try:
            session = ort.InferenceSession(model, sess_options=options,
                                           providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise ModelError("tts_load_failed", f"Piper could not load {self.model_path}: {exc}.",
                             "Check the voice file (run `desktop-agent doctor`) or choose "
                             "another voice in Settings.") from exc
        self._voice = piper.PiperVoice(session=session, config=config)
        self._syn = piper.config.SynthesisConfig(length_scale=self._length_scale(speaking_rate))
        if deterministic:  # the voice's noise is drawn anew on every call, inside the graph
            self._syn.noise_scale = self._syn.noise_w_scale = 0.0
        if warm:
            self.warm()

    def warm(self) -> None:
        """Synthesise a word and drop it: onnxruntime allocates its buffers and phonemizes
        once, so the first real clause of the first turn is not the slowest one."""
        for _ in self.synthesize(WARM_UP_TEXT):
            pass

    @property
    def sample_rate(self) -> int:
        """The voice's native rate in Hz (22050 for medium voices)."""
        return int(self._voice.config.sample_rate)

    def set_speaking_rate(self, rate: float) -> None:
        """Change the pace for the next sentences (0.5 .. 2.0)."""
        self._syn.length_scale = self._length_scale(rate)

    def _length_scale(self, rate: float) -> float:
        if not 0.5 <= rate <= 2.0:
            raise TtsError("bad_speaking_rate", f"Speaking rate {rate} is outside 0.5-2.0.")
        return 1.0 / rate

    def synthesize(self, text: str, cancel: CancelToken | None = None) -> Iterator[SpeechChunk]:
        """One SpeechChunk per sentence of ``text``. Runs on: the TTS worker thread."""
        import numpy as np

        for sentence in spoken_sentences(text, cancel):
            try:
                parts = list(self._voice.synthesize(sentence, syn_config=self._syn,
                                                    include_alignments=self.aligned))
            except Exception as exc:
                raise TtsError("tts_failed", f"Piper failed to speak {sentence[:60]!r}: {exc}.",
                               "The text was skipped; try rephrasing.") from exc
            if not parts:
                continue
            audio = np.concatenate([p.audio_int16_array for p in parts]).astype(np.int16)
            words, aligned = _word_timings(sentence, parts)
            yield SpeechChunk(text=sentence, audio=audio, sample_rate=self.sample_rate,
                              words=words, aligned=aligned)


def spoken_sentences(text: str, cancel: CancelToken | None = None) -> Iterator[str]:
    """The sentences of ``text`` that have something to say, until ``cancel`` fires.

    Shared by every voice that speaks a reply sentence by sentence (Piper here, a Wyoming
    server's in adapters/speech_server/tts_wyoming.py).
    """
    for sentence in _SENTENCE_END.split(text.strip()):
        if cancel is not None and cancel.cancelled:
            return
        sentence = sentence.strip()
        if any(ch.isalnum() for ch in sentence):
            yield sentence


def _word_timings(sentence: str, parts: list[Any]) -> tuple[tuple[WordTiming, ...], bool]:
    """Place each word of ``sentence`` in the audio using Piper's phoneme alignments.

    Phoneme words are separated by ' ' phonemes. When their count matches the text's
    words, each text word gets the span of its phonemes; otherwise fall back to a
    proportional estimate by characters.
    """
    words = sentence.split()
    total = sum(len(p.audio_float_array) for p in parts)
    spans: list[tuple[int, int]] = []
    offset = 0
    ok = all(p.phoneme_alignments for p in parts)
    if ok:
        for part in parts:
            pos = offset
            start: int | None = None
            for al in part.phoneme_alignments:
                n = int(al.num_samples)
                if al.phoneme == _WORD_SEP or al.phoneme in ("^", "$"):
                    if start is not None:
                        spans.append((start, pos))
                        start = None
                elif start is None and any(c.isalpha() for c in al.phoneme):
                    start = pos
                pos += n
            if start is not None:
                spans.append((start, pos))
            offset += len(part.audio_float_array)
        ok = len(spans) == len(words)
    if not ok:
        return estimate_word_timings(words, total), False
    return tuple(WordTiming(w, s, e) for w, (s, e) in zip(words, spans, strict=True)), True


def estimate_word_timings(words: list[str], total_samples: int) -> tuple[WordTiming, ...]:
    """Spread ``total_samples`` over ``words`` in proportion to their length (+1 for the gap)."""
    weights = [len(w) + 1 for w in words]
    whole = sum(weights) or 1
    out: list[WordTiming] = []
    pos = 0.0
    for word, weight in zip(words, weights, strict=True):
        end = pos + total_samples * weight / whole
        out.append(WordTiming(word, int(pos), int(end)))
        pos = end
    return tuple(out)
