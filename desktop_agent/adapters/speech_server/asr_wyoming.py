"""Speech recognition on a Wyoming server (``wyoming-faster-whisper`` and the like).

``WyomingAsr`` is an ``AsrEngine``: the utterance goes out as AudioStart, AudioChunks and
AudioStop (16 kHz, 16-bit mono) after a Transcribe, and the server's Transcript comes back.
The context of words already heard goes as Whisper's initial prompt where the server reads
one (``context.initial_prompt``; others ignore it). The server gives no per-segment
probabilities, so the transcript is one segment marked as speech.

Runs on: the ASR worker thread.
"""

from __future__ import annotations

import time
from typing import Any, Final

from desktop_agent.adapters.speech_server.wyoming_link import (
    DEFAULT_TIMEOUT_S,
    WyomingLink,
    parse_uri,
)
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AgentError, AsrError
from desktop_agent.core.ports import ASR_SAMPLE_RATE, Transcript, TranscriptSegment

CHUNK_SAMPLES: Final = 1600
"""Samples per AudioChunk: 100 ms at 16 kHz."""


def asr_error(code: str, message: str, fix: str) -> AgentError:
    """The ASR's typed error (``WyomingLink``'s error factory)."""
    return AsrError(code, message, fix)


class WyomingAsr:
    """An ``AsrEngine`` on a Wyoming server.

    Args:
        uri: ``tcp://host:port`` or ``unix:///path``.
        timeout_s: The longest wait for the transcript after the audio is sent.
        language: Sent with the request ('' = the server's default).
        model: The server's model name to ask for ('' = its default).
    """

    def __init__(self, uri: str, timeout_s: float = DEFAULT_TIMEOUT_S, language: str = "en",
                 model: str = "") -> None:
        """Read the address; nothing is sent until the first ``transcribe``."""
        self.address = parse_uri(uri, asr_error)
        self.timeout_s = timeout_s
        self.language = language
        self.model = model

    def transcribe(self, audio: Any, cancel: CancelToken | None = None,
                   context: str = "") -> Transcript:
        """Send ``audio`` (float32 mono 16 kHz) and return the server's transcript.

        Raises ``AsrError`` ``speech_server_down`` (unreachable, silent past the timeout,
        connection dropped) or ``speech_server_error`` (the server said so).
        """
        import numpy as np
        from wyoming.asr import Transcribe
        from wyoming.asr import Transcript as WyTranscript
        from wyoming.audio import AudioChunk, AudioStart, AudioStop

        samples = np.asarray(audio, dtype=np.float32).reshape(-1)
        pcm = (np.clip(samples, -1.0, 1.0) * 32767).astype("<i2")
        fmt = {"rate": ASR_SAMPLE_RATE, "width": 2, "channels": 1}
        duration = len(pcm) / ASR_SAMPLE_RATE
        with WyomingLink(self.address, self.timeout_s, asr_error) as link:
            request = Transcribe(name=self.model or None, language=self.language or None,
                                 context={"initial_prompt": context} if context else None)
            link.send(request, AudioStart(**fmt))
            for start in range(0, len(pcm), CHUNK_SAMPLES):
                if cancel is not None and cancel.cancelled:
                    return Transcript("", (), duration)
                link.send(AudioChunk(audio=pcm[start:start + CHUNK_SAMPLES].tobytes(), **fmt))
            link.send(AudioStop())
            deadline = time.monotonic() + self.timeout_s
            while True:
                event = link.read(deadline)
                if WyTranscript.is_type(event.type):
                    text = WyTranscript.from_event(event).text.strip()
                    break
        if not text:
            return Transcript("", (), duration)
        segment = TranscriptSegment(text, 0.0, duration, no_speech_prob=0.0, avg_logprob=0.0)
        return Transcript(text, (segment,), duration)
