"""Hands-free endpointing: how much silence ends the user's turn, and ASR hallucination gating.

The silence needed adapts to the partial transcript. A complete-looking sentence or a
bare "yes" ends quickly; a trailing "to", "and" or "um" means the user is still
thinking, so the agent waits longer; anything else gets the medium wait. The result
feeds ``SpeechSegmenter.process(..., silence_s=...)``.

An audio end-of-turn model (``TurnDetector``, e.g. Smart Turn) can shorten that wait:
``TurnModelRule`` asks it once per pause, when the silence first reaches ``probe_s``,
and ends the turn at once when the model hears a finished turn and the transcript rule
does not veto it; when the two disagree it waits longer (see ``TurnModelRule``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Final, Protocol

from desktop_agent.core.errors import SettingsError
from desktop_agent.core.listening.tokens import covered_by, phrase_set, spoken_words

DEFAULT_COMPLETE_PHRASES: Final = (
    "yes", "no", "okay", "ok", "stop", "thanks", "thank you", "yeah", "yep", "nope",
    "sure", "cancel", "never mind", "go ahead", "that's all", "done",
)  # fmt: skip
DEFAULT_HOLD_PHRASES: Final = (
    "wait", "hold on", "hang on", "one moment", "one second", "just a moment",
    "just a second", "wait a moment", "wait a second", "wait a minute", "actually",
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
    hold_phrases: tuple[str, ...] = DEFAULT_HOLD_PHRASES
    """Words that hold the floor: "wait", "hold on", "wait, stop" (alone, or with complete
    phrases) usually come before what the user really wants, so they get the medium wait."""

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

    __slots__ = ("settings", "_complete", "_continuation", "_hold")

    def __init__(self, settings: EndpointingSettings | None = None) -> None:
        """Create an endpointer with ``settings`` (the defaults when None)."""
        self.settings = settings or EndpointingSettings()
        self._complete = phrase_set(self.settings.complete_phrases)
        self._hold = phrase_set(self.settings.hold_phrases)
        self._continuation = frozenset(
            w for p in self.settings.continuation_words for w in spoken_words(p)[-1:]
        )

    def silence_needed_s(self, partial_transcript: str) -> float:
        """Seconds of silence that should end the turn, given what was heard so far.

        Rules, first match wins: only floor-holding words ("wait", "hold on", "wait,
        stop") -> medium; ends with "?" or "!" -> short; last word is a
        continuation word ("to", "and", "um", ...) or the text trails off ("," "...")
        -> long; ends with "." -> short; the whole utterance is a complete phrase
        ("yes", "thank you") -> short; otherwise medium. A period loses to a trailing
        continuation word because Whisper ends every partial with one. Clamped to
        ``[min_s, max_s]``.
        """
        settings = self.settings
        text = partial_transcript.strip().rstrip(_CLOSERS)
        words = spoken_words(text)
        if not words or self._holds_floor(words):
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

    def _holds_floor(self, words: tuple[str, ...]) -> bool:
        """Only hold words and complete phrases, at least one hold word ("wait, stop")."""
        if not covered_by(words, self._hold | self._complete):
            return False
        joined = f" {' '.join(words)} "
        return any(f" {' '.join(p)} " in joined for p in self._hold)


class TurnDetector(Protocol):
    """Port: an audio end-of-turn model."""

    def probability(self, audio: Any) -> float:
        """Probability in [0, 1] that the user finished their turn.

        Args:
            audio: The end of the turn so far, 16 kHz mono float32 (up to the last
                8 s are used), ending with the silence heard since the last word.
        """
        ...


_SLACK_S: Final = 1e-6
"""Float slack when comparing seconds."""


@dataclass(frozen=True, slots=True)
class TurnModelSettings:
    """How an audio end-of-turn model and the transcript rule end a turn together."""

    probe_s: float = 0.2
    """Trailing silence, seconds, at which the model is asked (once per pause)."""
    threshold: float = 0.5
    """Model probability at or above which the turn sounds finished."""
    veto_above_s: float = 0.5
    """The transcript vetoes a finished-sounding turn when it asks for more silence than
    this (the default is ``EndpointingSettings.short_s``: anything but a complete
    sentence or a bare "yes" vetoes; a trailing "and", "to", "um" always does)."""
    disagree_s: float = 1.0
    """Silence, seconds, that ends the turn when the model hears an unfinished turn
    (at least; a longer transcript wait stands)."""

    def __post_init__(self) -> None:
        """Reject settings that cannot work."""
        values = (self.probe_s, self.veto_above_s, self.disagree_s)
        if min(values) < 0 or not 0.0 <= self.threshold <= 1.0:
            raise SettingsError(
                "turn_model_settings",
                f"invalid end-of-turn model settings: {values}, threshold={self.threshold}",
                "use non-negative seconds and a threshold in [0, 1]",
            )


class TurnModelRule:
    """One pause's verdict of the end-of-turn model, and the silence it buys. Pure.

    Per pause: ``wants_probe(trailing_silence_s)`` says when to run the model (the first
    time the silence reaches ``probe_s``); ``record(probability)`` keeps its verdict;
    ``silence_needed_s(transcript_s)`` then combines it with the transcript rule's answer
    (``Endpointer.silence_needed_s``), and is asked again whenever that answer changes
    (a partial transcript arrives later than the probe):

    - finished-sounding and no veto (``transcript_s <= veto_above_s``): ``probe_s``, i.e.
      end now;
    - finished-sounding but vetoed (a trailing "and"): the transcript's wait, unchanged;
    - not finished-sounding: ``max(transcript_s, disagree_s)``, so a complete-looking
      transcript no longer ends the turn after the short wait.

    The model never makes a turn end later than the transcript rule alone would, except
    when it hears an unfinished turn.

    ``reset()`` when the speech resumes or a new utterance starts. Before the probe, and
    without a verdict, the transcript's wait stands unchanged.
    """

    __slots__ = ("settings", "_complete")

    def __init__(self, settings: TurnModelSettings | None = None) -> None:
        """Create a rule with ``settings`` (the defaults when None)."""
        self.settings = settings or TurnModelSettings()
        self._complete: bool | None = None

    @property
    def complete(self) -> bool | None:
        """The model's verdict on this pause (None until it was asked)."""
        return self._complete

    def reset(self) -> None:
        """Forget the verdict (the speech resumed, or a new utterance began)."""
        self._complete = None

    def wants_probe(self, trailing_silence_s: float) -> bool:
        """Whether to run the model now: the silence reached ``probe_s``, no verdict yet."""
        return (self._complete is None
                and trailing_silence_s + _SLACK_S >= self.settings.probe_s)

    def record(self, probability: float) -> None:
        """Keep the model's verdict for this pause."""
        self._complete = probability >= self.settings.threshold

    def silence_needed_s(self, transcript_s: float) -> float:
        """Silence, seconds, that ends the turn, given the transcript rule's answer.

        Args:
            transcript_s: What the transcript rule asks for
                (``Endpointer.silence_needed_s``, or the segmenter's default).

        Returns:
            ``transcript_s`` without a verdict; otherwise as in the class docstring.
        """
        if self._complete is None:
            return transcript_s
        if not self._complete:
            return max(transcript_s, self.settings.disagree_s)
        if transcript_s > self.settings.veto_above_s + _SLACK_S:
            return transcript_s
        return min(transcript_s, self.settings.probe_s)


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
