"""Speech recognition engines (faster-whisper)."""

__all__ = [
    "asr_whisper",
]
