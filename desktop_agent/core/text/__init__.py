"""Speech text: streaming clause chunking and normalisation for TTS (stdlib only)."""

from __future__ import annotations

from desktop_agent.core.text.chunker import ClauseChunker
from desktop_agent.core.text.normalize import CODE_PHRASE, normalize_for_speech

__all__ = [
    "chunker",
    "fts_query",
    "markdown",
    "normalize",
    "number_words",
    "passages",
    "spoken_forms",
    "vocabulary",
    "wer",
    "CODE_PHRASE",
    "ClauseChunker",
    "normalize_for_speech",
]
