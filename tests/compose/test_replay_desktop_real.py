"""``desktop-agent replay`` acts on the desktop as the app does (issue 21), on the real models.

The suite's private PulseAudio is the sound server; private XDG folders hold a throw-away
application and a URL handler that record their launches (the fixture of
tests/adapters/desktop/test_open_confirmed.py), under a private Xvfb. What is checked is
what happened outside the process: the default sink's level, and which program was started.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.desktop.test_open_confirmed import _DROP, Desktop, _lines, desktop  # noqa: F401
from tests.compose.test_replay_real import _replay

pytestmark = [pytest.mark.models, pytest.mark.slow]


def _level() -> list[str]:
    out = subprocess.run(["pactl", "get-sink-volume", "@DEFAULT_SINK@"], check=True,
                         capture_output=True, text=True, timeout=10,
                         env={**os.environ, "LC_ALL": "C"}).stdout
    return re.findall(r"(\d+)%", out)


def test_a_replayed_script_sets_the_volume_and_opens_only_after_yes(
        models: Any, pulse_server: str, desktop: Desktop, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop_agent.adapters import paths

    # the models stay where they are; the desktop is the private one
    monkeypatch.setenv("DESKTOP_AGENT_DATA_DIR", str(paths.data_dir()))
    for key in _DROP:
        monkeypatch.delenv(key, raising=False)
    for key in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_DATA_DIRS", "DISPLAY"):
        monkeypatch.setenv(key, desktop.env[key])
    subprocess.run(["pactl", "set-sink-volume", "@DEFAULT_SINK@", "65%"], check=True,
                   timeout=10)
    rows = _replay(tmp_path, [
        {"say": "Set the volume to thirty percent."},        # 1 at once
        {"say": "Open example dot org in the browser."},     # 2 read back
        {"say": "no"},                                        # 3 nothing opens
        {"say": "open Abacus Pro"},                           # 4 read back
        {"say": "yes"},                                       # 5 opens it, once
    ])
    by_step = {r["step"]: r for r in rows if "step" in r}
    assert by_step[1]["reply"] == "The volume is now thirty percent."  # as spoken
    assert _level() == ["30", "30"]
    assert by_step[2]["pending"]["tool"] == "open_location"
    assert by_step[2]["pending"]["read_back"] == "Open https://example.org in your browser?"
    assert by_step[2]["reply"] == "Open example dot org in your browser?"  # as spoken
    assert by_step[3]["executed"] == [] and by_step[3]["pending"] is None
    assert by_step[4]["reply"] == "Open Abacus Pro?"
    assert [e["tool"] for e in by_step[5]["executed"]] == ["open_app"]
    assert _lines(desktop.app_marker, 1) == ["--fresh"]
    assert not desktop.handler_marker.exists()  # the "no" opened nothing
