"""Composition root: the only module that imports every layer."""

from __future__ import annotations

import os
import sys
from pathlib import Path

NO_DISPLAY_MESSAGE = """\
desktop_agent: no display found, so the window cannot open.
  The desktop app needs a graphical session (X11 or Wayland).
  Without one you can still use it headless:
    desktop-agent ask --wav QUESTION.wav --out REPLY.wav   answer one spoken question
    desktop-agent doctor                                   check models, devices and engines
  Or run the window on a virtual screen: xvfb-run -a desktop-agent"""


def has_display() -> bool:
    """True when Qt can open a window here."""
    if os.environ.get("QT_QPA_PLATFORM", "").startswith(("offscreen", "minimal", "vnc")):
        return True
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run_gui(screenshot_dir: Path | None = None) -> int:
    """Start the desktop app. Returns the exit status (3 when there is no display)."""
    from desktop_agent.cli import EXIT_NO_DISPLAY

    if not has_display():
        print(NO_DISPLAY_MESSAGE, file=sys.stderr)
        return EXIT_NO_DISPLAY
    from desktop_agent.gui_main import main_window_app

    return main_window_app(screenshot_dir=screenshot_dir)
