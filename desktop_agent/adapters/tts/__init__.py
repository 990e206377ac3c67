"""Voices (Piper)."""

__all__ = [
    "tts_piper",
]
