"""The controller, composed: the turn machine, the controller, and its collaborators.

``build_controller`` is the one place that wires them, every argument by name. The
collaborators feed the controller's ``feed`` (its one entry into the machine) and emit its
signals, so the controller is built first and they are attached to it
(``AgentController.attach``); each gets only the narrow ports it needs, never the controller.
``compose/runtime.py`` (the app, benches, end-to-end tests) and the runtime tests build the
controller here.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Container, Mapping
from typing import TYPE_CHECKING

from desktop_agent.core.conversation.history import History
from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT
from desktop_agent.core.listening.bargein import BargeInDecider
from desktop_agent.core.settings import Settings
from desktop_agent.core.text.chunker import first_clause_chunker
from desktop_agent.core.turns.machine import TurnStateMachine
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.telemetry import TurnSpan
from desktop_agent.runtime.alarm_clock import AlarmClock
from desktop_agent.runtime.bargein_tracker import BargeInTracker
from desktop_agent.runtime.capture_router import CaptureRouter
from desktop_agent.runtime.controller import AgentController, ControllerParts
from desktop_agent.runtime.extras import Extras
from desktop_agent.runtime.jobs import JobTable
from desktop_agent.runtime.live_settings import barge_settings, endpoint_settings
from desktop_agent.runtime.payloads import AsrPartialResult
from desktop_agent.runtime.playback_driver import PlaybackDriver
from desktop_agent.runtime.recorder import Recorder
from desktop_agent.runtime.spans import SpanPublisher
from desktop_agent.runtime.worker_link import Engines, WorkerLink

if TYPE_CHECKING:
    from desktop_agent.audio.backend import AudioBackend
    from desktop_agent.audio.capture import CapturePipeline
    from desktop_agent.runtime.controller_ports import Ledger


def build_controller(*, engines: Engines, backend: AudioBackend, pipeline: CapturePipeline,
                     settings: Settings | None = None, policy: TurnPolicy | None = None,
                     span_sink: Callable[[TurnSpan], None] | None = None,
                     count_tokens: Callable[[str], int] | None = None,
                     ledger: Ledger | None = None,
                     write_tools: Container[str] | None = None,
                     tool_limits_s: Mapping[str, float] | None = None) -> AgentController:
    """Build the turn machine, the controller around it, and its collaborators.

    Workers are not started here (``compose/runtime.py`` starts them once the controller
    listens); ``controller.start`` starts audio and capture.

    Args:
        engines: The workers the controller drives.
        backend: The audio backend.
        pipeline: The capture pipeline.
        settings: The settings in force (defaults when None).
        policy: The turn machine's policy (None: the defaults, with the barge-in duck gain and
            the reflection mode of ``settings``).
        span_sink: Writes each finished turn's span (None: no log).
        count_tokens: Counts history in tokens (None: the history's own estimate).
        ledger: The store's executed actions, timers and reminders (None: no store).
        write_tools: The names of the tools that change things (None: the built-in ones);
            the app's set grows when your own tools' servers have listed theirs.
        tool_limits_s: Seconds the turn waits for a tool with its own limit (your own
            tools': their server's ``timeout_s``); grows with them like ``write_tools``.
    """
    settings = settings or Settings()
    decider = BargeInDecider(barge_settings(settings))
    history = (History(SYSTEM_PROMPT, count_tokens=count_tokens) if count_tokens
               else History(SYSTEM_PROMPT))
    machine = TurnStateMachine(
        history, policy=policy or TurnPolicy(duck_gain_db=decider.settings.duck_gain_db,
                                             reflection=settings.interaction.reflection),
        chunker_factory=first_clause_chunker, session=uuid.uuid4().hex[:12],
        tool_limits_s=tool_limits_s,
        **({} if write_tools is None else {"write_tools": write_tools}))
    controller = AgentController(machine=machine, settings=settings, backend=backend,
                                 pipeline=pipeline, ledger=ledger)
    controller.attach(_collaborators(controller, engines=engines, decider=decider,
                                     span_sink=span_sink))
    return controller


def _collaborators(c: AgentController, *, engines: Engines, decider: BargeInDecider,
                   span_sink: Callable[[TurnSpan], None] | None) -> ControllerParts:
    """The collaborators of ``c``, wired to its ``feed``, its signals and one another."""
    feed, machine, backend, pipeline = c.feed, c.machine, c.backend, c.pipeline
    spans = SpanPublisher(source=machine, emit=c.sig_span.emit, sink=span_sink)
    jobs = JobTable(feed=feed, parent=c)
    driver = PlaybackDriver(player=backend.player, feed=feed, token=jobs.token,
                            cancel=jobs.cancel, tts=engines.tts,
                            show_caption=c.sig_caption.emit,
                            show_reply=c.sig_assistant_text.emit, parent=c)
    recorder: Recorder | None = None

    def on_partial(result: AsrPartialResult) -> None:
        # The recorder submits to the link, and the link hands it partials: built after it.
        assert recorder is not None
        recorder.on_partial(result)

    link = WorkerLink(engines=engines, feed=feed, jobs=jobs, on_partial=on_partial,
                      keep_audio=driver.keep, show_loading=c.sig_loading.emit,
                      show_error=c.sig_error.emit, parent=c, on_llm_ready=c.llm_ready)
    tracker = BargeInTracker(decider=decider, history=pipeline.history, rate=backend.rate,
                             feed=feed, submit_asr=link.submit_asr, asr_busy=link.asr_busy,
                             time_of=backend.time_of, parent=c,
                             reply_text=lambda: driver.reply_text(machine.turn_id))
    recorder = Recorder(machine=machine, backend=backend, pipeline=pipeline, feed=feed,
                        submit_asr=link.submit_asr, asr_busy=link.asr_busy, token=jobs.token,
                        endpointing=endpoint_settings(c.settings), parent=c)
    router = CaptureRouter(machine=machine, feed=feed, backend=backend, pipeline=pipeline,
                           tracker=tracker, mode=lambda: _listening_mode(c),
                           first_audio_s=driver.first_audio_s, restore_playback=driver.restore,
                           show_levels=c.sig_levels.emit, show_error=c.sig_error.emit, parent=c)
    extras = Extras(machine=machine, speak_aside=driver.speak_aside, ask_text=c.ask_text,
                    show_caption=c.sig_caption.emit, show_error=c.sig_error.emit, parent=c)
    c.sig_levels.connect(extras.on_levels)
    alarm_clock = None if c.ledger is None else AlarmClock(
        ledger=c.ledger, machine=machine,
        speak_aside=lambda turn, text: driver.speak_aside(turn, text, chime=True),
        fired=c.sig_alarm_fired.emit, changed=c.sig_ledger_changed.emit,
        show_error=c.sig_error.emit, parent=c)
    return ControllerParts(jobs=jobs, driver=driver, link=link, barge_tracker=tracker,
                           recorder=recorder, router=router, extras=extras, spans=spans,
                           alarm_clock=alarm_clock)


def _listening_mode(controller: AgentController) -> str:
    """The settings' mode, but push-to-talk while a dictation runs: a pause in dictated
    speech must not end it (hands-free would), nor the words after it go to the assistant."""
    dictation = controller.dictation
    return "push_to_talk" if dictation is not None and dictation.live else controller.mode
