"""A fake TTS engine: one piece per sentence, silence whose length is set by the text.

Each fake in tests/fakes/ is the smallest class that satisfies its Protocol in
core/ports.py; they are synchronous and instant.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.ports import SpeechChunk, WordTiming

RATE = 16_000
SAMPLES_PER_CHAR = 100
"""Fake speech: this many samples per character of text."""


@dataclass
class FakeTts:
    """A TtsEngine: one piece per sentence, silence of a length set by the text."""

    fail_on: str | None = None
    """Raise when the text contains this."""
    texts: list[str] = field(default_factory=list)

    @property
    def sample_rate(self) -> int:
        return RATE

    def synthesize(self, text: str, cancel: CancelToken | None = None) -> Iterator[SpeechChunk]:
        self.texts.append(text)
        if self.fail_on is not None and self.fail_on in text:
            from desktop_agent.core.errors import TtsError

            raise TtsError("voice_broken", "The fake voice broke.")
        for sentence in re.findall(r"[^.!?]+[.!?]*", text):
            sentence = sentence.strip()
            if sentence:
                yield piece(sentence)


def piece(text: str) -> SpeechChunk:
    """A fake chunk for ``text``: one word slot per character, aligned."""
    words, pos = [], 0
    for token in text.split():
        start = pos * SAMPLES_PER_CHAR
        words.append(WordTiming(token, start, start + len(token) * SAMPLES_PER_CHAR))
        pos += len(token) + 1
    audio = np.full(len(text) * SAMPLES_PER_CHAR, 7, dtype=np.int16)
    return SpeechChunk(text=text, audio=audio, sample_rate=RATE, words=tuple(words),
                       aligned=True)
