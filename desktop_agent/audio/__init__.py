"""Audio in numpy: frames, resampling, rings, capture pipeline, player."""

__all__ = [
    "backend",
    "canceller_health",
    "capture",
    "capture_trace",
    "chime",
    "echo_gate",
    "far_alignment",
    "frames",
    "gains",
    "mic_history",
    "playback_turns",
    "player",
    "reference",
    "resample",
    "ring",
    "speech_chunk",
    "virtual",
]
