"""The clause-chunker port, and a small fallback used when none is injected."""

from __future__ import annotations

from typing import Final, Protocol

CLAUSE_ENDINGS: Final = frozenset(".,!?;:")


class Chunker(Protocol):
    """An incremental splitter of streamed LLM text into speakable clauses."""

    def push(self, text: str) -> list[str]:
        """Add streamed text; return the clauses completed by it (maybe none)."""
        ...

    def flush(self) -> list[str]:
        """Return what is left as final clauses (end of the stream) and start empty."""
        ...


class PunctuationChunker:
    """Splits after . , ! ? ; : when whitespace follows (so '3.5' is never split).

    A fallback: the real chunker (core/text/chunker.py) knows abbreviations and minimum
    clause lengths and is injected by the composition root.
    """

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        """Start with an empty buffer."""
        self._buffer = ""

    def push(self, text: str) -> list[str]:
        """Add streamed text; return the clauses completed by it."""
        self._buffer += text
        out: list[str] = []
        start = 0
        for i in range(1, len(self._buffer)):
            if self._buffer[i - 1] in CLAUSE_ENDINGS and self._buffer[i].isspace():
                clause = self._buffer[start:i].strip()
                if clause:
                    out.append(clause)
                start = i
        self._buffer = self._buffer[start:]
        return out

    def flush(self) -> list[str]:
        """Return the rest as one clause (if any)."""
        rest, self._buffer = self._buffer.strip(), ""
        return [rest] if rest else []
