"""The tray icon: Talk, Show and Quit from the panel, and the turn's state in its tooltip.

Made only where the desktop has a tray (``QSystemTrayIcon.isSystemTrayAvailable()``: KDE,
Ubuntu's GNOME with its AppIndicator extension, most X11 panels; not stock GNOME). Its
entries are the window's own entry points, as ``desktop-agent ptt toggle``, ``show`` and
``quit`` are: Talk is ``WindowRemote.ptt_toggle``, Show is ``WindowRemote.show``, Quit
triggers the window's Agent > Quit action. A left click shows the window.

The tray does not keep the app alive: closing the window still quits (Agent > Quit is the
window's ``close``), so nothing is ever left running out of sight by surprise.
"""

from __future__ import annotations

from typing import Final, Protocol

from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon, QWidget

from desktop_agent.core.turns.states import State
from desktop_agent.runtime.view_api import AgentViewModel

APP_NAME: Final = "Desktop Agent"
STATE_WORDS: Final = {
    State.LISTENING: "idle",
    State.USER_SPEAKING: "listening",
    State.PROCESSING: "thinking",
    State.WAITING_FOR_TOOL: "thinking",
    State.ASSISTANT_SPEAKING: "speaking",
    State.INTERRUPTED: "idle",
    State.ERROR: "error",
}
"""What the tooltip says for each state of the turn machine (LISTENING is the machine
waiting for you, so "idle"; USER_SPEAKING is the app taking in what you say)."""


class TrayRemote(Protocol):
    """What the tray calls: ``gui.window_remote.WindowRemote`` (the control socket's)."""

    def ptt_toggle(self) -> str:
        """Press the talk key if it is up, else release it."""

    def show(self, activation_token: str) -> str:
        """Unminimise, raise and activate the window."""


def tray_available() -> bool:
    """True when the desktop shows tray icons now."""
    return bool(QSystemTrayIcon.isSystemTrayAvailable())


class AgentTray(QSystemTrayIcon):
    """The app's tray icon and its menu.

    Args:
        remote: the window's control entry points (``WindowRemote``).
        quit_action: the window's Agent > Quit action.
        view_model: its ``sig_transition`` drives the tooltip.
        icon: the app's icon.
        parent: owns the tray (the window).

    Runs on: GUI thread.
    """

    def __init__(self, remote: TrayRemote, quit_action: QAction, view_model: AgentViewModel,
                 icon: QIcon, parent: QWidget | None = None) -> None:
        """Build the menu; not shown until ``show()``."""
        super().__init__(icon, parent)
        self._remote = remote
        self.state_word = "idle"
        """The word the tooltip shows now."""
        # The menu has no parent widget (a QWidget parent would make it a child, not a
        # popup); the tray keeps the reference.
        self.menu = QMenu()
        self.menu.setAccessibleName(f"{APP_NAME} tray menu")
        self.action_talk = self._add("&Talk", "Start or stop listening, as the talk key does",
                                     self._on_talk_action_triggered)
        self.action_show = self._add("&Show window", "Bring the window to the front",
                                     self._on_show_action_triggered)
        self.menu.addSeparator()
        self.action_quit = self._add("&Quit", "Close Desktop Agent", quit_action.trigger)
        self.setContextMenu(self.menu)
        self.activated.connect(self._on_tray_activated)
        view_model.sig_transition.connect(self._on_view_model_transition)
        self._set_tooltip()

    def _add(self, text: str, tip: str, slot: object) -> QAction:
        action = QAction(text, self.menu)
        action.setToolTip(tip)
        action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.menu.addAction(action)
        return action

    def _set_tooltip(self) -> None:
        self.setToolTip(f"{APP_NAME}: {self.state_word}")

    def _on_talk_action_triggered(self) -> None:
        self._remote.ptt_toggle()

    def _on_show_action_triggered(self) -> None:
        self._remote.show("")

    def _on_tray_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:  # a left click
            self._remote.show("")

    def _on_view_model_transition(self, transition: object) -> None:
        target = getattr(transition, "target", None)
        self.state_word = STATE_WORDS.get(target, self.state_word)  # type: ignore[arg-type]
        self._set_tooltip()


def make_tray(remote: TrayRemote, quit_action: QAction, view_model: AgentViewModel,
              icon: QIcon, parent: QWidget | None = None) -> AgentTray | None:
    """A shown ``AgentTray``, or None (nothing made) where the desktop has no tray."""
    if not tray_available():
        return None
    tray = AgentTray(remote, quit_action, view_model, icon, parent)
    tray.show()
    return tray
