"""Adapters: one module per engine or outside system, behind a core port.

Grouped by role (asr, tts, llm, listening, audio, store, knowledge, embed, models, desktop,
mcp, speech_server).
Never PySide6.
"""

__all__ = [
    "asr",
    "audio",
    "desktop",
    "embed",
    "heap_trim",
    "knowledge",
    "listening",
    "llm",
    "mcp",
    "models",
    "offline",
    "paths",
    "speech_server",
    "store",
    "tts",
]
