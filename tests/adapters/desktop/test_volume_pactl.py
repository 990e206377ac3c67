"""The volume tool on a real PulseAudio (the suite's private daemon, its null sink 'speaker').

Every change goes through the registry as the app runs it (``add_desktop_tools``), and the
level is read back with pactl itself, not through the adapter under test.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from desktop_agent.adapters.desktop.desktop_tools import add_desktop_tools
from desktop_agent.adapters.desktop.volume_pactl import PactlVolume
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.args import arguments_from_words
from desktop_agent.core.tools.registry import ToolRegistry


def _pactl(*args: str) -> str:
    return subprocess.run(["pactl", *args], capture_output=True, text=True, check=True,
                          timeout=10, env={**os.environ, "LC_ALL": "C"}).stdout


def _level() -> list[int]:
    return [int(p) for p in re.findall(r"(\d+)%", _pactl("get-sink-volume", "@DEFAULT_SINK@"))]


def _muted() -> bool:
    return _pactl("get-sink-mute", "@DEFAULT_SINK@").strip().endswith("yes")


def _say(registry: ToolRegistry, request: str) -> tuple[str, bool]:
    args = arguments_from_words("set_volume", request)
    assert args is not None, request
    return registry.answer(ToolCall("set_volume", args, "c1"))


def test_spoken_requests_change_the_default_sink(pulse_server: str) -> None:
    registry = add_desktop_tools(ToolRegistry())
    _pactl("set-sink-mute", "@DEFAULT_SINK@", "0")
    assert _say(registry, "Set the volume to thirty percent.") == (
        "The volume is now 30 percent.", False)
    assert _level() == [30, 30]
    assert _say(registry, "turn it down") == ("The volume is now 20 percent.", False)
    assert _level() == [20, 20]
    assert _say(registry, "turn the volume up by twenty five") == (
        "The volume is now 45 percent.", False)
    assert _level() == [45, 45]
    assert _say(registry, "mute the sound")[0].startswith("The sound is muted")
    assert _muted()
    assert _say(registry, "unmute") == ("The volume is now 45 percent.", False)
    assert not _muted()


def test_the_adapter_reads_what_pactl_set(pulse_server: str) -> None:
    _pactl("set-sink-volume", "@DEFAULT_SINK@", "62%")
    _pactl("set-sink-mute", "@DEFAULT_SINK@", "1")
    state = PactlVolume().state()
    assert (state.percent, state.muted) == (62, True)
    _pactl("set-sink-mute", "@DEFAULT_SINK@", "0")


def test_no_sound_server_is_a_spoken_answer(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/nobody-listens")
    with pytest.raises(AgentError) as err:
        PactlVolume().state()
    assert err.value.code == "no_sound_server"
    content, is_error = add_desktop_tools(ToolRegistry()).answer(
        ToolCall("set_volume", {"setting": "30 percent"}, "c1"))
    assert content == ("I can't reach the sound server, so the volume is unchanged. "
                       "Start PulseAudio or PipeWire (pipewire-pulse).")
    assert not is_error  # spoken as it is: the turn did not fail


def test_no_pactl_is_a_spoken_answer(tmp_path: Path) -> None:
    volume = PactlVolume(program=f"{tmp_path}/no-pactl-here")
    with pytest.raises(AgentError) as err:
        volume.set_percent(30)
    assert err.value.code == "no_pactl" and "pulseaudio-utils" in err.value.fix
    registry = add_desktop_tools(ToolRegistry(), volume=volume)
    content, _ = registry.answer(ToolCall("set_volume", {"setting": "down"}, "c1"))
    assert content.startswith("I can't change the volume: the pactl program is not installed.")


def test_a_server_without_that_output_is_a_spoken_answer(pulse_server: str) -> None:
    assert "speaker" in _pactl("list", "short", "sinks")
    volume = PactlVolume(sink="no-such-sink")  # what a server with no output answers
    with pytest.raises(AgentError) as err:
        volume.state()
    assert err.value.code == "no_sound_output"
    content, _ = add_desktop_tools(ToolRegistry(), volume=volume).answer(
        ToolCall("set_volume", {"setting": "mute"}, "c1"))
    assert content.startswith("There is no sound output to change the volume of.")
