"""Exit statuses of the ``desktop-agent`` command."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_DISPLAY = 3
EXIT_NO_INSTANCE = 4
"""``ptt``, ``show``, ``quit``: no desktop-agent is running (nothing was started)."""
