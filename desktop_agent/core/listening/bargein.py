"""Barge-in while the assistant speaks: pause first, decide second.

When the VAD hears the user during playback, the runtime pauses (or, with a non-zero
``duck_gain``, ducks) playback at once and then asks :class:`BargeInDecider`, every time
the confirmed speech grows or the partial transcript changes, whether to interrupt the
reply, keep waiting, or resume it. "Mm-hm", a cough, a laugh and our own echo resume; "wait",
"stop", "no that's wrong" or simply enough speech interrupt.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Final

from desktop_agent.core.errors import SettingsError
from desktop_agent.core.listening.tokens import (
    contains_phrase,
    covered_by,
    phrase_set,
    spoken_words,
)
from desktop_agent.core.text.number_words import number_string_to_words

DEFAULT_BACKCHANNELS: Final = (
    "mm-hm", "mhm", "mm", "uh-huh", "yeah", "yep", "okay", "ok", "right", "sure", "uh",
    "um", "hmm", "ah", "oh", "i see", "got it", "cool", "nice",
)  # fmt: skip
DEFAULT_STOP_PHRASES: Final = (
    "stop", "wait", "hold on", "hang on", "pause", "cancel", "shut up", "be quiet", "quiet",
    "enough",
)  # fmt: skip
DEFAULT_SHORT_INTERRUPTS: Final = (
    "no", "nope", "nah", "wrong", "actually", "sorry", "excuse me", "what", "pardon",
)  # fmt: skip


class Decision(enum.StrEnum):
    """What to do with the paused reply. Compares equal to its string value."""

    WAIT = "wait"
    """Not enough evidence yet: keep the reply paused (or ducked) and ask again."""
    INTERRUPT = "interrupt"
    """The user is taking the turn: cancel the reply."""
    RESUME = "resume"
    """It was a backchannel, a cough, a laugh or echo: un-pause the reply."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A decision and why, for the log and the GUI."""

    decision: Decision
    reason: str
    """One of 'echo', 'stop_word', 'words', 'long_speech', 'backchannel', 'too_short',
    'lone_word', 'listening'."""


@dataclass(frozen=True, slots=True)
class BargeInSettings:
    """Thresholds for telling a real interruption from a backchannel, a cough or echo."""

    min_interrupt_speech_s: float = 0.6
    """Confirmed speech, seconds, that interrupts even before the ASR has words."""
    backchannel_words: tuple[str, ...] = DEFAULT_BACKCHANNELS
    """Listener noises that never interrupt (alone or in a row: "yeah yeah")."""
    stop_phrases: tuple[str, ...] = DEFAULT_STOP_PHRASES
    """Words that interrupt at once, wherever they occur in the transcript."""
    warmup_s: float = 0.3
    """After playback starts, seconds during which a speech onset is taken for echo."""
    duck_gain: float = 0.0
    """Playback gain while deciding: 0.0 pauses (the default), e.g. 0.2 ducks."""
    min_word_speech_s: float = 0.2
    """Speech, seconds, a transcribed non-backchannel word needs to count as a word
    (shorter is a click or a cough the ASR guessed at)."""
    min_lone_word_s: float = 0.4
    """Speech, seconds, one content word alone needs to interrupt. Shorter, it resumes
    once the speech ended: residual echo of the reply, 0.26 s, came back from Whisper as
    "Perhaps." and cut the reply (CI's red run). ``short_interrupts`` are exempt."""
    short_interrupts: tuple[str, ...] = DEFAULT_SHORT_INTERRUPTS
    """Words that interrupt however short they are alone ("no", "sorry", "what")."""
    max_backchannel_s: float = 1.5
    """Speech, seconds, beyond which even a backchannel-looking transcript interrupts
    (the ASR is behind the user)."""

    @property
    def duck_gain_db(self) -> float:
        """``duck_gain`` in dB for the turn machine's DuckPlayback (-120: pause)."""
        return 20 * math.log10(self.duck_gain) if self.duck_gain > 1e-6 else -120.0

    def __post_init__(self) -> None:
        """Reject settings that cannot work."""
        durations = (
            self.min_interrupt_speech_s,
            self.warmup_s,
            self.min_word_speech_s,
            self.min_lone_word_s,
            self.max_backchannel_s,
        )
        if min(durations) < 0 or not 0.0 <= self.duck_gain <= 1.0:
            raise SettingsError(
                "bargein_settings",
                f"invalid barge-in settings: durations={durations}, duck_gain={self.duck_gain}",
                "use non-negative seconds and 0 <= duck_gain <= 1",
            )


