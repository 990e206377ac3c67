"""The real desktop app (``python -m desktop_agent``, real engines) through AT-SPI.

The same private desktop as ``test_screen_reader.py`` (Xvfb, session bus, AT-SPI bus,
XTest keys, the system-Python probe), but the app is the one a user starts: the composition
root with Whisper, the LLM and Piper loading on their threads. Slow (the engines load for a
minute on two busy cores), so it checks what only the real app can show: its identity on
the bus, every control while the models load, the loading line announced when all are
ready, the first-start error banner dismissed with the keyboard, and a push-to-talk tap
answered by the real turn machine (nothing said: back to listening). The user's models are
used where they are; settings and logs go to the test's folder. Nothing is written to the
store: no request is made.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.a11y.reader import (
    activate_window,
    announced,
    control_problems,
    controls,
    controls_table,
    focus_after,
)
from tests.a11y.session import A11ySession, require_pieces, walk

pytestmark = [pytest.mark.gui, pytest.mark.models, pytest.mark.slow, pytest.mark.timeout(600)]


def test_the_real_app_as_a_screen_reader_sees_it(tmp_path: Path, models: Any) -> None:
    require_pieces()
    desktop = A11ySession(tmp_path, private_home=False)  # HOME: where the models are
    env = {"DESKTOP_AGENT_CONFIG_DIR": str(tmp_path / "config"),
           "DESKTOP_AGENT_LOG_DIR": str(tmp_path / "log")}
    try:
        desktop.start([sys.executable, "-m", "desktop_agent"], env, timeout_s=180)
        tree = desktop.tree()
        assert tree["name"] == "Desktop Agent"
        assert [(w["role"], w["name"]) for w in tree["children"]][:1] == [
            ("frame", "Desktop Agent")]
        found = controls(tree)
        print("\n" + controls_table(found))
        assert not control_problems(found), control_problems(found)

        announced(desktop, "All models ready", 0, timeout_s=400)
        first = activate_window(desktop)
        banner = [c for c in controls(desktop.tree()) if c["name"] == "Dismiss error"]
        if banner:  # no sound card here, or a first-start warning: read, then dismissed
            name = first
            for _ in range(15):
                if name == "Dismiss error":
                    break
                name = focus_after(desktop, "Tab")
            assert name == "Dismiss error", "Tab never reached the error banner"
            button = next(n for n in walk(desktop.tree()) if n["name"] == "Dismiss error")
            assert button["description"].startswith("Hide this error: "), button
            assert len(button["description"]) > len("Hide this error: ") + 10, button
            start = desktop.mark()
            desktop.keys("key", "Return")
            desktop.wait_event(lambda e: e["event"] == "object:state-changed:showing"
                               and e["detail1"] == 0 and e["source"]["name"] == "Dismiss error",
                               "the banner hidden", start)
            assert not [n for n in walk(desktop.tree()) if n["name"] == "Dismiss error"
                        and "showing" in n["states"]]

        start = desktop.mark()
        desktop.keys("keydown", "space")
        announced(desktop, "You are speaking", start, timeout_s=60)
        start = desktop.mark()
        desktop.keys("keyup", "space")
        announced(desktop, "Listening", start, timeout_s=120)
    finally:
        desktop.close()
