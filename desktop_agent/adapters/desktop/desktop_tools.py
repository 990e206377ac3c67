"""The desktop tools' executor: each catalog entry with ``executor="desktop"``, implemented.

``core.tools.catalog`` says what each tool is (its rules: ``core.tools.volume``, ``media``,
``launch``); this module runs them on the real desktop: the default sound output through ``pactl``
(``volume_pactl.py``) and the media players through MPRIS on the session bus
(``media_mpris.py``). The app, ``ask`` and ``replay`` all add them with ``add_desktop_tools``
to the registry they already built, so a script that says "Set the volume to thirty
percent." changes the same sink the app would.

A missing piece (no pactl, no sound server, no output) is not a failure of the turn: the tool
answers with the sentence that says so and what to do, and that sentence is spoken.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from desktop_agent.adapters.desktop.media_mpris import MprisPlayers
from desktop_agent.adapters.desktop.volume_pactl import PactlVolume
from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.media import MediaPlayers, control_media, say_playing
from desktop_agent.core.tools.registry import Tool, ToolRegistry
from desktop_agent.core.tools.tool_def import Catalog
from desktop_agent.core.tools.volume import VolumeControl, change_volume

EXECUTOR: Final = "desktop"
"""The catalog's ``executor`` key of the tools implemented here."""


def spoken(run: Callable[[], str]) -> str:
    """``run()``'s sentence, or, when a piece of the desktop is missing, what to do."""
    try:
        return run()
    except AgentError as exc:
        fix = f" {exc.fix[0].upper()}{exc.fix[1:]}." if exc.fix else ""
        return f"{exc.message}{fix}"


def add_desktop_tools(registry: ToolRegistry, *, volume: VolumeControl | None = None,
                      media: MediaPlayers | None = None, catalog: Catalog = BUILTIN
                      ) -> ToolRegistry:
    """Add every desktop tool of ``catalog`` to ``registry`` (returned, for chaining).

    Args:
        registry: The registry the turn's tools run from.
        volume: The sound output (default: the default sink through pactl).
        media: The media players (default: MPRIS on the session bus).
        catalog: Where the entries are read.
    """
    sound = volume if volume is not None else PactlVolume()
    players = media if media is not None else MprisPlayers()
    runs: dict[str, Callable[[Mapping[str, Any]], str]] = {
        "set_volume": lambda args: spoken(lambda: change_volume(sound, str(args["setting"]))),
        "media_control": lambda args: spoken(lambda: control_media(players,
                                                                   str(args["action"]))),
        "now_playing": lambda _args: spoken(lambda: say_playing(players)),
    }
    for entry in catalog:
        if entry.executor != EXECUTOR or registry.spec(entry.name) is not None:
            continue
        if entry.writes:
            # Registered so its spec reaches the prompt; ToolRegistry.run refuses a write, and
            # the confirmed path runs it through the desk (desktop_desk.py).
            registry.add(Tool(spec=entry.spec, run=_confirmed_only))
        elif entry.name in runs:
            registry.add(Tool(spec=entry.spec, run=runs[entry.name]))
    return registry


def _confirmed_only(_args: Mapping[str, Any]) -> str:
    raise AgentError("write_needs_confirmation", "That opens something: it runs only after "
                     "you say yes to its read-back.")
