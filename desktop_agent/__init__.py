"""desktop_agent: a fully local, offline desktop voice assistant."""

from __future__ import annotations

__version__ = "0.1.0"
