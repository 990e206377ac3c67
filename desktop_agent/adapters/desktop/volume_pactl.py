"""The default sound output through ``pactl``: PulseAudio, or PipeWire's pulse server.

``PactlVolume`` is the ``core.tools.volume.VolumeControl`` the app, ``ask`` and ``replay``
use: it reads and sets the level and mute switch of ``@DEFAULT_SINK@`` (whatever output the
user's sound settings chose), so the change is the one the desktop's own volume shows.
pactl (pulseaudio-utils) talks to PipeWire too, through pipewire-pulse.

Errors are spoken answers with a code: no pactl, no sound server, no output.
Runs on: the tool thread (each call runs pactl to its end, at most 10 s).
"""

from __future__ import annotations

import re
import subprocess
from typing import Final

from desktop_agent.adapters.desktop.child_env import run_child
from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.volume import VolumeState

SINK: Final = "@DEFAULT_SINK@"
_PERCENT: Final = re.compile(r"(\d+)%")
NO_PACTL: Final = ("no_pactl", "I can't change the volume: the pactl program is not installed.",
                   "install pulseaudio-utils (it works with PipeWire too)")
NO_SERVER: Final = ("no_sound_server", "I can't reach the sound server, so the volume is "
                    "unchanged.", "start PulseAudio or PipeWire (pipewire-pulse)")
NO_SINK: Final = ("no_sound_output", "There is no sound output to change the volume of.",
                  "connect or enable a speaker or headphones in the sound settings")


def _fail(what: tuple[str, str, str]) -> AgentError:
    code, message, fix = what
    return AgentError(code, message, fix)


class PactlVolume:
    """The default sink's volume and mute switch, through ``pactl``.

    Runs on: the tool thread.
    """

    def __init__(self, program: str = "pactl", sink: str = SINK) -> None:
        """Use ``program`` (a name on PATH or a path) as pactl, on ``sink`` (the default)."""
        self._program = program
        self._sink = sink

    def _run(self, *args: str) -> str:
        try:
            done = run_child([self._program, *args])
        except FileNotFoundError:
            raise _fail(NO_PACTL) from None
        except subprocess.TimeoutExpired:
            raise _fail(NO_SERVER) from None
        if done.returncode != 0:
            err = done.stderr.lower()
            if "connection" in err or "refused" in err or "no such file" in err:
                raise _fail(NO_SERVER)
            raise _fail(NO_SINK)
        return done.stdout

    def state(self) -> VolumeState:
        """The default output's level (the mean of its channels) and mute switch."""
        levels = [int(p) for p in _PERCENT.findall(self._run("get-sink-volume", self._sink))]
        if not levels:
            raise _fail(NO_SINK)
        muted = self._run("get-sink-mute", self._sink).strip().lower().endswith("yes")
        return VolumeState(percent=round(sum(levels) / len(levels)), muted=muted)

    def set_percent(self, percent: int) -> None:
        """Set every channel of the default output to ``percent``."""
        self._run("set-sink-volume", self._sink, f"{int(percent)}%")

    def set_muted(self, muted: bool) -> None:
        """Mute or unmute the default output."""
        self._run("set-sink-mute", self._sink, "1" if muted else "0")
