"""Speech engines on another computer: Wyoming clients for speech recognition and voice."""

__all__ = ["asr_wyoming", "fallback", "probe", "tts_wyoming", "wyoming_link"]
