"""The controller: owns the turn machine on the GUI thread and runs its commands.

Every event (push-to-talk, capture, barge-in verdicts, playback, workers) goes through
``feed``, the one entry into ``TurnStateMachine.handle``; the commands it returns run through
the command table that the headless executor shares (runtime/command_table.py), built over
the collaborators (recorder, worker link, job table, playback driver: ControllerCommands).
The composition root (``compose/controller.py``) builds the machine, the controller, and the
collaborators around it, by keyword; collaborators get narrow ports (``feed``, a read-only
view of the machine, emit callables), never the controller; the GUI, AgentViewModel's signals.

Runs on: GUI thread (everything in this class).
"""

from __future__ import annotations

import datetime
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from PySide6.QtCore import QTimer, Signal

from desktop_agent.audio.backend import AudioBackend
from desktop_agent.audio.capture import CapturePipeline, playback_onset_s
from desktop_agent.core.conversation.history import CHATML_FRAMING_TOKENS
from desktop_agent.core.conversation.prompts import dated_system_prompt
from desktop_agent.core.errors import AgentError
from desktop_agent.core.listening.bargein import BargeInDecider
from desktop_agent.core.listening.endpointing import Endpointer
from desktop_agent.core.settings import Settings
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.machine import TurnStateMachine
from desktop_agent.core.turns.states import State, Transition
from desktop_agent.runtime.alarm_clock import AlarmClock
from desktop_agent.runtime.bargein_tracker import BargeInTracker
from desktop_agent.runtime.capture_router import CaptureRouter
from desktop_agent.runtime.command_table import HandlerTable, command_table
from desktop_agent.runtime.controller_commands import ControllerCommands
from desktop_agent.runtime.controller_ports import Ledger
from desktop_agent.runtime.dictation import Dictation
from desktop_agent.runtime.extras import Extras
from desktop_agent.runtime.heap_keeper import HeapKeeper
from desktop_agent.runtime.history_keeper import HistoryKeeper
from desktop_agent.runtime.jobs import JobTable
from desktop_agent.runtime.live_settings import (
    barge_settings,
    endpoint_settings,
    error_notice,
    restart_notice,
)
from desktop_agent.runtime.playback_driver import PlaybackDriver
from desktop_agent.runtime.recorder import Recorder
from desktop_agent.runtime.spans import SpanPublisher
from desktop_agent.runtime.view_api import ActionRow, AgentViewModel, AlarmRow, ErrorNotice
from desktop_agent.runtime.worker_link import WorkerLink

_LOGGER = logging.getLogger(__name__)
_T = TypeVar("_T")

TRANSITIONS_KEPT: Final = 256
"""How many transitions ``AgentController.transitions`` keeps (the newest)."""


@dataclass(frozen=True, kw_only=True)
class ControllerParts:
    """The controller's collaborators, built and wired by the composition root.

    ``compose/controller.py`` builds them around a new controller (they feed its ``feed`` and
    emit its signals) and hands them over with ``AgentController.attach``.
    """

    jobs: JobTable
    """Cancel tokens of the live jobs, and the machine's timers."""
    driver: PlaybackDriver
    """Reply chunks, asides, pause/duck/restore/flush of the player."""
    link: WorkerLink
    """Jobs to the workers, and what they report back."""
    barge_tracker: BargeInTracker
    """Judges an onset during playback."""
    recorder: Recorder
    """Recordings, partials and final transcripts."""
    router: CaptureRouter
    """Capture events to the machine or the barge-in tracker."""
    extras: Extras
    """Repeat, rephrase, first-run check."""
    spans: SpanPublisher
    """Sends each completed latency span once."""
    alarm_clock: AlarmClock | None = None
    """Fires due timers and reminders (None without a store)."""


