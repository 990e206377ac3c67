"""desktop_agent: a fully local, offline desktop voice assistant."""

from __future__ import annotations

__all__ = [
    "adapters",
    "audio",
    "cli",
    "compose",
    "core",
    "devtools",
    "gui",
    "runtime",
]


__version__ = "0.1.0"
