"""PyInstaller hook for faster-whisper (no upstream hook exists): its assets (Silero VAD)."""

from PyInstaller.utils.hooks import collect_data_files

datas = collect_data_files("faster_whisper")
