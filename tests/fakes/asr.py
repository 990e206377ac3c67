"""A fake ASR engine: hears the same words in any audio."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.ports import Transcript, TranscriptSegment
from tests.fakes.tts import RATE


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
