"""The composition root: builds engines, the runtime, the desktop app and the headless turn.

The only package that imports every layer (core, audio, adapters, runtime, gui).
"""

__all__ = [
    "controller",
    "desktop",
    "engines",
    "global_key",
    "kept_history",
    "knowledge",
    "ledger",
    "llm_backend",
    "mcp",
    "mcp_settings",
    "portal_key",
    "reflection",
    "replay",
    "runtime",
    "single_instance",
    "speech_engines",
    "tool_meanings",
]
