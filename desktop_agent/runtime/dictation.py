"""Dictation: the words spoken while it is on are typed into the window that had the focus.

``Dictation.start`` notes the window that has the focus (never the app's own), sounds the
start cue and presses the talk key; ``stop`` releases it and sounds the stop cue. The turn
machine records and transcribes as for any push-to-talk turn, but its final transcripts pass
through ``take_final`` first: their words are kept here and the machine gets "no speech",
so no model sees them and nothing is said or written into the conversation. When the turn
is back in LISTENING, the words (``core.desktop.dictation.dictated_text``: Whisper's
capitals and punctuation, the spoken "new line", "full stop" ... mapped) are typed on a
thread of their own by the ``Typist`` (XTest; wtype or the clipboard under Wayland), only
if the window that had the focus at the start still has it; otherwise they go to the
clipboard. ``sig_status`` says each step for the window's status bar, which never takes
the focus.

Runs on: GUI thread (typing on a short-lived thread of its own).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from desktop_agent.core.desktop.dictation import dictated_text, joined
from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.type_text import OWN_WINDOW, Typist
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import State, Transition

_LOGGER = logging.getLogger(__name__)

OWN_FOCUS = ("My own window has the focus, so dictation did not start. Click into the "
             "window to type into, then start dictating.")


@dataclass(frozen=True, slots=True)
class DictationStatus:
    """One step of dictation, for the status bar (and tests)."""

    kind: str
    """'listening', 'typing', 'typed', 'not_typed' (said why) or 'off'."""
    text: str
    """What the status bar shows."""
    typed: str = ""
    """'typed' and 'not_typed': the text made of the words heard."""
    heard: str = ""
    """'typed' and 'not_typed': the words as the recogniser gave them."""


class DictationHost:
    """What dictation needs of the controller (its own methods fit)."""

    def __init__(self, *, press: Callable[[], None], release: Callable[[], None],
                 cue: Callable[[str], None], cancel: Callable[[], None],
                 state: Callable[[], State], turn_id: Callable[[], int]) -> None:
        """The talk key's press and release, the listening cue, dropping a turn, the state."""
        self.press, self.release, self.cue, self.cancel = press, release, cue, cancel
        self.state, self.turn_id = state, turn_id


class Dictation(QObject):
    """Dictation on top of the push-to-talk turn. Runs on: GUI thread.

    The words are typed on a thread of their own: ``close`` it before the last reference
    to this object goes, so that it is never destroyed on that thread.
    """

    sig_status = Signal(object)
    """DictationStatus: a step of dictation (emitted on the GUI thread, or queued from the
    typing thread)."""

    def __init__(self, host: DictationHost, typist: Typist, copy: Callable[[str], None]
                 ) -> None:
        """Dictate through ``host``'s turns into ``typist``'s focused window.

        ``copy`` puts text on the clipboard (when the focus moved away from the target).
        """
        super().__init__()
        self._host, self._typist, self._copy = host, typist, copy
        self._turn: int | None = None
        self._window = ""
        self._heard: list[str] = []
        self._last: tuple[str, str] = ("", "")
        """The window typed into last and what was typed there (the next text follows it)."""
        self._typing: list[threading.Thread] = []
        """The threads typing dictations (a second may start while the first types): joined
        by ``close`` so that this object is never destroyed on one (a QObject deleted off
        its thread while a queued status is still pending for it crashes the next event
        loop pass)."""

    @property
    def live(self) -> bool:
        """True from the start of a dictation until its words are handed to the typist."""
        return self._turn is not None

    @property
    def active(self) -> bool:
        """True while dictation listens."""
        return self._turn is not None and self._host.state() is State.USER_SPEAKING

    def start(self) -> str:
        """Note the focused window, sound the cue, start listening; what happened."""
        if self.active:
            return "Already dictating."
        if self._turn is not None and self._turn == self._host.turn_id() \
                and self._host.state() is not State.LISTENING:
            return "Still typing the last dictation: start again in a moment."
        try:
            window = self._typist.focused()
        except AgentError as exc:
            self._status(DictationStatus("not_typed", exc.message))
            return exc.message
        if window == OWN_WINDOW:
            self._status(DictationStatus("not_typed", OWN_FOCUS))
            return OWN_FOCUS
        if self._host.state() is not State.LISTENING:
            self._host.cancel()  # an answer being spoken stops: dictation is what matters now
        self._window, self._heard = window, []
        self._host.press()
        self._turn = self._host.turn_id()
        self._host.cue("start")
        self._status(DictationStatus("listening", "Dictating: speak, then stop to type."))
        return "Dictating."

    def stop(self) -> str:
        """Stop listening (the words are typed once transcribed); what happened."""
        if not self.active:
            return "Was not dictating."
        self._host.release()
        self._host.cue("stop")
        self._status(DictationStatus("typing", "Dictation: transcribing..."))
        return "Stopped dictating."

    def toggle(self) -> str:
        """Start if off, else stop."""
        return self.stop() if self.active else self.start()

    def take_final(self, event: ev.AsrFinal) -> ev.AsrFinal:
        """A final transcript: a dictation turn's words are kept, the machine gets none."""
        if self._turn is None or event.turn_id != self._turn:
            return event
        if not event.no_speech and event.text.strip():
            self._heard.append(event.text.strip())
        return dataclasses.replace(event, text="", no_speech=True)

    def on_transition(self, transition: Transition) -> None:
        """The dictation turn is over: type its words."""
        if self._turn is None or transition.turn_id != self._turn:
            return
        if transition.target is not State.LISTENING:
            return
        self._turn = None
        heard = " ".join(self._heard)
        text = dictated_text(heard)
        if not text:
            self._status(DictationStatus("not_typed", "Dictation: no words heard."))
            return
        last_window, last_text = self._last
        text = joined(last_text, text) if last_window == self._window else text
        typing = threading.Thread(target=self._type, args=(text, heard, self._window),
                                  name="dictation-typing", daemon=True)
        self._typing = [t for t in self._typing if t.is_alive()] + [typing]
        typing.start()

    def close(self, timeout_s: float = 5.0) -> None:
        """Wait for the words still being typed (``timeout_s`` each). Runs on: GUI thread."""
        typing, self._typing = self._typing, []
        for thread in typing:
            thread.join(timeout_s)

    def _type(self, text: str, heard: str, window: str) -> None:
        """Runs on: the typing thread."""
        try:
            if self._typist.focused() != window:
                self._copy(text)
                self._status(DictationStatus(
                    "not_typed", "The window you dictated into lost the focus, so the words "
                    "are on the clipboard instead.", text, heard))
                return
            instead = self._typist.type(text)
        except AgentError as exc:
            _LOGGER.warning("dictation: %s", exc.describe())
            self._status(DictationStatus("not_typed", f"Dictation: {exc.message}", text, heard))
            return
        except Exception as exc:  # never a dead thread and a status stuck on "transcribing"
            _LOGGER.exception("dictation: typing failed")
            self._status(DictationStatus("not_typed", f"Dictation: typing failed "
                                         f"({type(exc).__name__}).", text, heard))
            return
        if instead:
            self._status(DictationStatus("not_typed", instead, text, heard))
            return
        self._last = (window, text)  # the next dictation into it follows on
        words = len(text.split())
        self._status(DictationStatus("typed", f"Dictation: typed {words} word"
                                     f"{'' if words == 1 else 's'}.", text, heard))

    def _status(self, status: DictationStatus) -> None:
        self.sig_status.emit(status)
