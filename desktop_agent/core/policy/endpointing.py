"""Hands-free endpointing: how much silence ends the user's turn, and ASR hallucination gating.

The silence needed adapts to the partial transcript. A complete-looking sentence or a
bare "yes" ends quickly; a trailing "to", "and" or "um" means the user is still
thinking, so the agent waits longer; anything else gets the medium wait. The result
feeds ``SpeechSegmenter.process(..., silence_s=...)``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final

from desktop_agent.core.errors import SettingsError
from desktop_agent.core.policy.tokens import covered_by, phrase_set, spoken_words

DEFAULT_COMPLETE_PHRASES: Final = (
    "yes", "no", "okay", "ok", "stop", "thanks", "thank you", "yeah", "yep", "nope",
    "sure", "cancel", "never mind", "go ahead", "that's all", "done",
)  # fmt: skip
DEFAULT_CONTINUATION_WORDS: Final = (
    "to", "and", "the", "a", "an", "of", "um", "uh", "erm", "er", "so", "but", "because",
    "with", "for", "my", "or", "in", "on", "at", "from", "about", "if", "that", "your",
    "like", "then", "than", "is", "are", "was", "i", "i'm", "it's", "what", "which",
    "when", "where", "how", "who", "into", "this", "their", "our", "his", "her",
)  # fmt: skip
_QUESTION_OR_EXCLAMATION: Final = ("?", "!")
_TRAILING_OFF: Final = ("...", "\u2026", ",", "-", "\u2014", "\u2013")
_CLOSERS: Final = "\"')]}\u201d\u2019 "


@dataclass(frozen=True, slots=True)
class EndpointingSettings:
    """Silence, in seconds, that ends a hands-free turn, by what the user said so far."""

    short_s: float = 0.5
    """After a complete-looking sentence or a bare "yes"/"no"/"stop"."""
    medium_s: float = 0.9
    """When the transcript gives no hint (also when it is empty)."""
    long_s: float = 1.6
    """After a trailing "to", "and", "um", ... or a trailing comma/ellipsis."""
    min_s: float = 0.3
    """Floor for every answer."""
    max_s: float = 2.5
    """Ceiling for every answer."""
    complete_phrases: tuple[str, ...] = DEFAULT_COMPLETE_PHRASES
    """Whole utterances that are complete on their own."""
    continuation_words: tuple[str, ...] = DEFAULT_CONTINUATION_WORDS
    """Last words that promise more to come."""

    def __post_init__(self) -> None:
        """Reject settings that cannot work."""
        values = (self.short_s, self.medium_s, self.long_s, self.min_s, self.max_s)
        if min(values) < 0 or self.min_s > self.max_s:
            raise SettingsError(
                "endpointing_settings",
                f"invalid endpointing seconds: {values}",
                "use non-negative seconds and min_s <= max_s",
            )


class Endpointer:
    """Adaptive hands-free endpointing. Pure: same transcript, same answer."""

    __slots__ = ("settings", "_complete", "_continuation")

    def __init__(self, settings: EndpointingSettings | None = None) -> None:
        """Create an endpointer with ``settings`` (the defaults when None)."""
        self.settings = settings or EndpointingSettings()
        self._complete = phrase_set(self.settings.complete_phrases)
        self._continuation = frozenset(
            w for p in self.settings.continuation_words for w in spoken_words(p)[-1:]
        )

    def silence_needed_s(self, partial_transcript: str) -> float:
        """Seconds of silence that should end the turn, given what was heard so far.

        Rules, first match wins: ends with "?" or "!" -> short; last word is a
        continuation word ("to", "and", "um", ...) or the text trails off ("," "...")
        -> long; ends with "." -> short; the whole utterance is a complete phrase
        ("yes", "thank you") -> short; otherwise medium. A period loses to a trailing
        continuation word because Whisper ends every partial with one. Clamped to
        ``[min_s, max_s]``.
        """
        settings = self.settings
        text = partial_transcript.strip().rstrip(_CLOSERS)
        words = spoken_words(text)
        if not words:
            seconds = settings.medium_s
        elif text.endswith(_QUESTION_OR_EXCLAMATION):
            seconds = settings.short_s
        elif words[-1] in self._continuation or text.endswith(_TRAILING_OFF):
            seconds = settings.long_s
        elif text.endswith(".") or covered_by(words, self._complete):
            seconds = settings.short_s
        else:
            seconds = settings.medium_s
        return min(settings.max_s, max(settings.min_s, seconds))


DEFAULT_HALLUCINATIONS: Final = (
    "thank you", "thanks", "thank you very much", "thank you so much", "thanks for watching",
    "thank you for watching", "thanks for watching and see you next time",
    "please subscribe", "like and subscribe", "subscribe", "you", "bye", "goodbye",
    "so", "okay", "oh", "uh", "um", "hmm", "mm", "the end", "i'm sorry", "i", "a",
    "subtitles by the amara org community",
)  # fmt: skip
"""What Whisper writes for silence, music and noise (it learnt them from subtitles)."""


@dataclass(frozen=True, slots=True)
class HallucinationSettings:
    """When a transcript is more likely Whisper's imagination than the user's words."""

    no_speech_threshold: float = 0.6
    """Whisper's no-speech probability at or above which the audio looks speech-free."""
    min_speech_ratio: float = 0.3
    """VAD speech fraction of the audio below which it looks speech-free."""
    phrases: tuple[str, ...] = DEFAULT_HALLUCINATIONS
    """Stock hallucinations; rejected on either piece of evidence, even when repeated."""


_DEFAULT_HALLUCINATION_SETTINGS: Final = HallucinationSettings()


@functools.lru_cache(maxsize=8)
def _hallucination_phrases(phrases: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    return phrase_set(phrases)


def is_hallucination(
    text: str,
    no_speech_prob: float,
    speech_ratio: float,
    settings: HallucinationSettings = _DEFAULT_HALLUCINATION_SETTINGS,
) -> bool:
    """Whether to discard an ASR result as not really spoken.

    Args:
        text: The transcript.
        no_speech_prob: Whisper's highest segment no-speech probability (0..1).
        speech_ratio: Fraction of the transcribed audio the VAD marked as speech (0..1).
        settings: Thresholds and the stock phrase list.

    Returns:
        True for text with no words ("", "...", "[BLANK_AUDIO]", "(music)"); for a
        stock phrase ("Thank you.", "you", "Thanks for watching!") when either
        ``no_speech_prob`` is high or ``speech_ratio`` is low; for any other text only
        when both are. A real "Thank you." said clearly (low no-speech, VAD speech)
        is kept.
    """
    words = spoken_words(text)
    if not words:
        return True
    silent_asr = no_speech_prob >= settings.no_speech_threshold
    silent_vad = speech_ratio < settings.min_speech_ratio
    if covered_by(words, _hallucination_phrases(settings.phrases)):
        return silent_asr or silent_vad
    return silent_asr and silent_vad
