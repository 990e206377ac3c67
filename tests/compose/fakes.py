"""Fake engines behind the core ports, for the headless executor's deterministic tests.

Each one is the smallest class that satisfies its Protocol in core/ports.py; they are
synchronous and instant, so the executor's timings and ordering come only from its own
threads and queue.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.ports import (
    ChatMessage,
    LlmDelta,
    SpeechChunk,
    ToolSpec,
    Transcript,
    TranscriptSegment,
    WordTiming,
)

RATE = 16_000
SAMPLES_PER_CHAR = 100
"""Fake speech: this many samples per character of text."""

Script = Callable[[Sequence[ChatMessage]], list[LlmDelta]]
"""What the fake LLM says to a prompt (may raise to fail the run)."""


def say(text: str) -> list[LlmDelta]:
    """``text`` streamed word by word, as a model streams tokens."""
    return [LlmDelta(text=t) for t in re.findall(r"\S+\s*", text)]


@dataclass
class FakeLlm:
    """An LlmEngine that answers from a script and records every prompt."""

    script: Script
    prompts: list[tuple[ChatMessage, ...]] = field(default_factory=list)
    gate: threading.Event | None = None
    """When set up, each run waits for this event before answering (a slow prefill)."""

    def stream_chat(self, messages: Sequence[ChatMessage], cancel: CancelToken | None = None,
                    tools: Sequence[ToolSpec] = (), max_tokens: int = 256) -> Iterator[LlmDelta]:
        self.prompts.append(tuple(messages))
        if self.gate is not None:
            self.gate.wait(30)
        yield from self.script(messages)


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


@dataclass
class FakeAsr:
    """An AsrEngine that hears ``text`` in any audio."""

    text: str
    no_speech_prob: float = 0.05
    heard: list[int] = field(default_factory=list)
    """Length of every buffer transcribed."""

    def transcribe(self, audio: Any, cancel: CancelToken | None = None,
                   context: str = "") -> Transcript:
        self.heard.append(len(audio))
        segments = (TranscriptSegment(self.text, 0.0, len(audio) / RATE, self.no_speech_prob,
                                      -0.2),) if self.text else ()
        return Transcript(self.text, segments, len(audio) / RATE)


def says_the_hour(reply: str) -> bool:
    """True when ``reply`` says the hour of the clock now (or a minute ago) in words.

    A reply is what was said, so a time in it is in words ('three', 'fifteen'), never digits.
    """
    import datetime as dt

    from desktop_agent.core.text.number_words import int_to_words

    words: set[str] = set()
    for moment in (dt.datetime.now(), dt.datetime.now() - dt.timedelta(minutes=1)):
        words |= {int_to_words(moment.hour % 12 or 12), int_to_words(moment.hour)}
        if moment.hour in (0, 12):
            words |= {"noon", "midnight"}
    return bool(words & set(re.findall(r"[\w'-]+", reply.lower())))