class AgentController(AgentViewModel):
    """The real view model: the turn machine, composed with its collaborators.

    Built by ``compose.controller.build_controller``: the constructor takes the machine and
    what it reads; ``attach`` takes the collaborators wired around it.
    """

    sig_state_changed = Signal(object)
    """State: the machine's state after every event (tests and benches may wait on it)."""

    jobs: JobTable
    driver: PlaybackDriver
    link: WorkerLink
    barge_tracker: BargeInTracker
    recorder: Recorder
    router: CaptureRouter
    extras: Extras
    spans: SpanPublisher
    alarm_clock: AlarmClock | None
    handlers: HandlerTable
    """Command type -> what runs it (``tests/runtime`` checks that every command has one)."""

    def __init__(self, *, machine: TurnStateMachine, settings: Settings, backend: AudioBackend,
                 pipeline: CapturePipeline, ledger: Ledger | None = None) -> None:
        """Own ``machine``; ``attach`` adds the collaborators, ``start`` starts audio and capture.

        Args:
            machine: The turn machine (its history is the conversation's).
            settings: The settings in force (``apply_settings`` changes them live).
            backend: The audio backend (its player and mic).
            pipeline: The capture pipeline (VAD, echo cancellation, endpointing silence).
            ledger: The store's executed actions, timers and reminders (None: no store).
        """
        super().__init__()
        self.machine = machine
        self.settings = settings
        self.backend, self.pipeline = backend, pipeline
        self.ledger = ledger
        self.mode = settings.interaction.mode
        self.transitions: deque[Transition] = deque(maxlen=TRANSITIONS_KEPT)
        """The newest transitions, oldest first."""
        self._closed = False
        self._attached = False
        pipeline.playback_onset_s = playback_onset_s(settings.barge_in.sensitivity)
        pipeline.turn_model_on = self.mode == "hands_free"
        self.notices_at_start: list[ErrorNotice] = []
        """Shown when ``start`` runs (the window is listening by then)."""
        self.history_keeper: HistoryKeeper | None = None
        """The kept history on disk (set by the composition root; None keeps nothing)."""
        self.heap_keeper: HeapKeeper | None = None
        """Gives freed memory back after each turn (composed where glibc has malloc_trim)."""
        self.dictation: Dictation | None = None
        """Dictation into other windows (set by the composition root; None: unavailable)."""

    def attach(self, parts: ControllerParts) -> None:
        """Take the collaborators built around this controller; build the command table.

        Called once, by the composition root, before any event is fed.
        """
        if self._attached:
            raise RuntimeError("the controller's collaborators are attached already")
        self._attached = True
        self.jobs, self.driver, self.link = parts.jobs, parts.driver, parts.link
        self.barge_tracker, self.recorder = parts.barge_tracker, parts.recorder
        self.router, self.extras = parts.router, parts.extras
        self.spans, self.alarm_clock = parts.spans, parts.alarm_clock
        self.handlers = command_table(ControllerCommands(
            jobs=self.jobs, recorder=self.recorder, link=self.link, driver=self.driver,
            show_user_text=self.sig_user_final.emit, show_heard=self.sig_heard.emit,
            show_action=self.sig_action_changed.emit, ledger_changed=self.sig_ledger_changed.emit,
            show_unit=self.sig_unit_changed.emit,
            show_reflection=self.sig_reflection_changed.emit,
            show_tool_used=self.sig_tool_used.emit))

    # --- life cycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start audio and capture. Workers were started by the composition root."""
        self.backend.start()
        self.router.start()
        self.driver.start()
        if self.alarm_clock is not None:
            self.alarm_clock.start()
        if self.history_keeper is not None:
            self.history_keeper.start()
        for notice in self.notices_at_start:
            self.sig_error.emit(notice)

    def shutdown(self) -> None:
        """Stop in phases: input, processing, output. Later events are ignored."""
        self._closed = True
        if self.alarm_clock is not None:
            self.alarm_clock.stop()
        if self.history_keeper is not None:
            self.history_keeper.stop()
        if self.dictation is not None:
            self.dictation.close()
        self.router.stop()
        self.jobs.close("shutdown")
        self.link.stop()
        self.driver.close()
        self.backend.stop()
        for timer in self.findChildren(QTimer):
            timer.stop()  # a timer left running on an object freed later off this thread
        if self.heap_keeper is not None:  # (a garbage collection there) fires into freed memory
            self.heap_keeper.join()

    def loaded(self) -> bool:
        """True when ASR, LLM and TTS are ready."""
        return self.link.loaded()

    # --- view-model requests (GUI) ---------------------------------------------------------------

    def ptt_press(self) -> None:
        """Push-to-talk pressed. Runs on: GUI thread."""
        if self.machine.state is State.LISTENING:
            self.driver.stop_aside()  # a repeated answer or the speaker test stops here
        self.feed(ev.PttPressed(turn_id=self.machine.turn_id, at_s=time.monotonic()))

    def answer_action(self, confirm: bool) -> None:
        """The confirmation card's Confirm or Cancel. Runs on: GUI thread."""
        self.feed(ev.ActionButtonPressed(turn_id=self.machine.turn_id, confirm=confirm,
                                          at_s=time.monotonic()))

    def actions_log(self) -> list[ActionRow]:
        """Executed writes, newest first (none without a store). Runs on: GUI thread."""
        return self._from_ledger(lambda ledger: ledger.actions(50), [])

    def alarms(self) -> list[AlarmRow]:
        """Running timers and coming reminders. Runs on: GUI thread."""
        return self._from_ledger(lambda ledger: ledger.alarms(), [])

    def undo_action(self, key: str) -> str:
        """Undo an executed action; the sentence of what happened. Runs on: GUI thread."""
        said = self._from_ledger(lambda ledger: ledger.undo(key), "")
        if said:
            self.sig_ledger_changed.emit()
        return said

    def _from_ledger(self, read: Callable[[Ledger], _T], empty: _T) -> _T:
        if self.ledger is None:
            return empty
        try:
            return read(self.ledger)
        except AgentError as exc:  # a damaged or locked store: say so, keep running
            self.sig_error.emit(ErrorNotice.from_error(exc))
            return empty

    def ptt_release(self) -> None:
        """Push-to-talk released. Runs on: GUI thread."""
        self.feed(ev.PttReleased(turn_id=self.machine.turn_id, at_s=time.monotonic()))

    def dictate(self, action: str) -> str:
        """Dictation: 'start', 'stop' or 'toggle'; what happened. Runs on: GUI thread."""
        if self.dictation is None:
            return super().dictate(action)
        run = {"start": self.dictation.start, "stop": self.dictation.stop,
               "toggle": self.dictation.toggle}.get(action)
        return run() if run is not None else f"Unknown dictation action {action!r}."

    def play_cue(self, kind: str) -> None:
        """Sound the listening cue ``kind`` ('start' or 'stop') unless cues are off.

        Runs on: GUI thread.
        """
        if self.settings.shortcuts.cues and kind in ("start", "stop"):
            self.driver.play_cue("start" if kind == "start" else "stop")

    def cancel_turn(self) -> None:
        """Drop the turn in progress and listen again (``desktop-agent ptt cancel``).

        Runs on: GUI thread.
        """
        self.feed(ev.Reset(turn_id=self.machine.turn_id, at_s=time.monotonic()))

    def set_mode(self, mode: str) -> None:
        """Use interaction mode ``mode``: 'push_to_talk' or 'hands_free'."""
        self.mode = mode
        self.pipeline.turn_model_on = mode == "hands_free"  # the key ends push-to-talk turns

    def apply_settings(self, settings: Settings) -> None:
        """Apply what can change live (mode, barge-in, endpointing, speaking rate).

        Devices, models and echo cancellation need a restart: a notice says so.
        """
        old, self.settings = self.settings, settings
        self.set_mode(settings.interaction.mode)
        self.machine.set_reflection(settings.interaction.reflection)  # from the next reply
        self.barge_tracker.decider = BargeInDecider(barge_settings(settings))
        self.pipeline.playback_onset_s = playback_onset_s(settings.barge_in.sensitivity)
        self.recorder.endpointer = Endpointer(endpoint_settings(settings))
        if self.history_keeper is not None and settings.privacy != old.privacy:
            self.history_keeper.apply(settings.privacy)
        if settings.voice.speaking_rate != old.voice.speaking_rate:
            self.link.set_speaking_rate(settings.voice.speaking_rate)
        notice = restart_notice(old, settings)
        if notice is not None:
            self.sig_error.emit(notice)

    def clear_history(self) -> str:
        """Forget the conversation on disk and in memory. Runs on: GUI thread."""
        if self.history_keeper is None:  # nothing on disk: forget the session only
            self.machine.history.clear()
            return "Conversation history cleared."
        return self.history_keeper.clear()

    def repeat_last_answer(self) -> None:
        """Say the last answer again, as it was heard."""
        self.extras.repeat()

    def rephrase_last_answer(self) -> None:
        """Ask for the last answer in simpler words (a real, typed turn)."""
        self.extras.rephrase()

    def run_first_run_check(self) -> None:
        """Mic level, speaker test and echo calibration."""
        self.extras.first_run_check()

    def ask_text(self, text: str) -> None:
        """A typed question: a turn like a spoken one, with ``text`` as its transcript."""
        if self.machine.state is not State.LISTENING:
            return
        self.recorder.typed_text = text
        self.ptt_press()
        self.ptt_release()

    def llm_ready(self) -> None:
        """The LLM loaded: count history in its tokens, and evaluate the prompt's start."""
        counter = self.link.llm_token_counter()
        if counter is not None:
            self.machine.history.set_token_counter(counter,
                                                   framing_tokens=CHATML_FRAMING_TOKENS)
        self.link.prefill_llm(self.machine.history.prompt(()))

    # --- the one entry point into the machine -----------------------------------------------------

    def feed(self, event: ev.Event) -> None:
        """Hand ``event`` to the machine and run the commands it returns, in order.

        The one entry into the machine: collaborators get this (never the controller).
        Runs on: GUI thread.
        """
        if self._closed:
            return  # shut down: workers and their threads are gone
        if isinstance(event, ev.PttPressed | ev.SpeechStarted | ev.ActionButtonPressed):
            # Today's date and time zone are in every turn's prompt (changes at midnight).
            self.machine.history.set_system(
                dated_system_prompt(datetime.datetime.now().astimezone()))
        if isinstance(event, ev.AsrFinal) and self.dictation is not None:
            event = self.dictation.take_final(event)  # dictated words never reach the model
        if isinstance(event, ev.AsrPartial):
            if self.barge_tracker.take_partial(event):
                return  # a transcript of barge-in audio: the tracker's, not the machine's
            if event.turn_id == self.machine.turn_id:
                self.recorder.note_partial(event.job, event.text)
                self.sig_partial_transcript.emit(int(event.turn_id), event.text)
                if self.machine.state is State.USER_SPEAKING:  # the LLM reads along
                    self.link.prefill_llm(self.machine.history.prompt(()), event.text)
        step = self.machine.handle(event)
        if step.transition is not None:
            self.transitions.append(step.transition)
            self.sig_transition.emit(step.transition)
            self._on_transition(step.transition)
        for command in step.commands:
            try:
                self.handlers.run(command)
            except Exception as exc:  # a command that cannot run fails its turn, not the app
                _LOGGER.exception("turn=%d command %s failed", command.turn_id,
                                  type(command).__name__)  # its fields may hold the user's words
                err = exc if isinstance(exc, AgentError) else AgentError("internal_error", str(exc))
                self.feed(ev.StageFailed(turn_id=self.machine.turn_id, at_s=time.monotonic(),
                                          job=None, stage=command.stage, code=err.code,
                                          message=err.message))
        self.link.prefill_once(self.machine.turn_id, self.machine.prompt_if_heard_whole)
        self.spans.publish()
        self.sig_state_changed.emit(self.machine.state)

    def _on_transition(self, t: Transition) -> None:
        _LOGGER.info("turn=%d %s -> %s (%s)", t.turn_id, t.source.name, t.target.name, t.cause)
        if self.pipeline.trace is not None:  # "it hears itself" reports: the turn beside the audio
            self.pipeline.trace.mark(self.pipeline.history.end,
                                     f"{t.source.name}->{t.target.name} {t.cause}")
        self.recorder.on_transition(t)
        if self.dictation is not None:
            self.dictation.on_transition(t)
        if t.target is State.ERROR:
            self.sig_error.emit(error_notice(t.cause))
        elif t.source is State.ERROR:
            self.sig_error_cleared.emit()
        if t.target in (State.LISTENING, State.INTERRUPTED):
            self.sig_caption.emit("")  # the caption shows only what is being said now
        if t.target in (State.USER_SPEAKING, State.INTERRUPTED):
            # A new stretch of the user's speech: only its own partials may set the
            # endpoint wait (a stale "short" from the question before would let the
            # end-of-turn model close "Wait, stop, ..." at its first comma).
            self.pipeline.silence_s = None
        if t.target is State.LISTENING:
            self.pipeline.silence_s = None
            self.driver.forget(t.turn_id)
            # While the user speaks next, the LLM evaluates the prompt up to their words.
            self.link.prefill_llm(self.machine.history.prompt(()))
        if t.target is State.ASSISTANT_SPEAKING:
            self.pipeline.set_playback(True)
        if t.source is State.ASSISTANT_SPEAKING:
            self.router.leave_speaking(t.target)

