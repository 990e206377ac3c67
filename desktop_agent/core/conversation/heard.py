"""Heard-so-far: which words of a reply the user actually heard.

"Heard" comes from the samples the device consumed, never from what was sent. A word counts
as heard when at least half of its samples were played (``HEARD_FRACTION``); the heard words
form a prefix of the reply, so the first unheard word ends the heard text.

Word timings come with each chunk (aligned by the voice, or estimated by the TTS adapter). When
a chunk has none, or their count does not match the words of the chunk's text, each word is
given a share of the chunk's samples proportional to its characters (see ``estimate_words``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.ports import WordTiming
from desktop_agent.core.text.normalize import normalize_for_speech

HEARD_FRACTION: Final = 0.5
"""A word is heard when at least this fraction of its samples was played."""


@dataclass(frozen=True, slots=True)
class HeardReport:
    """What the user actually heard of one assistant reply that was cut off (or finished)."""

    turn_id: TurnId
    full_text: str
    """Everything the assistant planned to say so far (synthesised or not)."""
    heard_text: str
    """The words whose audio the device consumed. The history holds exactly this."""
    unheard_text: str
    """The remainder the user never heard."""
    cut_at_s: float
    """Seconds of this turn's audio played before the cut (0.0 if nothing was played)."""
    interrupted: bool
    """True when a barge-in (or error) cut the reply; False when it played to the end."""
    approximate: bool = False
    """True when a played chunk's word positions were estimated, not aligned by the voice
    (a remote voice sends none): the cut may be off by a word."""
    heard_written: str = ""
    """``heard_text`` in the reply's written form (digits, not 'two thirty p m'): what the
    history should keep. Whole written words whose spoken words were all heard; '' when
    nothing was heard."""


class SpokenChunk(Protocol):
    """What heard-so-far needs to know about one synthesised chunk (TtsChunkReady fits)."""

    @property
    def text(self) -> str:
        """The text spoken in the chunk."""
        ...

    @property
    def n_samples(self) -> int:
        """Audio samples in the chunk."""
        ...

    @property
    def sample_rate(self) -> int:
        """Hz."""
        ...

    @property
    def words(self) -> tuple[WordTiming, ...]:
        """Word timings in samples from the chunk start (may be empty)."""
        ...


def estimate_words(text: str, n_samples: int) -> tuple[WordTiming, ...]:
    """Word timings for ``text`` spread over ``n_samples`` in proportion to characters.

    The words are laid out as ``" ".join(text.split())``; a word spanning characters
    ``[a, b)`` of that string gets samples ``[a * n // L, b * n // L)`` where ``L`` is the
    string's length. Spaces get samples too, so words do not touch.

    Args:
        text: The chunk text.
        n_samples: Samples in the chunk.

    Returns:
        One timing per whitespace-separated word.
    """
    tokens = text.split()
    total = len(" ".join(tokens))
    if total == 0:
        return ()
    out: list[WordTiming] = []
    pos = 0
    for token in tokens:
        start, end = pos, pos + len(token)
        out.append(WordTiming(token, start * n_samples // total, end * n_samples // total))
        pos = end + 1
    return tuple(out)


def _word_heard(timing: WordTiming, played: int) -> bool:
    length = timing.end_sample - timing.start_sample
    if length <= 0:
        return played >= timing.end_sample and played > 0
    overlap = min(played, timing.end_sample) - timing.start_sample
    return overlap >= HEARD_FRACTION * length


def _timings_for(chunk: SpokenChunk, tokens: list[str]) -> tuple[WordTiming, ...]:
    if chunk.words and len(chunk.words) == len(tokens):
        return chunk.words
    return estimate_words(chunk.text, chunk.n_samples)


def written_prefix(written: str, spoken_heard: int, spoken_total: int) -> str:
    """The words of ``written`` whose spoken form was heard in full.

    Args:
        written: A chunk's text as the reply wrote it ("Meet at 14:30 today.").
        spoken_heard: How many of the chunk's spoken words were heard (a prefix).
        spoken_total: How many spoken words the chunk has.

    Returns:
        The longest prefix of ``written``'s words whose normalised form has no more words
        than were heard ("Meet at" after "meet at two thirty", not "Meet at 14:30"), or all
        of ``written`` when every spoken word was heard.
    """
    tokens = written.split()
    if spoken_heard >= spoken_total:
        return " ".join(tokens)
    kept = 0
    for end in range(1, len(tokens) + 1):
        if len(normalize_for_speech(" ".join(tokens[:end])).split()) > spoken_heard:
            break
        kept = end
    return " ".join(tokens[:kept])


def heard_so_far(
    turn_id: TurnId,
    chunks: Sequence[SpokenChunk],
    played_samples: int,
    *,
    unsynthesised_text: str = "",
    interrupted: bool = True,
) -> HeardReport:
    """What the user heard of a reply.

    Args:
        turn_id: The reply's turn.
        chunks: The chunks queued for playback, in playback order.
        played_samples: Samples the device consumed for these chunks (fade included), at the
            chunks' sample rate, counted from the first chunk's first sample.
        unsynthesised_text: Planned text that never reached audio (pending synthesis, the
            chunker's buffer, the LLM text not yet chunked). Always unheard.
        interrupted: Whether the reply was cut off (copied into the report).

    Returns:
        The report; ``heard_text`` and ``unheard_text`` are whitespace-normalised words, in
        the chunk texts' spelling (punctuation kept), and ``full_text`` is both joined.
    """
    heard: list[str] = []
    unheard: list[str] = []
    written: list[str] = []
    remaining = max(0, played_samples)
    cut_at_s = 0.0
    cut = False
    approximate = False
    for chunk in chunks:
        tokens = chunk.text.split()
        played = min(remaining, max(0, chunk.n_samples))
        remaining -= played
        if played > 0 and not getattr(chunk, "aligned", True):
            approximate = True
        if chunk.sample_rate > 0:
            cut_at_s += played / chunk.sample_rate
        timings = _timings_for(chunk, tokens)
        before = len(heard)
        for token, timing in zip(tokens, timings, strict=True):
            if not cut and _word_heard(timing, played):
                heard.append(token)
            else:
                cut = True
                unheard.append(token)
        # The chunk's written form, when the runtime passed it (TtsChunkReady.written_text).
        source = str(getattr(chunk, "written_text", "") or chunk.text)
        if len(heard) > before:
            written.append(written_prefix(source, len(heard) - before, len(tokens)))
    unheard.extend(unsynthesised_text.split())
    heard_text = " ".join(heard)
    unheard_text = " ".join(unheard)
    full_text = " ".join(part for part in (heard_text, unheard_text) if part)
    return HeardReport(
        turn_id=turn_id,
        full_text=full_text,
        heard_text=heard_text,
        unheard_text=unheard_text,
        cut_at_s=cut_at_s,
        interrupted=interrupted,
        approximate=approximate,
        heard_written=" ".join(w for w in written if w),
    )
