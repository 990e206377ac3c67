"""The menu actions that are not a spoken turn: repeat, rephrase, and the first-run check.

* Repeat last answer: speaks the last reply again, exactly as it was heard (the history's
  text, which after a barge-in is only the heard part).
* Rephrase: a real turn through the state machine with a typed request, so it is recorded,
  interruptible and measured like any other.
* First-run check: microphone level (2 s), speaker test (a sentence played), and echo
  calibration (the echo level and the canceller's reduction while that sentence plays).
  Results arrive as captions; a problem as an error notice with the fix.

Runs on: GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.turns.states import State
from desktop_agent.runtime.controller_ports import MachineView
from desktop_agent.runtime.view_api import ErrorNotice, LevelReading

REPHRASE_REQUEST = "Please say your last answer again in simpler words."
SPEAKER_TEST = "This is the speaker test. If you can hear me, your speaker works."


class Extras(QObject):
    """Repeat, rephrase, first-run check.

    Args:
        machine: Read-only view of the turn machine (state, turn, history).
        speak_aside: Says a text outside any reply (the playback driver's aside).
        ask_text: Starts a typed turn.
        show_caption: Emits a caption.
        show_error: Emits an error notice.
        parent: The owning QObject.
    """

    def __init__(self, machine: MachineView, *, speak_aside: Callable[[TurnId, str], None],
                 ask_text: Callable[[str], None], show_caption: Callable[[str], None],
                 show_error: Callable[[ErrorNotice], None],
                 parent: QObject | None = None) -> None:
        """Wire it up; the class docstring describes the arguments."""
        super().__init__(parent)
        self._machine = machine
        self._speak_aside = speak_aside
        self._ask_text = ask_text
        self._show_caption = show_caption
        self._show_error = show_error
        self._levels: list[float] = []
        self._erle: list[float] = []
        self._far: list[float] = []
        self._phase = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timer_timeout)

    # --- repeat and rephrase -----------------------------------------------------------------

    def last_answer(self) -> str:
        """The last assistant text in the history (what the user heard)."""
        for msg in reversed(self._machine.history.messages):
            if msg.role == "assistant" and msg.content:
                return str(msg.content)
        return ""

    def repeat(self) -> None:
        """Speak the last answer again (not a new turn; the history does not change)."""
        text = self.last_answer()
        if not text:
            self._show_caption("There is no answer to repeat yet.")
            return
        if self._machine.state is not State.LISTENING:
            return
        self._show_caption(text)
        self._speak_aside(self._machine.turn_id, text)

    def rephrase(self) -> None:
        """Ask for the last answer in simpler words, as a typed turn."""
        if not self.last_answer():
            self._show_caption("There is no answer to rephrase yet.")
            return
        self._ask_text(REPHRASE_REQUEST)

    # --- first-run check ---------------------------------------------------------------------

    def on_levels(self, reading: LevelReading) -> None:
        """Collect levels while a check phase runs (a few seconds: the lists stay short)."""
        if self._phase == "mic":
            self._levels.append(reading.mic_db)
        elif self._phase == "speaker":
            self._far.append(reading.speaker_db)
            self._levels.append(reading.mic_db)
            if reading.erle_db is not None:
                self._erle.append(reading.erle_db)

    def first_run_check(self) -> None:
        """Start the check: 2 s of mic level, then the speaker test with echo calibration."""
        if self._phase or self._machine.state is not State.LISTENING:
            return
        self._levels, self._erle, self._far = [], [], []
        self._phase = "mic"
        self._show_caption("Microphone check: please say something for two seconds…")
        self._timer.start(2000)

    def _on_timer_timeout(self) -> None:
        if self._phase == "mic":
            peak = max(self._levels, default=-100.0)
            if peak < -60:
                self._show_error(ErrorNotice(
                    "mic_silent", f"The microphone heard nothing (peak {peak:.0f} dBFS).",
                    "Check that the right microphone is chosen in Settings and not muted."))
            self._show_caption(f"Microphone peak {peak:.0f} dBFS. Speaker test now…")
            self._levels = []
            self._phase = "speaker"
            self._speak_aside(self._machine.turn_id, SPEAKER_TEST)
            self._timer.start(6000)
            return
        if self._phase == "speaker":
            self._phase = ""
            played = max(self._far, default=-100.0)
            if played < -60:
                self._show_error(ErrorNotice(
                    "speaker_silent", "The speaker test produced no sound.",
                    "Choose another output device in Settings, or check the voice with "
                    "`desktop-agent doctor`."))
                return
            echo = max(self._levels, default=-100.0)
            erle = sorted(self._erle)[len(self._erle) // 2] if self._erle else None
            reduction = "off" if erle is None else f"{erle:.0f} dB"
            self._show_caption(
                f"Check done: speaker peak {played:.0f} dBFS, echo at the mic {echo:.0f} dBFS "
                f"after cancellation, echo reduction {reduction}.")
