"""Sound cards and sound files: PortAudio streams, the real device, audio files."""

__all__ = [
    "audio_devices",
    "audio_files",
    "audio_io",
    "device_audio",
]
