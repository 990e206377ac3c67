"""Split streamed LLM tokens into chunks a TTS engine can start speaking.

The first chunk is cut as early as it sounds natural, so the voice starts while the
model is still writing: at the first clause mark (, ; : dash) or sentence end once it
holds ``min_first_words`` words (a sentence end always qualifies: "Sure." is a fine
first chunk), or at a word boundary after ``max_first_words`` words when no
punctuation comes. Later chunks are whole sentences, cut at ``max_chars``.

A sentence ends at . ! ? or an ellipsis followed by whitespace, so "3.5", "9:40",
"1,234" and "example.com/a.b" never split; nor do abbreviations ("e.g.", "Dr.") or
initials ("J. R. R."). A line break ends a sentence at a blank line, after a
heading or list item, and before one. A fenced code block is one chunk, however
long, so the normaliser can recognise and replace it. Chunks are raw text with
the outer whitespace stripped; chunks never split a word.
"""

from __future__ import annotations

import re
from typing import Final

from desktop_agent.core.errors import SettingsError

_TERMINATORS: Final = frozenset(".!?\u2026")
_CLAUSE_MARKS: Final = frozenset(",;:")
_DASHES: Final = frozenset("\u2014\u2013")  # em dash, en dash
_CLOSERS: Final = frozenset(")]}'\"\u2019\u201d\u00bb*_`")
_OPENERS: Final = "([{'\"\u2018\u201c\u00ab*_`"
_NEVER_END: Final = frozenset(
    {"mr", "mrs", "ms", "dr", "prof", "sr", "st", "vs", "mt", "e.g", "i.e", "cf", "approx",
     "ca", "fig", "viz", "gen", "gov", "rev", "capt", "lt", "sgt", "col"}
)  # fmt: skip
"""Abbreviations that (almost) never end a sentence: the "." is not a boundary."""
_MAYBE_END: Final = frozenset({"etc", "inc", "ltd", "co", "corp", "jr", "al"})
"""Abbreviations that end a sentence only when a capital letter follows."""
_MARKER: Final = re.compile(r"(?:[-*+\u2022]\s|#{1,6}\s|[0-9]{1,3}[.)]\s|>|```|~~~)")
"""The start of a markdown block line: bullet, heading, numbered item, quote, fence."""
_FENCE: Final = re.compile(r"(`{3,}|~{3,})")
_WHITESPACE: Final = re.compile(r"\s")
_NOT_HERE: Final = -1
"""Returned by the boundary helpers when the position is not a chunk end."""
_MARKER_LOOKAHEAD: Final = 4
"""Characters needed after a line break to tell whether a block marker starts there."""


