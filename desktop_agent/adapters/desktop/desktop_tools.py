"""The desktop tools' executor: each catalog entry with ``executor="desktop"``, implemented.

``core.tools.catalog`` says what each tool is (its rules: ``core.tools.volume``, ``media``,
``launch``, ``clipboard``); this module runs them on the real desktop: the default sound
output through ``pactl`` (``volume_pactl.py``), the media players through MPRIS on the session
bus (``media_mpris.py``), the selection and the clipboard through xclip or wl-clipboard
(``clipboard_xclip.py``). The app, ``ask`` and ``replay`` all add them with ``add_desktop_tools``
to the registry they already built, so a script that says "Set the volume to thirty
percent." changes the same sink the app would.

A missing piece (no pactl, no sound server, no output) is not a failure of the turn: the tool
answers with the sentence that says so and what to do, and that sentence is spoken.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from desktop_agent.adapters.desktop.clipboard_xclip import XclipClipboard
from desktop_agent.adapters.desktop.media_mpris import MprisPlayers
from desktop_agent.adapters.desktop.volume_pactl import PactlVolume
from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.clipboard import AnswerCopier, Clipboard, read_selection
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


class LastReply:
    """The newest reply the user heard, for "copy that": bound to the history once it exists.

    The registry is built before the turn machine that owns the history, so the tool is
    given this and the history is bound to it when the machine is built.

    Runs on: ``bind`` on the machine's thread; calls on the tool thread.
    """

    def __init__(self) -> None:
        """Unbound: nothing to copy yet."""
        self._history: Any = None

    def bind(self, history: Any) -> None:
        """Read ``history.last_reply`` (a ``core.conversation.history.History``) from now on."""
        self._history = history

    def __call__(self) -> str:
        """The newest reply heard ('' before the first)."""
        history = self._history
        return "" if history is None else str(history.last_reply)


def add_desktop_tools(registry: ToolRegistry, *, volume: VolumeControl | None = None,
                      media: MediaPlayers | None = None, clipboard: Clipboard | None = None,
                      last_answer: Callable[[], str] = lambda: "",
                      catalog: Catalog = BUILTIN) -> ToolRegistry:
    """Add every desktop tool of ``catalog`` to ``registry`` (returned, for chaining).

    Args:
        registry: The registry the turn's tools run from.
        volume: The sound output (default: the default sink through pactl).
        media: The media players (default: MPRIS on the session bus).
        clipboard: The selection and clipboard (default: xclip, or wl-clipboard).
        last_answer: The newest reply the user heard (the turn machine's
            ``History.last_reply``; "copy that" copies it). Runs on the tool thread.
        catalog: Where the entries are read.
    """
    sound = volume if volume is not None else PactlVolume()
    players = media if media is not None else MprisPlayers()
    selections = clipboard if clipboard is not None else XclipClipboard()
    copier = AnswerCopier(selections, last_answer)
    runs: dict[str, Callable[[Mapping[str, Any]], str]] = {
        "set_volume": lambda args: spoken(lambda: change_volume(sound, str(args["setting"]))),
        "media_control": lambda args: spoken(lambda: control_media(players,
                                                                   str(args["action"]))),
        "now_playing": lambda _args: spoken(lambda: say_playing(players)),
        "read_selection": lambda _args: spoken(lambda: read_selection(selections)),
        "copy_last_answer": lambda _args: spoken(copier.copy),
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
    raise AgentError("write_needs_confirmation", "That acts on your desktop: it runs only "
                     "after you say yes to its read-back.")
