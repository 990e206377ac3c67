"""A pure voice-activity segmenter that advances by chunk seconds, never by wall time.

Feed it one VAD probability per audio chunk; it says when an utterance starts
(after ``min_speech_s`` of speech) and ends (after the silence the endpointer asks
for, or at ``max_speech_s``). Hysteresis: a chunk is speech when its probability
is >= ``threshold``; once in an utterance it stays speech down to ``neg_threshold``.
The shape follows Home Assistant's ``assist_pipeline/vad.py``.

All instants are stream time: seconds of audio processed since the last ``reset``.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Final

from desktop_agent.core.errors import SettingsError

_EPS: Final = 1e-9
"""Float slack so that 5 x 0.05 s counts as 0.25 s."""


class SegmentEvent(enum.StrEnum):
    """What one chunk changed. Compares equal to its string value."""

    SPEECH_STARTED = "speech_started"
    SPEECH_ENDED = "speech_ended"


class EndReason(enum.StrEnum):
    """Why the last utterance ended."""

    SILENCE = "silence"
    MAX_LENGTH = "max_length"


@dataclass(frozen=True, slots=True)
class SegmenterSettings:
    """Thresholds and durations of the segmenter."""

    threshold: float = 0.5
    """A chunk is speech when its probability is at least this (outside an utterance)."""
    neg_threshold: float = 0.35
    """Inside an utterance a chunk is silence only below this (hysteresis)."""
    min_speech_s: float = 0.25
    """Speech, in seconds, before an utterance is confirmed."""
    onset_reset_s: float = 0.2
    """Continuous silence, in seconds, that discards not-yet-confirmed speech."""
    silence_s: float = 0.9
    """Trailing silence, in seconds, that ends an utterance when ``process`` is not told."""
    max_speech_s: float = 30.0
    """Longest utterance, in seconds from its first speech chunk; then it is ended."""

    def __post_init__(self) -> None:
        """Reject settings that cannot work."""
        if not 0.0 <= self.neg_threshold <= self.threshold <= 1.0:
            raise SettingsError(
                "segmenter_settings",
                f"thresholds out of order: neg_threshold={self.neg_threshold}, "
                f"threshold={self.threshold}",
                "use 0 <= neg_threshold <= threshold <= 1",
            )
        durations = (self.min_speech_s, self.onset_reset_s, self.silence_s, self.max_speech_s)
        if min(durations) < 0 or self.max_speech_s <= self.min_speech_s:
            raise SettingsError(
                "segmenter_settings",
                f"invalid durations: {durations}",
                "use non-negative seconds and max_speech_s > min_speech_s",
            )


class SpeechSegmenter:
    """Turns per-chunk speech probabilities into utterance start and end events.

    Not thread-safe: owned by the one thread that runs the VAD.
    """

    def __init__(self, settings: SegmenterSettings | None = None) -> None:
        """Create an idle segmenter at stream time 0."""
        self.settings = settings or SegmenterSettings()
        self.reset()

    def reset(self) -> None:
        """Forget everything and restart stream time at 0."""
        self._position_s = 0.0
        self._in_speech = False
        self._onset_s = 0.0  # speech accumulated before confirmation
        self._gap_s = 0.0  # silence since the last speech chunk
        self._start_s: float | None = None
        self._end_s: float | None = None
        self._end_reason: EndReason | None = None

    @property
    def in_speech(self) -> bool:
        """True between SPEECH_STARTED and SPEECH_ENDED."""
        return self._in_speech

    @property
    def position_s(self) -> float:
        """Seconds of audio processed since the last reset."""
        return self._position_s

    @property
    def speech_start_s(self) -> float | None:
        """Stream time where the current (or last) utterance's speech began."""
        return self._start_s

    @property
    def speech_end_s(self) -> float | None:
        """Stream time where the last utterance's speech stopped (its trailing silence began)."""
        return self._end_s

    @property
    def end_reason(self) -> EndReason | None:
        """Why the last utterance ended (None while none has)."""
        return self._end_reason

    @property
    def onset_pending(self) -> bool:
        """Speech heard but not yet confirmed as an utterance (False in one, or in silence)."""
        return not self._in_speech and self._onset_s > 0.0

    @property
    def trailing_silence_s(self) -> float:
        """Silence, seconds, since the current utterance's last speech chunk (0.0 outside one)."""
        return self._gap_s if self._in_speech else 0.0

    @property
    def speech_s(self) -> float:
        """Seconds from the current utterance's start to now (0.0 outside an utterance)."""
        if not self._in_speech or self._start_s is None:
            return 0.0
        return self._position_s - self._start_s

    def process(
        self, chunk_s: float, speech_prob: float, silence_s: float | None = None
    ) -> SegmentEvent | None:
        """Advance by one chunk.

        Args:
            chunk_s: Duration of the chunk, seconds (> 0; 0 is a no-op).
            speech_prob: The VAD's speech probability for the chunk. NaN counts as 0.
            silence_s: Trailing silence that ends the utterance, e.g. from
                ``Endpointer.silence_needed_s``; ``settings.silence_s`` when None.

        Returns:
            SPEECH_STARTED on the chunk that confirms speech, SPEECH_ENDED on the chunk
            that completes the required silence (or reaches ``max_speech_s``), else None.

        Raises:
            ValueError: When ``chunk_s`` is negative or not finite.
        """
        if not math.isfinite(chunk_s) or chunk_s < 0:
            raise ValueError(f"chunk_s must be a finite number >= 0, got {chunk_s!r}")
        if chunk_s == 0:
            return None
        prob = 0.0 if math.isnan(speech_prob) else speech_prob
        chunk_start = self._position_s
        self._position_s += chunk_s
        if self._in_speech:
            return self._process_in_speech(chunk_s, prob, chunk_start, silence_s)
        return self._process_idle(chunk_s, prob, chunk_start)

    def end_if_silent(self, silence_s: float) -> SegmentEvent | None:
        """End the current utterance now if its trailing silence already reaches ``silence_s``.

        For a decision made between chunks (an end-of-turn model that agreed with the
        transcript): the utterance ends at the current stream time, its speech end
        where the silence began, exactly as if ``process`` had been told ``silence_s``.

        Args:
            silence_s: Trailing silence, seconds, that is now enough to end the utterance.

        Returns:
            SPEECH_ENDED when it ended the utterance, else None.
        """
        if self._in_speech and self._gap_s > 0.0 and self._gap_s + _EPS >= silence_s:
            return self._end(EndReason.SILENCE)
        return None

    def _process_idle(self, chunk_s: float, prob: float, chunk_start: float) -> SegmentEvent | None:
        settings = self.settings
        if prob >= settings.threshold:
            if self._onset_s == 0.0:
                self._start_s = chunk_start
            self._onset_s += chunk_s
            self._gap_s = 0.0
            if self._onset_s + _EPS >= settings.min_speech_s:
                self._in_speech = True
                self._end_s = None
                self._end_reason = None
                return SegmentEvent.SPEECH_STARTED
            return None
        if self._onset_s > 0.0:
            self._gap_s += chunk_s
            if self._gap_s + _EPS >= settings.onset_reset_s:
                self._onset_s = 0.0
                self._gap_s = 0.0
        return None

    def _process_in_speech(
        self, chunk_s: float, prob: float, chunk_start: float, silence_s: float | None
    ) -> SegmentEvent | None:
        settings = self.settings
        needed = settings.silence_s if silence_s is None else max(0.0, silence_s)
        if prob >= settings.neg_threshold:
            self._gap_s = 0.0
        else:
            if self._gap_s == 0.0:
                self._end_s = chunk_start
            self._gap_s += chunk_s
            if self._gap_s + _EPS >= needed:
                return self._end(EndReason.SILENCE)
        start = chunk_start if self._start_s is None else self._start_s
        if self._position_s - start + _EPS >= settings.max_speech_s:
            if self._gap_s == 0.0:
                self._end_s = self._position_s
            return self._end(EndReason.MAX_LENGTH)
        return None

    def _end(self, reason: EndReason) -> SegmentEvent:
        self._in_speech = False
        self._onset_s = 0.0
        self._gap_s = 0.0
        self._end_reason = reason
        return SegmentEvent.SPEECH_ENDED