class ClauseChunker:
    """Incremental clause/sentence splitter for one streamed reply.

    Not thread-safe: one chunker per reply, fed by one thread. ``flush`` ends the
    reply and resets the chunker, so it can be reused for the next one.
    """

    __slots__ = ("min_first_words", "max_first_words", "max_chars", "_buf", "_first_done")

    def __init__(
        self, *, min_first_words: int = 3, max_first_words: int = 8, max_chars: int = 200
    ) -> None:
        """Create a chunker.

        Args:
            min_first_words: Words the first chunk needs before a clause mark may end it.
            max_first_words: Words after which the first chunk is cut at the next space
                even without punctuation.
            max_chars: Longest chunk (fenced code excepted); longer sentences are cut
                at the last clause mark, else the last space, within the limit.

        Raises:
            SettingsError: When the limits are not positive or min > max.
        """
        if not 1 <= min_first_words <= max_first_words or max_chars < 20:
            raise SettingsError(
                "chunker_settings",
                f"invalid chunker limits: min_first_words={min_first_words}, "
                f"max_first_words={max_first_words}, max_chars={max_chars}",
                "use 1 <= min_first_words <= max_first_words and max_chars >= 20",
            )
        self.min_first_words = min_first_words
        self.max_first_words = max_first_words
        self.max_chars = max_chars
        self._buf = ""
        self._first_done = False

    def push(self, token_text: str) -> list[str]:
        """Add streamed text and return the chunks that are now complete (often none)."""
        self._buf += token_text
        return self._drain(final=False)

    def flush(self) -> list[str]:
        """End the reply: return every remaining chunk and reset for the next reply."""
        chunks = self._drain(final=True)
        rest = self._buf.strip()
        if rest:
            chunks.append(rest)
        self.reset()
        return chunks

    def reset(self) -> None:
        """Drop buffered text (e.g. the turn was cancelled) and start a new reply."""
        self._buf = ""
        self._first_done = False

    @property
    def pending(self) -> str:
        """Text received but not yet emitted."""
        return self._buf

    # ---- splitting ---------------------------------------------------------------------

    def _drain(self, *, final: bool) -> list[str]:
        chunks: list[str] = []
        while True:
            end = self._split_point(final)
            if end is None or end <= 0:
                return chunks
            chunk, self._buf = self._buf[:end].strip(), self._buf[end:]
            if chunk:
                chunks.append(chunk)
                self._first_done = True

    def _split_point(self, final: bool) -> int | None:
        """Where the next chunk ends in the buffer, or None to wait for more text."""
        buf = self._buf
        end = self._next_boundary(final)
        head = buf.lstrip()
        if _FENCE.match(head):
            return end
        offset = len(buf) - len(head)
        limit = offset + self.max_chars
        if (end if end is not None else len(buf)) <= limit:
            return end
        return self._cap_split(offset, limit) or end

    def _cap_split(self, offset: int, limit: int) -> int | None:
        """A cut at or before ``limit``: the last clause mark, else the last space."""
        buf = self._buf
        for index in range(limit - 1, offset + self.max_chars // 3, -1):
            if (buf[index] in _CLAUSE_MARKS or buf[index] in _DASHES) and (
                index + 1 < len(buf) and buf[index + 1].isspace()
            ):
                return index + 1
        space = max(buf.rfind(ws, offset, limit + 1) for ws in " \n\t")
        if space > offset:
            return space
        match = _WHITESPACE.search(buf, limit)  # one huge word: cut right after it
        return match.start() if match else None

    def _next_boundary(self, final: bool) -> int | None:
        buf = self._buf
        size = len(buf)
        words = 0
        line_begin = 0
        first = not self._first_done
        index = 0
        while index < size:
            char = buf[index]
            if char.isspace():
                if char == "\n":
                    verdict = self._line_break(line_begin, index, final)
                    if verdict is None or verdict:
                        return None if verdict is None else index + 1
                    line_begin = index + 1
                if first and words >= self.max_first_words:
                    return index
                index += 1
                continue
            if index == 0 or buf[index - 1].isspace():
                words += 1
                if buf[line_begin:index].strip() == "":
                    fence = self._fence(index, final)
                    if fence != _NOT_HERE:
                        return fence
            end = self._boundary_at(index, words, final)
            if end != _NOT_HERE:
                return end
            index += 1
        return size if final else None

    def _boundary_at(self, index: int, words: int, final: bool) -> int | None:
        """Chunk end if the punctuation at ``index`` ends a chunk; None: wait; else -1."""
        buf = self._buf
        char = buf[index]
        first = not self._first_done
        if char in _TERMINATORS:
            end = index
            while end < len(buf) and buf[end] in _TERMINATORS:
                end += 1
            while end < len(buf) and buf[end] in _CLOSERS:
                end += 1
            if end == len(buf):
                return end if final else None
            if not buf[end].isspace():
                return _NOT_HERE
            ends = buf[index:end].rstrip("".join(_CLOSERS)) != "." or self._full_stop(index, end)
            return self._settled(ends, end, final)
        if not first or words < self.min_first_words:
            return _NOT_HERE
        after = buf[index + 1] if index + 1 < len(buf) else ""
        if char in _DASHES:
            return index + 1
        if char in _CLAUSE_MARKS or (char == "-" and buf[index - 1 : index] == " "):
            if not after:
                return index + 1 if final else None
            return index + 1 if after.isspace() else _NOT_HERE
        return _NOT_HERE

    def _settled(self, ends: bool | None, end: int, final: bool) -> int | None:
        if ends is None:
            return end if final else None
        return end if ends else _NOT_HERE

    def _full_stop(self, index: int, end: int) -> bool | None:
        """Whether the single "." at ``index`` ends a sentence (None: need more text)."""
        buf = self._buf
        start = max(buf.rfind(" ", 0, index), buf.rfind("\n", 0, index)) + 1
        word = buf[start:index].lstrip(_OPENERS).lower()
        if word in _NEVER_END or (len(word) == 1 and word.isalpha()):
            return False
        if word.isdigit() and buf[buf.rfind("\n", 0, start) + 1 : start].strip() == "":
            return False  # "1. " starting a line is a list number
        if word in _MAYBE_END or "." in word:
            rest = buf[end:].lstrip()
            if not rest:
                return None
            return rest[0].isupper()
        return True

    def _line_break(self, line_begin: int, index: int, final: bool) -> bool | None:
        """Whether the line break at ``index`` ends a sentence (None: need more text)."""
        buf = self._buf
        line = buf[line_begin:index].strip()
        if not line:
            return False
        if _MARKER.match(line):
            return True
        rest = buf[index + 1 :].lstrip(" \t")
        if not rest:
            return None if not final else True
        if rest[0] == "\n":
            return True
        if len(rest) < _MARKER_LOOKAHEAD and not final and not any(c.isspace() for c in rest):
            return None
        return bool(_MARKER.match(rest))

    def _fence(self, index: int, final: bool) -> int | None:
        """At a line start: the end of a fenced block starting here; None: wait; else -1."""
        buf = self._buf
        rest = buf[index:]
        match = _FENCE.match(rest)
        if match is None:
            if not final and len(rest) < 3 and rest == rest[0] * len(rest) and rest[0] in "`~":
                return None  # maybe the start of a fence
            return _NOT_HERE
        if buf[:index].strip():
            return index  # speak what came before the code first
        fence = match.group(1)
        open_end = buf.find("\n", index)
        if fence in buf[index + len(fence) : open_end if open_end != -1 else len(buf)]:
            return _NOT_HERE  # ```inline``` on one line is not a block
        while open_end != -1:
            close_end = buf.find("\n", open_end + 1)
            line = buf[open_end + 1 : close_end if close_end != -1 else len(buf)].strip()
            if line and line == fence[0] * len(line) and len(line) >= len(fence):
                if close_end != -1:
                    return close_end
                return len(buf) if final else None
            open_end = close_end
        return len(buf) if final else None


FIRST_CLAUSE_MAX_WORDS: Final = 3
"""The spoken reply starts after at most this many words: on two cores each word of
look-ahead costs about 40 ms of silence before the first audio."""


def first_clause_chunker() -> ClauseChunker:
    """The chunker the runtime uses: an early first clause, then sentences."""
    return ClauseChunker(min_first_words=2, max_first_words=FIRST_CLAUSE_MAX_WORDS)
