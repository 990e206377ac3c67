"""Split a document's text into passages of roughly 40 to 120 words, with exact offsets.

A passage is what retrieval returns and what a claim is checked against, so it must be
long enough to hold a statement with its condition and short enough to read on screen.
The rules:

* Paragraphs (separated by a blank line) are the blocks; a Markdown heading line
  ("# ..." to "###### ...") is a block of its own and starts a new passage once the
  current one has at least ``MIN_WORDS`` words (smaller sections are kept together).
* Blocks are added to the current passage while it stays within ``MAX_WORDS``.
* A block longer than ``MAX_WORDS`` (a PDF page is often one block) is cut at sentence
  ends, else at line ends, else between words, into near-equal parts.
* A span never crosses a page boundary (each page is split on its own).

Offsets are character offsets into the text given; ``text[start:end]`` is the passage
exactly, with its inner line breaks. Stdlib only, pure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

MIN_WORDS: Final = 40
"""A heading starts a new passage only after this many words (short sections merge)."""
MAX_WORDS: Final = 120
"""No passage is longer than this many words (unless one word run has no break at all)."""

_BLANK_LINE: Final = re.compile(r"\n[ \t]*\n")
_HEADING: Final = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+\S.*$", re.MULTILINE)
_SENTENCE_END: Final = re.compile(r"[.!?;:][\"')\]]*(?=\s)|\n")
_WORD: Final = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class Span:
    """One passage: ``text[start:end]``, on ``page`` (1-based) or None."""

    start: int
    end: int
    page: int | None = None


@dataclass(frozen=True, slots=True)
class _Piece:
    start: int
    end: int
    words: int
    heading: bool


def split_passages(text: str, pages: Sequence[tuple[int, int]] = (),
                   markdown: bool = False) -> list[Span]:
    """The passages of ``text``, in order.

    Args:
        text: The whole extracted text of one document.
        pages: For a paged document, the (start, end) offsets of each page in ``text``;
            spans then carry 1-based page numbers. () for an unpaged document.
        markdown: Treat "# ..." lines as headings.

    Returns:
        Spans covering every non-blank part of ``text``; [] for blank text.
    """
    ranges = list(pages) or [(0, len(text))]
    spans: list[Span] = []
    for number, (lo, hi) in enumerate(ranges, start=1):
        page = number if pages else None
        for start, end in _pack(_pieces(text, lo, hi, markdown)):
            spans.append(Span(start, end, page))
    return spans


def _pieces(text: str, lo: int, hi: int, markdown: bool) -> list[_Piece]:
    pieces: list[_Piece] = []
    cursor = lo
    for gap in [*_BLANK_LINE.finditer(text, lo, hi), None]:
        start, end = _strip(text, cursor, hi if gap is None else gap.start())
        if end > start:
            for s, e, heading in _headings(text, start, end, markdown):
                pieces.extend(_cut(text, s, e, heading))
        if gap is not None:
            cursor = gap.end()
    return pieces


def _headings(text: str, lo: int, hi: int, markdown: bool) -> list[tuple[int, int, bool]]:
    """A block as (start, end, is_heading) parts: each heading line is a part of its own."""
    if not markdown:
        return [(lo, hi, False)]
    parts: list[tuple[int, int, bool]] = []
    cursor = lo
    for match in _HEADING.finditer(text, lo, hi):
        if match.start() > cursor:
            parts.append((*_strip(text, cursor, match.start()), False))
        parts.append((*_strip(text, match.start(), match.end()), True))
        cursor = match.end()
    if cursor < hi and text[cursor:hi].strip():
        parts.append((*_strip(text, cursor, hi), False))
    return [p for p in parts if p[1] > p[0]]


def _strip(text: str, lo: int, hi: int) -> tuple[int, int]:
    while lo < hi and text[lo].isspace():
        lo += 1
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    return lo, hi


def _count(text: str, lo: int, hi: int) -> int:
    return sum(1 for _ in _WORD.finditer(text, lo, hi))


def _cut(text: str, lo: int, hi: int, heading: bool) -> list[_Piece]:
    """A block as pieces of at most MAX_WORDS words, cut at the best breaks available."""
    words = _count(text, lo, hi)
    if words <= MAX_WORDS:
        return [_Piece(lo, hi, words, heading)]
    target = words / math.ceil(words / MAX_WORDS)
    pieces = _greedy(text, lo, hi, [m.end() for m in _SENTENCE_END.finditer(text, lo, hi)],
                     target)
    if any(p.words > MAX_WORDS for p in pieces):  # a sentence too long: cut between words
        pieces = _greedy(text, lo, hi, [m.end() for m in _WORD.finditer(text, lo, hi)],
                         target)
    return pieces


def _greedy(text: str, lo: int, hi: int, cuts: list[int], target: float) -> list[_Piece]:
    """Cut at the first break where the piece reaches ``target`` words (or MAX_WORDS)."""
    pieces: list[_Piece] = []
    start, n, last = lo, 0, lo
    for cut in [*cuts, hi]:
        n += _count(text, last, cut)
        last = cut
        if n >= target or n >= MAX_WORDS or cut == hi:
            s, e = _strip(text, start, cut)
            if e > s:
                pieces.append(_Piece(s, e, _count(text, s, e), False))
            start, n = cut, 0
    return pieces


def _pack(pieces: list[_Piece]) -> list[tuple[int, int]]:
    """Consecutive pieces joined into passages of at most MAX_WORDS words."""
    spans: list[tuple[int, int]] = []
    start = end = -1
    words = 0
    only_headings = True
    for piece in pieces:
        new = start < 0 or words + piece.words > MAX_WORDS or (
            piece.heading and words >= MIN_WORDS and not only_headings)
        if new and start >= 0:
            spans.append((start, end))
        if new:
            start, words, only_headings = piece.start, 0, True
        end = piece.end
        words += piece.words
        only_headings = only_headings and piece.heading
    if start >= 0:
        spans.append((start, end))
    return spans
