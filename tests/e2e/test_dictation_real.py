"""Dictation through the whole app (issue 21): real models, a real recording, a real terminal.

A private Xvfb where an xterm running ``cat > FILE`` has the focus; the app on a virtual
sound card. ``dictate("start")`` (what ``desktop-agent dictate start`` and the global
dictation key call), a real recording (Allison Smith's "You are currently the only person
in this conference.", asterisk-core-sounds-en-wav) played into the mic, ``dictate("stop")``:
the words are typed into the terminal, Enter is never pressed, no model answers and nothing
is spoken. The file holds exactly the text the status reports as typed, made of the
transcript (``dictated_text``). Then the same under Wayland, where the words go out through
the desktop portal's keyboard (Debian's xdg-desktop-portal and a fake desktop).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.desktop.dictation import dictated_text
from desktop_agent.core.turns.states import State
from tests.adapters.desktop.test_selection_typing import Terminal, start_x
from tests.adapters.desktop.test_x11_global_key import Xvfb
from tests.e2e.test_turn_real import runtime  # noqa: F401 - the app on its models, started
from tests.needs import unavailable

pytestmark = [pytest.mark.models, pytest.mark.slow]

RECORDING = Path("/usr/share/asterisk/sounds/en_US_f_Allison/conf-onlyperson.wav")


@pytest.fixture
def x(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Xvfb]:
    server = start_x(tmp_path)
    monkeypatch.setenv("DISPLAY", server.display)  # the app's typist reads it at each use
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    yield server
    server.close()


def _dictate(qtbot: Any, rt: Any, audio: Any, again: bool = False) -> Any:
    """Start dictating, play ``audio`` into the mic, stop; the status once it was typed (or
    not), checked to be the recording's words as the transcript writes them."""
    c = rt.controller
    statuses: list[Any] = []
    c.sig_dictation.connect(statuses.append)
    assert c.dictate("start") == "Dictating."
    if again:
        assert c.dictate("start") == "Already dictating."
    start = rt.backend.inject(audio)
    qtbot.waitUntil(lambda: rt.backend.samples > start + len(audio) + 3200, timeout=20_000)
    assert c.dictate("stop") == "Stopped dictating."
    qtbot.waitUntil(lambda: any(s.kind in ("typed", "not_typed") for s in statuses[1:]),
                    timeout=60_000)
    c.sig_dictation.disconnect(statuses.append)
    done = statuses[-1]
    assert done.kind == "typed", done
    assert "only person" in done.heard.lower()
    assert done.typed == dictated_text(done.heard)
    return done


def test_dictation_types_the_words_into_the_focused_terminal(
        qtbot: Any, x: Xvfb, runtime: Any, tmp_path: Path) -> None:  # noqa: F811
    from desktop_agent.adapters.audio.audio_files import read_audio

    if not RECORDING.is_file():
        unavailable("the real recordings", f"{RECORDING} is missing: apt-get install "
                                           "asterisk-core-sounds-en-wav")
    audio = read_audio(RECORDING)
    term = Terminal(x, tmp_path)
    try:
        c = runtime.controller
        heard: list[Any] = []
        c.sig_heard.connect(heard.append)
        done = _dictate(qtbot, runtime, audio, again=True)
        assert c.machine.state is State.LISTENING and not heard  # no reply, nothing spoken
        assert c.machine.history.exchanges == 0  # the words never reached the conversation
        assert term.text() == done.typed  # exactly, and no Enter: cat got no line end
    finally:
        term.close()


def test_under_wayland_dictation_types_with_the_portals_keyboard(
        qtbot: Any, runtime: Any, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """GNOME or KDE, as the app meets them: the desktop portal's RemoteDesktop keyboard (the
    real xdg-desktop-portal and a fake desktop that records the keys it is sent)."""
    from desktop_agent.adapters.audio.audio_files import read_audio
    from tests.adapters.desktop.portal_desktop import REMOTE_BACKEND_NAME, private_desktop

    if not RECORDING.is_file():
        unavailable("the real recordings", f"{RECORDING} is missing: apt-get install "
                                           "asterisk-core-sounds-en-wav")
    audio = read_audio(RECORDING)
    with private_desktop() as desktop:
        desktop.start_backend()
        desktop.start_remote_backend()
        desktop.start_portal(remote_desktop=True)
        # The app's typist reads these at each use: a Wayland session on the private bus.
        monkeypatch.delenv("DISPLAY", raising=False)
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test-none")
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", desktop.address)
        monkeypatch.setenv("PATH", str(tmp_path))  # no wtype, no wl-copy: the portal or nothing
        monkeypatch.setenv("DESKTOP_AGENT_DATA_DIR", str(tmp_path / "data"))  # its token file
        done = _dictate(qtbot, runtime, audio)
        keys = [(int(args[2][1]), int(args[3][1])) for args in desktop.calls(
            "NotifyKeyboardKeysym", REMOTE_BACKEND_NAME)]
        assert keys == [(ord(ch), state) for ch in done.typed for state in (1, 0)]