class BargeInDecider:
    """Pure barge-in policy: same evidence, same decision."""

    __slots__ = ("settings", "_backchannels", "_stops", "_short")

    def __init__(self, settings: BargeInSettings | None = None) -> None:
        """Create a decider with ``settings`` (the defaults when None)."""
        self.settings = settings or BargeInSettings()
        self._backchannels = phrase_set(self.settings.backchannel_words, squeeze=True)
        self._stops = phrase_set(self.settings.stop_phrases, squeeze=True)
        self._short = phrase_set(self.settings.short_interrupts, squeeze=True)

    def is_backchannel(self, transcript: str) -> bool:
        """Whether ``transcript`` is only listener noises ("Mm-hm.", "yeah, yeah", "Okay!")."""
        return covered_by(spoken_words(transcript, squeeze=True), self._backchannels)

    def is_echo(self, onset_after_playback_s: float | None) -> bool:
        """Whether a speech onset this long after playback started is taken for echo."""
        return onset_after_playback_s is not None and onset_after_playback_s < (
            self.settings.warmup_s
        )

    def evaluate(
        self,
        speech_s: float,
        transcript: str = "",
        *,
        speech_ended: bool = False,
        onset_after_playback_s: float | None = None,
    ) -> Verdict:
        """Decide from the evidence so far, with the reason.

        Args:
            speech_s: Confirmed user speech so far, seconds (from the segmenter).
            transcript: The partial transcript of that speech ("" before the ASR has any).
            speech_ended: True once the segmenter ended the user's speech.
            onset_after_playback_s: Seconds from playback start to the speech onset,
                when known. Onsets within ``warmup_s`` are echo; the runtime re-arms and
                judges the next onset afresh.

        Returns:
            The verdict. Rules, first match wins: echo -> RESUME; a stop phrase anywhere
            -> INTERRUPT; non-backchannel words (not function words alone: "for the")
            with at least ``min_word_speech_s`` of speech -> INTERRUPT, except one
            content word alone (not a ``short_interrupts`` word) shorter than
            ``min_lone_word_s``: RESUME when the speech ended, else WAIT;
            ``min_interrupt_speech_s`` of speech that is not a
            backchannel (including no words yet) -> INTERRUPT; a backchannel longer
            than ``max_backchannel_s`` -> INTERRUPT; speech ended -> RESUME
            (backchannel, or too short to be words); otherwise WAIT.
        """
        settings = self.settings
        if self.is_echo(onset_after_playback_s):
            return Verdict(Decision.RESUME, "echo")
        words = spoken_words(transcript, squeeze=True)
        if contains_phrase(words, self._stops):
            return Verdict(Decision.INTERRUPT, "stop_word")
        # Function words alone ("for the", "it is") are what Whisper makes of residual echo
        # more often than what a person cuts in with: they prove nothing either way, and
        # the speech is judged as if it had no words yet (below, and in the judge).
        content = content_words(words)
        backchannel = (covered_by(words, self._backchannels)  # "got it"
                       or covered_by(content, self._backchannels))  # "okay, the"
        if content and not backchannel and speech_s >= settings.min_word_speech_s:
            lone = (len(content) == 1 and speech_s < settings.min_lone_word_s
                    and not contains_phrase(words, self._short))
            if not lone:
                return Verdict(Decision.INTERRUPT, "words")
            if speech_ended:
                return Verdict(Decision.RESUME, "lone_word")
            return Verdict(Decision.WAIT, "listening")
        if not backchannel and speech_s >= settings.min_interrupt_speech_s:
            return Verdict(Decision.INTERRUPT, "long_speech")
        if backchannel and speech_s >= settings.max_backchannel_s:
            return Verdict(Decision.INTERRUPT, "long_speech")
        if speech_ended:
            return Verdict(Decision.RESUME, "backchannel" if backchannel else "too_short")
        return Verdict(Decision.WAIT, "listening")

    def decide(
        self,
        speech_s: float,
        transcript: str = "",
        *,
        speech_ended: bool = False,
        onset_after_playback_s: float | None = None,
    ) -> Decision:
        """Like :meth:`evaluate`, without the reason."""
        return self.evaluate(
            speech_s,
            transcript,
            speech_ended=speech_ended,
            onset_after_playback_s=onset_after_playback_s,
        ).decision


