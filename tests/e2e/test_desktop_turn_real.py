"""The whole app acts on the desktop by voice (issue 21): real models, a virtual sound card
for the conversation, and the suite's private PulseAudio as the desktop's sound server.

Push-to-talk "Set the volume to thirty percent.": the app's own tool worker runs the volume
tool (``compose/runtime.py`` wires the desktop tools as ``ask`` and ``replay`` do), the
default sink is at 30 % afterwards, and the level is what the user hears.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.turns.states import State

pytestmark = [pytest.mark.models, pytest.mark.slow, pytest.mark.pulse]


def _level() -> list[str]:
    out = subprocess.run(["pactl", "get-sink-volume", "@DEFAULT_SINK@"], check=True,
                         capture_output=True, text=True, timeout=10,
                         env={**os.environ, "LC_ALL": "C"}).stdout
    return re.findall(r"(\d+)%", out)


def test_the_app_sets_the_volume_by_voice(qtbot: Any, models: Any, speak: Any,
                                          pulse_server: str, tmp_path: Path) -> None:
    from desktop_agent.audio.virtual import VirtualAudio
    from desktop_agent.compose.runtime import build_runtime
    from desktop_agent.core.settings import Settings

    subprocess.run(["pactl", "set-sink-volume", "@DEFAULT_SINK@", "65%"], check=True,
                   timeout=10)
    rt = build_runtime(Settings(), VirtualAudio(), echo_cancellation=False,
                       store_path=tmp_path / "store.sqlite3")
    try:
        c = rt.controller
        c.start()
        qtbot.waitUntil(c.loaded, timeout=120_000)
        heard: list[Any] = []
        c.sig_heard.connect(heard.append)
        audio = speak("Set the volume to thirty percent.")
        c.ptt_press()
        start = rt.backend.inject(audio)
        qtbot.waitUntil(lambda: rt.backend.samples > start + len(audio) + 1600, timeout=20_000)
        c.ptt_release()
        qtbot.waitUntil(lambda: bool(heard) and c.machine.state is State.LISTENING,
                        timeout=90_000)
        assert heard[-1].heard_written == "The volume is now 30 percent."
        assert _level() == ["30", "30"]
    finally:
        rt.shutdown()
