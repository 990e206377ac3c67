"""The pure core: stdlib only. No Qt, numpy, audio or model libraries, no clock reads."""

__all__ = [
    "cancel",
    "clock",
    "conversation",
    "desktop",
    "embed",
    "errors",
    "knowledge",
    "listening",
    "manifest",
    "mcp",
    "ports",
    "privacy",
    "reflection",
    "setting_specs",
    "settings",
    "speech_server",
    "text",
    "tools",
    "turns",
]