def settings_from_user(
    min_interrupt_speech_s: float, resume_after_backchannel: bool = True
) -> BargeInSettings:
    """The policy for the user's ``Settings.barge_in`` choices.

    Args:
        min_interrupt_speech_s: Speech, seconds, that interrupts without words.
        resume_after_backchannel: False makes listener noises ordinary words: "mm-hm"
            then interrupts like any other word, and so does one short word alone.

    Returns:
        Default thresholds with those two applied (a backchannel never needs less speech
        to interrupt than plain speech does).
    """
    defaults = BargeInSettings()
    return BargeInSettings(
        min_interrupt_speech_s=min_interrupt_speech_s,
        backchannel_words=defaults.backchannel_words if resume_after_backchannel else (),
        min_lone_word_s=(defaults.min_lone_word_s if resume_after_backchannel
                         else defaults.min_word_speech_s),
        max_backchannel_s=max(defaults.max_backchannel_s, min_interrupt_speech_s),
    )


_FILLER: Final = frozenset({"a", "an", "the", "is", "it", "its", "this", "that", "of", "to",
                            "and", "in", "on", "at", "for", "so", "as", "be", "are", "was"})


def content_words(words: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` without function words ("the", "for", "it", ...)."""
    return tuple(w for w in words if w not in _FILLER)


def has_content(transcript: str) -> bool:
    """Whether ``transcript`` holds a word that says something (not only function words)."""
    return bool(content_words(spoken_words(transcript, squeeze=True)))


def echoes_reply(transcript: str, reply_text: str) -> bool:
    """True when every content word of ``transcript`` is a word the assistant is saying.

    Whisper transcribes residual echo as fragments of the reply ("This is covered." while
    the reply says "...is covered in craters"); a person cutting in says their own words.
    Filler words prove nothing either way; a transcript of filler alone is not an echo.
    """
    said = set(_read_numbers(spoken_words(reply_text)))
    words = content_words(_read_numbers(spoken_words(transcript)))
    return bool(words) and all(_heard_in(w, said) for w in words)


def _read_numbers(words: tuple[str, ...]) -> tuple[str, ...]:
    """Digits as the words they are spoken as.

    Whisper writes "40." for the "forty" it heard of the reply, and the reply's text may
    hold "40" where Piper says "forty".
    """
    out: list[str] = []
    for word in words:
        out.extend(spoken_words(number_string_to_words(word)) if word.isdigit() else (word,))
    return tuple(out)


def _heard_in(word: str, said: set[str]) -> bool:
    """``word`` or a near miss of it ("approximate" for "approximately") was said."""
    if word in said:
        return True
    for other in said:
        if len(word) >= 4 and len(other) >= 4 and (other.startswith(word) or
                                                   word.startswith(other)):
            return True
        if len(word) >= 5 and SequenceMatcher(None, word, other).ratio() >= 0.8:
            return True
    return False
