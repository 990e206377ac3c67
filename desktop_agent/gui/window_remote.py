"""The control socket's commands, carried out by the main window as its own keys do.

``desktop-agent ptt start`` is the talk key going down (the window's ``PttKeyFilter`` signal,
so the button, the announcement and ``view_model.ptt_press`` follow exactly as for the key),
``ptt stop`` the key coming up (each with the soft listening cue, since whoever uses them may
not be looking at the window: ``[shortcuts] cues``), ``dictate`` starts or stops dictation
into the focused window (``runtime/dictation.py``), ``ptt cancel`` drops the turn (and
answers a waiting confirmation card with Cancel, as its Esc does), ``show`` raises the
window, ``quit`` is the Agent menu's Quit. No second path into the runtime: only the
window's own entry points.
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, QTimer

from desktop_agent.gui.main_window import MainWindow


class WindowRemote:
    """``runtime.instance_server.InstanceTarget`` on a ``MainWindow``.

    Runs on: GUI thread.
    """

    def __init__(self, window: MainWindow) -> None:
        """Act on ``window``."""
        self._window = window

    def ptt_start(self) -> str:
        """Press the talk key (nothing if it is already down)."""
        if self._window.ptt_held:
            return "Already listening."
        self._window.ptt_filter.sig_pressed.emit()
        self._window.view_model.play_cue("start")
        return "Listening."

    def ptt_stop(self) -> str:
        """Release the talk key: the utterance ends and the turn goes on."""
        if not self._window.ptt_held:
            return "Was not listening."
        self._window.ptt_filter.sig_released.emit()
        self._window.view_model.play_cue("stop")
        return "Stopped listening."

    def ptt_toggle(self) -> str:
        """Press the key if it is up, else release it."""
        return self.ptt_stop() if self._window.ptt_held else self.ptt_start()

    def ptt_cancel(self) -> str:
        """Drop the turn: recording, thinking or speaking stop; a waiting card is cancelled."""
        window = self._window
        window.view_model.cancel_turn()
        if window.ptt_held:  # the key comes up too; the machine, back in LISTENING, ignores it
            window.ptt_filter.sig_released.emit()
            window.view_model.play_cue("stop")
        card = window.actions_ui.action_cancel
        if card.isEnabled():  # a confirmation card waits: its Cancel (Esc, Ctrl+N)
            card.trigger()
            return "Cancelled, and the pending action with it."
        return "Cancelled."

    def dictate(self, action: str) -> str:
        """Dictation into the window that has the focus (its cues are the runtime's)."""
        return self._window.view_model.dictate(action)

    def show(self, activation_token: str) -> str:
        """Unminimise, raise and activate the window."""
        window = self._window
        if activation_token:  # Qt's Wayland plugin reads (and clears) it in requestActivate
            os.environ["XDG_ACTIVATION_TOKEN"] = activation_token
        window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
        window.show()
        window.raise_()
        window.activateWindow()
        return "Shown."

    def quit(self) -> str:
        """The Agent menu's Quit, once the reply has gone out."""
        QTimer.singleShot(0, self._window.action_quit.trigger)
        return "Quitting."
