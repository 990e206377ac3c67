"""Partial transcripts while the user speaks: when to launch one, what is settled, what is left.

A recording is transcribed again and again while the user speaks (the caption, the LLM's
read-ahead, the hands-free transcript rule), and the newest partial that heard every speech
frame is the final transcript. Decoding the whole utterance each time costs more the longer
it gets, and at the endpoint the user waits for the last pass. So the words that two
successive partials agree on are *committed*, and later passes decode only the audio after
them.

Where the audio is cut. Whisper cannot be told to skip audio it has already transcribed,
and forcing the committed tokens as a decoder prefix saves nothing in CTranslate2 (each
forced token is one decoder step, as a generated one is: measured within noise on tiny.en
and base). What saves time is a shorter utterance. A cut inside a word would split it, so
the cut is made only in a pause the VAD heard: a partial launched after ``PAUSE_S`` of
silence heard the words before the pause and nothing after it (a *pause partial*). When a
later partial, which heard more audio, starts with the same words (agreement of two), those
words are committed and the audio is cut in that pause; the next passes decode from there,
with the committed words given to the recogniser as the text said before (context), and the
transcript is the committed words followed by what the tail adds.

Commits are off in the app (``MIN_COMMIT_WORDS`` = 0): measured with ``eval asr --set real
--through partials`` (100 real recordings, 543 words, tiny.en), one pass over the whole
recording gives 6.6 % WER, partials without commits 7.2 %, with commits 8.5 % (whisper-base:
4.2 % whole, 13.1 % with commits: the tail decoded alone, even with the committed words as
context, loses and repeats words at the cut). The latency they would save is the final pass
over a long utterance that no partial covers; truth decided. ``PartialSettings`` keeps the
rule measurable (``eval asr --commit-words N``).

Sample indices are absolute mic indices; durations are seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from desktop_agent.core.listening.tokens import spoken_words

PARTIAL_SPACING_S: Final = 0.8
"""Cadence of partials while the user speaks (two cores: tiny.en takes ~0.15 s a pass)."""
PAUSE_S: Final = 0.064
"""Silence (two 32 ms VAD frames) after speech that launches a pause partial at once: the
words so far, and, when the user has stopped, the final transcript ready early."""
COVER_MARGIN_S: Final = 0.03
"""Audio a partial must hold after the end of the last VAD speech frame to be final. The
VAD's last speech frame ends at or after the speech's energy end (24-48 ms after it on the
bench's questions), so one frame's worth is enough."""
CUT_PREROLL_S: Final = 0.03
"""Audio kept before a cut: the tail starts this far inside the pause, clear of the word."""
MIN_AUDIO_S: Final = 0.6
"""Audio a recording needs before its first partial."""
MIN_COMMIT_WORDS: Final = 0
"""Fewest words a commit may hold (0: never commit)."""
_SENTENCE_END: Final = (".", "?", "!")


@dataclass(frozen=True, slots=True)
class PartialSettings:
    """The knobs of the rules above (the defaults are the app's)."""

    spacing_s: float = PARTIAL_SPACING_S
    pause_s: float = PAUSE_S
    cover_margin_s: float = COVER_MARGIN_S
    cut_preroll_s: float = CUT_PREROLL_S
    min_audio_s: float = MIN_AUDIO_S
    min_commit_words: int = MIN_COMMIT_WORDS
    sentences_only: bool = False
    """Commit only a pause partial that ends a sentence ("." "?" "!", not "..."): the audio
    after it starts a sentence, as Whisper's own windows do after their previous text."""


def _word_key(word: str) -> tuple[str, ...]:
    return spoken_words(word)


def agreed_words(first: str, second: str) -> int:
    """How many leading words of ``first`` and ``second`` agree (case and punctuation aside).

    Words are split on whitespace; "Capital," and "capital" agree, "France" and "friend"
    do not.
    """
    count = 0
    for a, b in zip(first.split(), second.split(), strict=False):
        if _word_key(a) != _word_key(b):
            break
        count += 1
    return count


def commit_after_pause(pause_text: str, later_text: str) -> str | None:
    """The words to commit when ``later_text`` agrees with all of ``pause_text``, else None.

    ``pause_text`` is a pause partial (every word before the pause); ``later_text`` a partial
    that heard more audio. Only the whole pause partial can be committed: the cut is in its
    pause, so committing part of it would lose the words between. The words are
    ``later_text``'s (more context: "of?" at a pause becomes "of" once the sentence goes on).
    """
    words = pause_text.split()
    if not words or agreed_words(pause_text, later_text) < len(words):
        return None
    return " ".join(later_text.split()[: len(words)])


def _ends_sentence(text: str) -> bool:
    text = text.rstrip().rstrip("\"')]\u201d\u2019")
    return text.endswith(_SENTENCE_END) and not text.endswith("..")


def join_transcript(committed: str, tail: str) -> str:
    """The whole transcript: the committed words, then what the tail adds."""
    return " ".join(part for part in (committed.strip(), tail.strip()) if part)


@dataclass(frozen=True, slots=True)
class Launch:
    """A partial to run now: the audio from ``audio_start`` to the newest sample."""

    audio_start: int
    """Absolute index where its audio starts (the recording's start, or just before a cut)."""
    context: str
    """Committed words said before ``audio_start`` ('' when nothing is committed)."""
    pause_end: int | None
    """For a pause partial: the index up to which the VAD heard silence after the speech
    (the cut, if a later partial agrees with it); None for a partial in the middle of speech."""


@dataclass(slots=True)
class PartialTrack:
    """One recording's partial transcripts: the newest, the committed words, the cut.

    Args:
        start: Absolute index where the recording starts (pre-roll included).
        rate: Samples per second.
    """

    start: int
    rate: int
    settings: PartialSettings = PartialSettings()
    committed: str = ""
    """Words two partials agreed on, all before ``cut``."""
    cut: int | None = None
    """Absolute index inside the pause after the committed words (None: nothing committed)."""
    newest: str = ""
    """The newest partial's whole transcript ('' before the first)."""
    newest_end: int = 0
    """Absolute index where the newest partial's audio ended."""
    candidate: tuple[str, int] | None = None
    """The newest pause partial not yet agreed: (whole transcript, pause end)."""
    tried_end: int = 0
    """Absolute index where the newest partial's audio ended, whatever it heard."""

    def audio_start(self) -> int:
        """Where the audio of the next pass starts: the recording's start or the cut."""
        if self.cut is None:
            return self.start
        return max(self.start, self.cut - int(self.settings.cut_preroll_s * self.rate))

    def covers(self, end: int, last_speech: int | None) -> bool:
        """True when audio up to ``end`` holds every speech frame (ending at ``last_speech``)."""
        margin = int(self.settings.cover_margin_s * self.rate)
        return last_speech is not None and last_speech + margin <= end

    def next_launch(self, *, end: int, judged_end: int, last_speech: int | None,
                    since_launch_s: float) -> Launch | None:
        """The partial to launch now, or None (the worker is idle; the caller checks that).

        Args:
            end: Newest mic sample (the partial's audio ends here).
            judged_end: Newest sample the VAD has judged.
            last_speech: End of the newest VAD speech frame (None: no speech yet).
            since_launch_s: Seconds since this recording's last partial was launched.
        """
        knobs = self.settings
        if last_speech is None or end - self.start < int(knobs.min_audio_s * self.rate):
            return None
        if self.covers(max(self.newest_end, self.tried_end), last_speech):
            return None  # nothing said since the newest partial (none said it was speech)
        trailing_s = (judged_end - last_speech) / self.rate
        paused = trailing_s >= knobs.pause_s
        if not (paused or since_launch_s >= knobs.spacing_s):
            return None
        return Launch(self.audio_start(), self.committed, judged_end if paused else None)

    def add(self, launch: Launch, end: int, text: str) -> None:
        """A partial came back: ``text`` is its whole transcript (context included).

        ``text`` is '' when it heard no speech: then only ``tried_end`` moves. Commits the
        pending pause partial when this one agrees with all of it, and keeps this one as the
        pending pause partial when it is one.
        """
        self.tried_end = max(self.tried_end, end)
        if not text or end < self.newest_end:
            return  # no speech, or an older pass answered late
        self.newest, self.newest_end = text, end
        if self.candidate is not None and self.candidate[1] < end:
            agreed = commit_after_pause(self.candidate[0], text)
            if agreed is not None and self.settings.sentences_only and not _ends_sentence(
                    self.candidate[0]):
                agreed = None
            words = len(agreed.split()) if agreed is not None else 0
            if (agreed is not None and words > len(self.committed.split())
                    and words >= self.settings.min_commit_words > 0):
                self.committed, self.cut = agreed, self.candidate[1]
            self.candidate = None
        if launch.pause_end is not None and len(text.split()) > len(self.committed.split()):
            self.candidate = (text, launch.pause_end)
