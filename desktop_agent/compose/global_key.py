"""The global talk key, wired: the X11 grab's press and release drive the window's own key.

``start_global_key`` runs once the window exists. The key in ``[shortcuts]
global_push_to_talk`` is grabbed on the X server (``adapters.desktop.x11_global_key``); its
listener thread's press and release cross to the GUI thread through queued signals, a
``TapOrHold`` tells a tap (listening stays on until the next tap) from a hold (talk while
down), and the result goes through ``WindowRemote`` - the same entry points as
``desktop-agent ptt start|stop`` and the window's talk key. Where no X11 grab can work
(Wayland, no display, the key taken), the reason is logged; a key another program holds is
shown to the user too, since only they can choose another.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QObject, Qt, Signal

from desktop_agent.core.desktop.tap_hold import TapOrHold
from desktop_agent.core.errors import AgentError, DesktopError

_LOGGER = logging.getLogger(__name__)

SHOWN_CODES = frozenset({"global_key_taken", "global_key_not_on_keyboard", "global_key_lost"})
"""Problems the user can act on: shown in the window, not only logged."""


class TalkTarget(Protocol):
    """What the key acts on (``gui.window_remote.WindowRemote``)."""

    def ptt_start(self) -> str: ...  # noqa: D102

    def ptt_stop(self) -> str: ...  # noqa: D102


class DictateKey:
    """The dictation key's target: its press starts dictation, its release stops it.

    Runs on: GUI thread.
    """

    def __init__(self, dictate: Callable[[str], str]) -> None:
        """Act through ``dictate`` ('start' or 'stop'; the view model's)."""
        self._dictate = dictate
        self.on = False
        """True between a start and its stop (the key's ``held``)."""

    def ptt_start(self) -> str:
        """Start dictating."""
        self.on = True
        return self._dictate("start")

    def ptt_stop(self) -> str:
        """Stop dictating: the words are typed once transcribed."""
        self.on = False
        return self._dictate("stop")


class _Bridge(QObject):
    """Carries the listener thread's edges to the GUI thread (queued connections)."""

    sig_press = Signal(float)
    sig_release = Signal(float)
    """Each with the monotonic time the listener saw the edge: a busy GUI thread that
    handles a press late must not turn a hold into a tap."""
    sig_error = Signal(object)


class GlobalTalkKey:
    """The running global key: tap or hold, on ``target``. ``stop`` on quit.

    Runs on: GUI thread (the listener's callbacks only emit signals).
    """

    def __init__(self, target: TalkTarget, held: Callable[[], bool],
                 notify: Callable[[AgentError], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Act on ``target``; ``held()`` says whether its talk key is down now."""
        self._target = target
        self._held = held
        self._notify = notify
        self._clock = clock
        self.policy = TapOrHold()
        self.bridge = _Bridge()
        queued = Qt.ConnectionType.QueuedConnection
        self.bridge.sig_press.connect(self._pressed, queued)
        self.bridge.sig_release.connect(self._released, queued)
        self.bridge.sig_error.connect(self._failed, queued)
        self.listener: Any = None

    def on_press(self) -> None:
        """The key went down (listener thread): stamp it and hand it to the GUI thread."""
        self.bridge.sig_press.emit(self._clock())

    def on_release(self) -> None:
        """The key came up (listener thread)."""
        self.bridge.sig_release.emit(self._clock())

    def _pressed(self, at: float) -> None:
        if self.policy.listening and not self._held():
            self.policy.reset()  # the turn ended another way (the window's key, ptt stop)
        self._act(self.policy.press(at))

    def _released(self, at: float) -> None:
        self._act(self.policy.release(at))

    def _act(self, action: str) -> None:
        if action == "start":
            self._target.ptt_start()
        elif action == "stop":
            self._target.ptt_stop()

    def _failed(self, problem: DesktopError) -> None:
        self.policy.reset()
        report(problem, self._notify)

    def stop(self) -> None:
        """Release the grab and join the listener (GUI thread, never from a callback)."""
        if self.listener is not None:
            self.listener.stop()
            self.listener = None


def start_global_key(text: str, target: TalkTarget, held: Callable[[], bool],
                     notify: Callable[[AgentError], None]) -> GlobalTalkKey | None:
    """Grab ``text`` (e.g. 'Ctrl+Alt+Space') for ``target``; None when it cannot work here.

    Runs on: GUI thread, once the window exists (a few round trips to the X server).
    """
    if not text.strip():
        _LOGGER.info("global key: none set ([shortcuts] global_push_to_talk is empty)")
        return None
    from desktop_agent.adapters.desktop.x11_global_key import X11GlobalKey
    from desktop_agent.core.desktop.shortcut import parse_shortcut

    try:
        shortcut = parse_shortcut(text)
    except DesktopError as exc:
        report(exc, notify, shown=True)
        return None
    key = GlobalTalkKey(target, held, notify)
    listener = X11GlobalKey(shortcut, on_press=key.on_press, on_release=key.on_release,
                            on_error=key.bridge.sig_error.emit)
    problem = listener.start()
    if problem is not None:
        report(problem, notify)
        return None
    key.listener = listener
    _LOGGER.info("global key: %s grabbed on X11 (tap toggles, hold talks)",
                 "+".join((*shortcut.modifiers, shortcut.keysym)))  # X's names, not words
    return key


def report(problem: AgentError, notify: Callable[[AgentError], None],
           shown: bool = False) -> None:
    """Log ``problem``; show it too when the user can act on it."""
    _LOGGER.warning("global key: %s", problem.describe())
    if shown or problem.code in SHOWN_CODES:
        notify(problem)
