"""Robust word tokenising for the policies: case, punctuation, hyphens, annotations."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Final

_ANNOTATION: Final = re.compile(r"\[[^\]]*\]?|\([^)]*\)?|\*[^*]+\*|\u266a[^\u266a]*\u266a?")
"""ASR tags for non-speech: "[BLANK_AUDIO]", "(music)", "*laughs*", "♪ la la ♪"."""
_WORD: Final = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_REPEAT: Final = re.compile(r"(.)\1+")


def spoken_words(text: str, *, squeeze: bool = False) -> tuple[str, ...]:
    """The lower-case words of ``text``, without punctuation or non-speech tags.

    Hyphens split words ("Mm-hm." -> ("mm", "hm")); apostrophes inside a word stay
    ("that's"). With ``squeeze``, runs of a repeated letter collapse to one
    ("Mmmm" -> "m", "yeahhh" -> "yeah"), so elongated sounds match their list entry.
    """
    text = unicodedata.normalize("NFKC", text).lower()
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    words = _WORD.findall(_ANNOTATION.sub(" ", text))
    if squeeze:
        return tuple(_REPEAT.sub(r"\1", word) for word in words)
    return tuple(words)


def phrase_set(phrases: Iterable[str], *, squeeze: bool = False) -> frozenset[tuple[str, ...]]:
    """Tokenise a list of phrases once, for :func:`covered_by`."""
    return frozenset(
        words for words in (spoken_words(p, squeeze=squeeze) for p in phrases) if words
    )


def covered_by(words: tuple[str, ...], phrases: frozenset[tuple[str, ...]]) -> bool:
    """Whether ``words`` is a sequence of ``phrases`` (repeats allowed) and not empty.

    E.g. ("thank", "you", "thank", "you") is covered by {("thank", "you")}.
    """
    if not words:
        return False
    lengths = sorted({len(p) for p in phrases})
    reachable = [False] * (len(words) + 1)
    reachable[0] = True
    for start in range(len(words)):
        if not reachable[start]:
            continue
        for length in lengths:
            if start + length <= len(words) and words[start : start + length] in phrases:
                reachable[start + length] = True
    return reachable[len(words)]


def contains_phrase(words: tuple[str, ...], phrases: frozenset[tuple[str, ...]]) -> bool:
    """Whether any of ``phrases`` occurs in ``words`` as a contiguous run."""
    for phrase in phrases:
        size = len(phrase)
        if any(words[i : i + size] == phrase for i in range(len(words) - size + 1)):
            return True
    return False
