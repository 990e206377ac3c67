"""The real main window, answered by a scripted view model that reacts to the user's keys.

Run as ``python -m tests.a11y.keyboard_app CONFIG_DIR`` on a real X display (Xvfb) with the
AT-SPI bridge on (``QT_QPA_PLATFORM=xcb``, ``QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1``). Nothing
drives the window from inside: every turn starts from a key the test sends through XTest,
and the view model answers each request the way the real controller does (the same
transitions, causes, card, captions and HeardReport), on short timers:

* three requests that each need a confirmation card (a note, a timer, a note);
* the card's answer (Ctrl+Y / Ctrl+N / the buttons) -> done or cancelled, spoken;
* a question -> a long reply with captions, for as long as nobody interrupts;
* push-to-talk while it speaks -> barge-in: INTERRUPTED, the HeardReport of the captions
  played so far, the floor to the user, and the next utterance answered briefly;
* then a timer goes off (the alarm notice).

Each request the window makes is printed as a JSON line (``{"request": ...}``) for the
test's failure messages; the test itself checks only what arrives through AT-SPI.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.settings import Settings
from desktop_agent.core.turns.states import State
from desktop_agent.devtools.demo_view_model import RecordingViewModel
from desktop_agent.gui.main_window import MainWindow
from desktop_agent.runtime.view_api import ActionRow, AlarmRow, LoadProgress

S = State
NOTE = "Take a note: buy milk."
TIMER = "Set a timer for ten minutes."
NOTE_2 = "Take a note: call mum."
CARDS = {  # what the user says -> (idempotency key, tool, read-back, result)
    NOTE: ("1.1", "add_note", "Add a note: \u201cbuy milk\u201d?", "Noted: buy milk."),
    TIMER: ("2.1", "set_timer", "Set a timer for 10 minutes?", "Timer for 10 minutes set."),
    NOTE_2: ("3.1", "add_note", "Add a note: \u201ccall mum\u201d?", "Noted: call mum."),
}
QUESTION = "Explain how a car engine works."
SENTENCES = (
    "A car engine burns fuel to push pistons.",
    "Each piston moves down when the mixture of fuel and air explodes.",
    "The pistons turn a crankshaft, and the crankshaft turns the wheels.",
    "Valves let fresh air in and push the exhaust out.",
    "A spark plug lights the mixture at just the right moment.",
    "Oil keeps the moving parts from wearing each other out.",
)
AFTER_BARGE_IN = "Stop. What time is it?"
SHORT_ANSWER = "It is ten past nine."
ALARM_LABEL = "pasta"
"""The timer that goes off after the last answer."""
UTTERANCES = (NOTE, TIMER, NOTE_2, QUESTION, AFTER_BARGE_IN)
"""What the user says, turn by turn (a barge-in's continuation is the next one)."""
CAPTION_MS = 700
"""How long each caption sentence 'plays' (a long reply keeps going until interrupted)."""


def _say(line: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


class KeyboardTurnViewModel(RecordingViewModel):
    """Answers push-to-talk, the card and barge-in like the controller, on timers.

    Runs on: GUI thread.
    """

    def __init__(self) -> None:
        super().__init__()
        self.state = S.LISTENING
        self.turn = 0
        self.said = 0
        """How many utterances the user has spoken (an index into ``UTTERANCES``)."""
        self.clock_s = 0.0
        self.pending: tuple[str, str, str, str] | None = None
        """(key, tool, read-back, result) of the action the card shows."""
        self.spoken: list[str] = []
        """Caption sentences of the current reply that have 'played'."""
        self.reply = ""
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._next: Callable[[], None] | None = None
        self._timer.timeout.connect(self._on_timer_timeout)

    # -- helpers --------------------------------------------------------------------------
    def _go(self, target: State, cause: str, cancels: tuple[str, ...] = ()) -> None:
        self.clock_s += 0.5
        self.transition(self.turn, self.state, target, cause, self.clock_s, cancels)
        self.state = target

    def _later(self, ms: int, then: Callable[[], None]) -> None:
        self._next = then
        self._timer.start(ms)

    def _on_timer_timeout(self) -> None:
        step, self._next = self._next, None
        if step is not None:
            step()

    def _record(self, name: str, arg: object = None) -> None:
        self.calls.append((name, arg))
        _say({"request": name, "arg": arg, "state": self.state.name, "turn": self.turn})

    # -- requests -------------------------------------------------------------------------
    def ptt_press(self) -> None:  # noqa: D102 - the controller's answer, scripted
        self._record("ptt_press")
        if self.state is S.LISTENING:
            self.turn += 1
            self._go(S.USER_SPEAKING, "ptt_pressed")
            self._later(150, self._partials)
        elif self.state is S.ASSISTANT_SPEAKING:
            self._timer.stop()
            self._go(S.INTERRUPTED, "barge_in", ("llm", "tts", "playback"))
            self.sig_caption.emit("")
            heard = " ".join(self.spoken)
            unheard = self.reply[len(heard):].strip()
            self.sig_heard.emit(HeardReport(TurnId(self.turn), self.reply, heard, unheard,
                                            len(self.spoken) * CAPTION_MS / 1000, True))
            self.turn += 1
            self._go(S.USER_SPEAKING, "floor_to_user")
            self._later(150, self._partials)

    def ptt_release(self) -> None:  # noqa: D102 - the controller's answer, scripted
        self._record("ptt_release")
        if self.state is not S.USER_SPEAKING:
            return
        self._timer.stop()
        text = UTTERANCES[min(self.said, len(UTTERANCES) - 1)]
        self.said += 1
        self.sig_user_final.emit(self.turn, text)
        self._go(S.PROCESSING, "ptt_released")
        if text in CARDS:
            self._later(200, lambda: self._propose(*CARDS[text]))
        elif text == QUESTION:
            self._later(200, lambda: self._speak(" ".join(SENTENCES), forever=True))
        else:
            self._later(200, lambda: self._speak(SHORT_ANSWER))

    def answer_action(self, confirm: bool) -> None:  # noqa: D102 - the controller's answer
        self._record("answer_action", confirm)
        if self.pending is None or self.state not in (S.LISTENING, S.ASSISTANT_SPEAKING):
            return
        if self.state is S.ASSISTANT_SPEAKING:  # answered over the read-back: it stops
            self._timer.stop()
            self.sig_caption.emit("")
        key, tool, read_back, result = self.pending
        self.pending = None
        self.turn += 1
        self.sig_user_final.emit(self.turn, "(pressed Confirm)" if confirm else
                                 "(pressed Cancel)")
        if confirm:
            self._go(S.WAITING_FOR_TOOL, "action_pressed")
            self.action_rows.insert(0, ActionRow(key, tool, read_back, result, 0.0))
            self.publish("executed", key, read_back, tool, result=result)
            self._go(S.PROCESSING, "tool_result")
            self._later(150, lambda: self._speak(result))
        else:
            self._go(S.PROCESSING, "action_pressed")
            self.publish("cleared", key, read_back, tool, outcome="cancelled")
            self._later(150, lambda: self._speak("Okay, I won't."))

    # -- the scripted controller's side ---------------------------------------------------
    def _partials(self) -> None:
        text = UTTERANCES[min(self.said, len(UTTERANCES) - 1)]
        words = text.split()
        self.sig_partial_transcript.emit(self.turn, " ".join(words[: max(1, len(words) // 2)]))

    def _propose(self, key: str, tool: str, read_back: str, result: str) -> None:
        self._go(S.WAITING_FOR_TOOL, "tool_call")
        self._go(S.PROCESSING, "tool_result")
        self.pending = (key, tool, read_back, result)
        self.publish("pending", key, read_back, tool, expires_in_s=120.0)
        self._speak(read_back)

    def _speak(self, text: str, forever: bool = False) -> None:
        self.reply = text
        self.spoken = []
        sentences = list(SENTENCES) if forever else [text]
        self._go(S.ASSISTANT_SPEAKING, "playback_started")
        self.sig_assistant_text.emit(self.turn, text)
        self._caption(sentences, forever)

    def _caption(self, sentences: list[str], forever: bool) -> None:
        if len(self.spoken) < len(sentences):
            sentence = sentences[len(self.spoken)]
            self.sig_caption.emit(sentence)
            self.spoken.append(sentence)
            self._later(CAPTION_MS, lambda: self._caption(sentences, forever))
        elif forever:  # the long reply's last caption stays until the user cuts in
            self._later(60_000, lambda: self._done())
        else:
            self._done()

    def _done(self) -> None:
        self.sig_caption.emit("")
        self.sig_heard.emit(HeardReport(TurnId(self.turn), self.reply, self.reply, "",
                                        len(self.spoken) * CAPTION_MS / 1000, False))
        self._go(S.LISTENING, "reply_done")
        if self.reply == SHORT_ANSWER:  # and then a timer set long ago goes off
            self.sig_alarm_fired.emit(AlarmRow(7, "timer", ALARM_LABEL, time.time()))


def main() -> int:
    """Open the window and run until it is closed."""
    config = Path(sys.argv[1])
    app = QApplication(sys.argv[:1])
    app.setApplicationName("Desktop Agent")
    vm = KeyboardTurnViewModel()
    window = MainWindow(vm, Settings(), config / "settings.toml")
    window.show()
    for stage in ("vad", "aec", "asr", "llm", "tts"):
        vm.sig_loading.emit(LoadProgress(stage, "ready"))
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
