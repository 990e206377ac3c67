"""What the microphone side listens with.

Voice activity (Silero), the end-of-turn model (Smart Turn), echo cancellation (speexdsp).
"""

__all__ = [
    "speex",
    "turn_smart",
    "vad_silero",
]
