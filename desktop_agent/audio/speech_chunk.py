"""One spoken chunk out of the pieces a voice yields for it, and the text that feeds it.

A ``Synthesize`` command is answered with exactly one ``TtsChunkReady``, but Piper yields
one ``SpeechChunk`` per sentence it finds in the text. ``join_pieces`` makes the one chunk:
the audio concatenated, and every word timing shifted by the samples that precede its
piece, so heard-so-far can still place each word in the joined audio.
"""

from __future__ import annotations

import datetime
import functools
import os
from collections.abc import Sequence

import numpy as np

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.ports import SpeechChunk, TtsEngine, WordTiming
from desktop_agent.core.text.normalize import normalize_for_speech
from desktop_agent.core.text.spoken_forms import DateOrder, date_order_for_locale


def join_pieces(pieces: Sequence[SpeechChunk]) -> SpeechChunk | None:
    """Join the pieces a voice synthesised for one text into one chunk.

    Args:
        pieces: The engine's chunks for one text, in order, all at one sample rate
            (int16 mono audio; word timings in samples from each piece's start).

    Returns:
        One chunk whose text is the pieces' texts joined by a space, whose audio is theirs
        concatenated, whose word timings are in samples from the joined start, and which is
        ``aligned`` only when every piece was; None when there are no pieces (nothing to say).

    Raises:
        ValueError: When the pieces have different sample rates.
    """
    if not pieces:
        return None
    rate = pieces[0].sample_rate
    if any(p.sample_rate != rate for p in pieces):
        raise ValueError(f"pieces at different sample rates: {[p.sample_rate for p in pieces]}")
    words: list[WordTiming] = []
    offset = 0
    for piece in pieces:
        words += [WordTiming(w.word, w.start_sample + offset, w.end_sample + offset)
                  for w in piece.words]
        offset += piece.n_samples
    audio = np.concatenate([np.asarray(p.audio) for p in pieces])
    return SpeechChunk(text=" ".join(p.text for p in pieces), audio=audio, sample_rate=rate,
                       words=tuple(words), aligned=all(p.aligned for p in pieces))


@functools.cache
def system_date_order() -> DateOrder:
    """The order of numeric dates in the user's locale ($LC_ALL, $LC_TIME, then $LANG)."""
    for variable in ("LC_ALL", "LC_TIME", "LANG"):
        name = os.environ.get(variable)
        if name:
            return date_order_for_locale(name)
    return "MDY"


def speak_text(engine: TtsEngine, text: str, cancel: CancelToken | None = None, *,
               today: datetime.date | None = None,
               date_order: DateOrder | None = None) -> SpeechChunk | None:
    """Answer one ``Synthesize``: normalise ``text`` for speech, synthesise it, join the pieces.

    Args:
        engine: The voice.
        text: The clause as the LLM wrote it (digits, markdown, abbreviations...).
        cancel: Checked by the engine between sentences.
        today: Today's date (a date in this year is said without its year); the local
            date when None.
        date_order: How numeric dates are read ("MDY", "DMY", "YMD"); the system
            locale's when None.

    Returns:
        The one chunk for ``text``, or None when there is nothing to say (only markup or
        whitespace, or the engine yielded nothing).

    Runs on: the synthesis thread.
    """
    spoken = normalize_for_speech(
        text, now=today or datetime.date.today(),
        date_order=date_order or system_date_order())
    if not spoken.strip():
        return None
    return join_pieces(list(engine.synthesize(spoken, cancel)))
