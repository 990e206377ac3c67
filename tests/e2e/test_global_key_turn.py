"""A whole push-to-talk turn through the global key: X11 under Xvfb, another program's window
focused, the real models, real speech into a PulseAudio virtual microphone.

The key is held (``xdotool keydown``) while the user's words play into the mic and let go
after them; the reply must be about what was said. The window's own wiring of the same key
(``WindowRemote``) is tested in tests/gui/test_window_remote.py and tests/compose.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from desktop_agent.compose.global_key import start_global_key
from desktop_agent.core.turns.states import State
from tests.adapters.desktop.test_x11_global_key import FocusedWindow, Xvfb
from tests.e2e.test_pulse_app import _say_all, _wait, user_wav  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.models, pytest.mark.slow, pytest.mark.pulse, pytest.mark.timeout(900)]


class ControllerKey:
    """The talk key's entry points on the controller (what ``WindowRemote`` reaches), with
    its listening cues: the start cue plays into the echo path as the user starts to speak."""

    def __init__(self, controller: Any) -> None:
        self.controller = controller
        self.held = False
        self.calls: list[str] = []

    def ptt_start(self) -> str:
        self.calls.append("start")
        self.held = True
        self.controller.ptt_press()
        self.controller.play_cue("start")
        return "Listening."

    def ptt_stop(self) -> str:
        self.calls.append("stop")
        self.held = False
        self.controller.ptt_release()
        self.controller.play_cue("stop")
        return "Stopped listening."


@pytest.fixture(scope="module")
def app(qapp: Any, pulse_server: str, models: Any) -> Iterator[Any]:
    from desktop_agent.adapters.audio.device_audio import DeviceAudio
    from desktop_agent.compose.runtime import build_runtime
    from desktop_agent.core.settings import Settings

    settings = Settings().replace_field("interaction.mode", "push_to_talk")
    rt = build_runtime(settings, DeviceAudio("pulse", "pulse"), echo_cancellation=True)
    rt.controller.start()
    deadline = time.monotonic() + 180
    while not rt.controller.loaded() and time.monotonic() < deadline:
        qapp.processEvents()
        time.sleep(0.05)
    assert rt.controller.loaded(), "the engines did not load"
    yield rt
    rt.shutdown()


def test_holding_the_global_key_while_speaking_gives_a_spoken_reply(
        qtbot: Any, app: Any, user_wav: Any, tmp_path: Any,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    xvfb = Xvfb(tmp_path)
    monkeypatch.setenv("DISPLAY", xvfb.display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("XDG_SESSION_TYPE", "x11")
    window = FocusedWindow(xvfb)  # the user is in another program
    c = app.controller
    target, shown = ControllerKey(c), []
    key = start_global_key("Ctrl+Alt+Space", target, lambda: target.held, shown.append)
    assert key is not None, shown
    try:
        _wait(qtbot, lambda: c.machine.state is State.LISTENING, 120)
        count = len(c.machine.history.messages)
        xvfb.xdotool("keydown", "ctrl+alt+space")
        qtbot.waitUntil(lambda: target.calls == ["start"], timeout=20_000)
        _say_all(qtbot, user_wav("What is the capital of Italy?"))
        qtbot.wait(400)  # the loopback and input buffers still hold the end of it
        xvfb.xdotool("keyup", "ctrl+alt+space")
        qtbot.waitUntil(lambda: target.calls == ["start", "stop"], timeout=20_000)
        _wait(qtbot, lambda: c.machine.state is State.ASSISTANT_SPEAKING, 120)
        _wait(qtbot, lambda: c.machine.state is State.LISTENING, 180)
    finally:
        key.stop()
        window.close()
        xvfb.close()
    users = [m for m in c.machine.history.messages[count:] if m.role == "user"]
    replies = [m for m in c.machine.history.messages[count:] if m.role == "assistant"]
    assert users and "italy" in re.findall(r"[a-z']+", users[-1].content.lower()), users
    assert replies and "rome" in replies[-1].content.lower(), replies
