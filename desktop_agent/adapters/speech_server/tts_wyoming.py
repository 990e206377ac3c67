"""The voice on a Wyoming server (``wyoming-piper`` and the like).

``WyomingTts`` is a ``TtsEngine``: each sentence is one Synthesize request naming only the
configured voice (a server may advertise voices it would have to download first), and its
audio comes back as AudioStart, AudioChunks, AudioStop. The server sends no alignments, so
the words of a chunk are placed in proportion to their length (``aligned=False``: the heard
panel marks them approximate). The speaking rate is the server's own.

Runs on: the TTS worker thread.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from desktop_agent.adapters.speech_server.wyoming_link import (
    DEFAULT_TIMEOUT_S,
    WyomingLink,
    parse_uri,
)
from desktop_agent.adapters.tts.tts_piper import (
    WARM_UP_TEXT,
    estimate_word_timings,
    spoken_sentences,
)
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AgentError, TtsError
from desktop_agent.core.ports import SpeechChunk

ASSUMED_RATE = 22050
"""The sample rate reported before the server's first audio (Piper's medium voices)."""


def tts_error(code: str, message: str, fix: str) -> AgentError:
    """The voice's typed error (``WyomingLink``'s error factory)."""
    return TtsError(code, message, fix)


class WyomingTts:
    """A ``TtsEngine`` on a Wyoming server.

    Args:
        uri: ``tcp://host:port`` or ``unix:///path``.
        voice: The server's voice to ask for ('' = its default).
        timeout_s: The longest wait for each event of a sentence's audio.
        warm: Speak a short phrase at load: checks the server and the voice, and learns
            the voice's sample rate.
    """

    def __init__(self, uri: str, voice: str = "", timeout_s: float = DEFAULT_TIMEOUT_S,
                 warm: bool = True) -> None:
        """Read the address; with ``warm``, one round trip now (raises if it fails)."""
        self.address = parse_uri(uri, tts_error)
        self.voice = voice
        self.timeout_s = timeout_s
        self._rate = ASSUMED_RATE
        if warm:
            for _ in self.synthesize(WARM_UP_TEXT):
                pass

    @property
    def sample_rate(self) -> int:
        """The voice's rate in Hz, as the server last sent it."""
        return self._rate

    def set_speaking_rate(self, rate: float) -> None:
        """The pace is set on the server (e.g. wyoming-piper's ``--length-scale``)."""

    def synthesize(self, text: str, cancel: CancelToken | None = None) -> Iterator[SpeechChunk]:
        """One SpeechChunk per sentence of ``text``, each from its own request."""
        for sentence in spoken_sentences(text, cancel):
            audio = self._speak(sentence)
            if len(audio):
                words = estimate_word_timings(sentence.split(), len(audio))
                yield SpeechChunk(text=sentence, audio=audio, sample_rate=self._rate,
                                  words=words, aligned=False)

    def _speak(self, sentence: str) -> Any:
        import numpy as np
        from wyoming.audio import AudioChunk, AudioStart, AudioStop
        from wyoming.tts import Synthesize, SynthesizeVoice

        parts: list[Any] = []
        width, channels = 2, 1
        with WyomingLink(self.address, self.timeout_s, tts_error) as link:
            voice = SynthesizeVoice(name=self.voice) if self.voice else None
            link.send(Synthesize(text=sentence, voice=voice))
            deadline = time.monotonic() + max(self.timeout_s, 1.0) * 3  # the whole sentence
            while True:
                event = link.read(deadline)
                if AudioStart.is_type(event.type):
                    start = AudioStart.from_event(event)
                    self._rate, width, channels = start.rate, start.width, start.channels
                elif AudioChunk.is_type(event.type):
                    chunk = AudioChunk.from_event(event)
                    self._rate, width, channels = chunk.rate, chunk.width, chunk.channels
                    parts.append(chunk.audio)
                elif AudioStop.is_type(event.type):
                    break
        if width != 2:
            raise TtsError("speech_server_format", f"The voice server at {self.address.uri} "
                           f"sends {8 * width}-bit audio; this app plays 16-bit.",
                           "Use a voice server that sends 16-bit audio (wyoming-piper does).")
        audio = np.frombuffer(b"".join(parts), dtype="<i2").astype(np.int16)
        if channels > 1:
            audio = audio[: len(audio) // channels * channels].reshape(-1, channels)[:, 0].copy()
        return audio
