"""The global talk key through the desktop portal, wired as the X11 key is.

``start_portal_key`` gives a ``GlobalTalkKey`` (compose/global_key.py: the listener's edges
cross to the GUI thread through queued signals, a tap toggles and a hold talks, and both go
through ``WindowRemote``, the entry points of ``desktop-agent ptt start|stop`` and the
window's key) whose listener is ``adapters.desktop.portal_shortcuts.PortalGlobalKey`` instead
of the X11 grab. Where the X11 grab cannot work (a Wayland session: KDE, GNOME 48+,
Hyprland), the composition root (``desktop._global_key``) calls it on the GUI thread once
the window exists, with the
same ``[shortcuts] global_push_to_talk`` text (only proposed: the desktop's dialog decides),
and ``stop()``s it on quit. The first start may show the desktop's dialog; later starts
reuse the key it holds. Problems arrive as ``DesktopError`` values: the ones the user can act
on (``SHOWN``) are shown, the rest logged.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import Qt

from desktop_agent.compose.global_key import GlobalTalkKey, TalkTarget, report
from desktop_agent.core.errors import AgentError, DesktopError

_LOGGER = logging.getLogger(__name__)

SHOWN: Final = frozenset({"portal_bind_refused", "portal_failed", "portal_lost"})
"""Portal problems the user can act on (answer the dialog, install the menu entry, restart);
a desktop without GlobalShortcuts is only logged: the ptt command is the way there."""


def start_portal_key(text: str, target: TalkTarget, held: Callable[[], bool],
                     notify: Callable[[AgentError], None], *, bus_address: str | None = None,
                     parent_window: str = "",
                     clock: Callable[[], float] = time.monotonic,
                     shortcut: tuple[str, str] | None = None) -> GlobalTalkKey | None:
    """Ask the desktop portal for the talk key for ``target``; None when it cannot start.

    ``shortcut``: the portal shortcut's id and description (default: push-to-talk's).
    Runs on: GUI thread (returns at once; the portal answers on its own thread).
    """
    from desktop_agent.adapters.desktop.portal_shortcuts import PortalGlobalKey

    key = GlobalTalkKey(target, held, notify, clock)
    # GlobalTalkKey logs every problem and shows the X11 key's; the portal's are shown here.
    key.bridge.sig_error.connect(lambda problem: _show(problem, notify),
                                 Qt.ConnectionType.QueuedConnection)
    listener = PortalGlobalKey(key_text=text, on_press=key.on_press, on_release=key.on_release,
                               on_error=key.bridge.sig_error.emit, bus_address=bus_address,
                               parent_window=parent_window,
                               **({} if shortcut is None else {
                                   "shortcut_id": shortcut[0], "description": shortcut[1]}))
    problem = listener.start()
    if problem is not None:
        report(problem, notify)
        return None
    key.listener = listener
    _LOGGER.info("global key: asking the desktop portal for %s (tap toggles, hold talks)",
                 listener.trigger or "a key of the user's choice")
    return key


def _show(problem: AgentError, notify: Callable[[AgentError], None]) -> None:
    """Show the portal's problems the user can act on. Runs on: GUI thread."""
    if isinstance(problem, DesktopError) and problem.code in SHOWN:
        notify(problem)
