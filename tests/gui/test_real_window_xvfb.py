"""The real window under Xvfb, driven through one scripted turn on the real models.

Saves PNGs of the main states (listening, user speaking, processing, assistant speaking,
interrupted with the heard panel) to tests' tmp dir; set DESKTOP_AGENT_SCREENSHOTS to keep
them somewhere to look at.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.needs import unavailable

pytestmark = [pytest.mark.models, pytest.mark.slow, pytest.mark.gui]

STATES = ("02_listening", "03_user_speaking", "04_processing", "05_assistant_speaking",
          "06_interrupted_heard_panel")


def test_real_window_screenshots(tmp_path: Path, models: object) -> None:
    if shutil.which("xvfb-run") is None:
        unavailable("xvfb-run", "Debian xvfb is not installed (apt-get install xvfb xauth)")
    out = Path(os.environ.get("DESKTOP_AGENT_SCREENSHOTS", tmp_path / "shots"))
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env["DESKTOP_AGENT_CONFIG_DIR"] = str(tmp_path / "config")
    proc = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1400x900x24", sys.executable, "-m",
         "desktop_agent.cli", "gui", "--screenshot-dir", str(out)],
        capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in STATES:
        png = out / f"{name}.png"
        assert png.is_file(), f"{name} was not captured"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.stat().st_size > 20_000  # a real window, not a blank frame
