"""The controller's command ports: each command of the turn machine, mapped to a collaborator.

``ControllerCommands`` implements ``CommandPorts`` (runtime/command_table.py) for the app:
recordings go to the recorder, engine jobs to the worker link, cancels and timers to the job
table, playback to the playback driver, and the ``Publish*`` reports to the view model's
signals (emit callables, never the controller). The controller builds its command table from
it with ``command_table``, as the headless executor does from itself.

Runs on: GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import reports
from desktop_agent.core.turns.states import ToolMode
from desktop_agent.runtime.jobs import JobTable
from desktop_agent.runtime.playback_driver import PlaybackDriver
from desktop_agent.runtime.recorder import Recorder
from desktop_agent.runtime.worker_link import WorkerLink


class ControllerCommands:
    """``CommandPorts`` over the controller's collaborators.

    Args:
        jobs: Cancel tokens and timers.
        recorder: Recordings and transcripts.
        link: Jobs to the workers (LLM runs, reflections, tools, synthesis).
        driver: The player (chunks, flush, duck, apologies).
        show_user_text: Emits ``sig_user_final(turn_id, text)``.
        show_heard: Emits ``sig_heard(report)``.
        show_action: Emits ``sig_action_changed(command)``.
        ledger_changed: Emits ``sig_ledger_changed`` (an action was executed).
        show_unit: Emits ``sig_unit_changed(command)``.
        show_reflection: Emits ``sig_reflection_changed(command)``.
        show_tool_used: Emits ``sig_tool_used(turn_id, name)`` (a tool run at once).
    """

    def __init__(self, *, jobs: JobTable, recorder: Recorder, link: WorkerLink,
                 driver: PlaybackDriver, show_user_text: Callable[[int, str], None],
                 show_heard: Callable[[HeardReport], None],
                 show_action: Callable[[reports.PublishAction], None],
                 ledger_changed: Callable[[], None],
                 show_unit: Callable[[reports.PublishUnit], None],
                 show_reflection: Callable[[reports.PublishReflection], None],
                 show_tool_used: Callable[[int, str], None] = lambda _t, _n: None) -> None:
        """Keep the collaborators; the class docstring describes the arguments."""
        self._jobs, self._recorder, self._link, self._driver = jobs, recorder, link, driver
        self._show_user_text, self._show_heard = show_user_text, show_heard
        self._show_action, self._ledger_changed = show_action, ledger_changed
        self._show_unit, self._show_reflection = show_unit, show_reflection
        self._show_tool_used = show_tool_used

    # --- recording and ASR ----------------------------------------------------------------------

    def start_recording(self, c: cmd.StartRecording) -> None:
        """The recorder starts a recording (from its mic ring buffer when ``from_s`` is past)."""
        self._recorder.start(c)

    def stop_recording(self, c: cmd.StopRecording) -> None:
        """The recorder stops the recording and keeps its audio."""
        self._recorder.stop(c)

    def transcribe(self, c: cmd.Transcribe) -> None:
        """The recorder sends the recording to the ASR worker."""
        self._recorder.transcribe(c)

    def cancel_asr(self, c: cmd.CancelAsr) -> None:
        """Cancel the job's token."""
        self._jobs.cancel(c.job, "asr cancelled")

    # --- LLM and tools ----------------------------------------------------------------------------

    def start_llm(self, c: cmd.StartLlm) -> None:
        """The LLM worker streams the reply."""
        self._link.start_llm(c)

    def cancel_llm(self, c: cmd.CancelLlm) -> None:
        """Cancel the job's token."""
        self._jobs.cancel(c.job, "llm cancelled")

    def reflect(self, c: cmd.Reflect) -> None:
        """The LLM worker judges the utterance."""
        self._link.reflect(c)

    def run_tool(self, c: cmd.RunTool) -> None:
        """The tool worker runs the call; one run at once (no read-back) is shown as used."""
        self._link.run_tool(c)
        if c.mode is ToolMode.RUN:
            self._show_tool_used(int(c.turn_id), c.call.name)

    def cancel_tool(self, c: cmd.CancelTool) -> None:
        """Cancel the job's token."""
        self._jobs.cancel(c.job, "tool cancelled")

    # --- TTS and playback -------------------------------------------------------------------------

    def synthesize(self, c: cmd.Synthesize) -> None:
        """The TTS worker synthesises the clause."""
        self._link.synthesize(c)

    def cancel_tts(self, c: cmd.CancelTts) -> None:
        """Cancel each job's token."""
        self._jobs.cancel_all(c.jobs, "tts cancelled")

    def play_chunk(self, c: cmd.PlayChunk) -> None:
        """The driver queues the kept audio of the chunk."""
        self._driver.play(c)

    def flush_playback(self, c: cmd.FlushPlayback) -> None:
        """The driver fades the stream out."""
        self._driver.flush(c)

    def duck_playback(self, c: cmd.DuckPlayback) -> None:
        """The driver lowers the stream."""
        self._driver.duck(c)

    def resume_playback(self, c: cmd.ResumePlayback) -> None:
        """The driver restores the stream's gain."""
        self._driver.restore(c)

    def speak_apology(self, c: cmd.SpeakApology) -> None:
        """The driver speaks the apology."""
        self._driver.speak_apology(c)

    def stop_apology(self, c: cmd.StopApology) -> None:
        """The driver cuts the apology short."""
        self._driver.stop_apology(c)

    # --- timers -----------------------------------------------------------------------------------

    def start_timer(self, c: cmd.StartTimer) -> None:
        """The job table arms a QTimer."""
        self._jobs.start_timer(c)

    def cancel_timer(self, c: cmd.CancelTimer) -> None:
        """The job table disarms it."""
        self._jobs.cancel_timer(c)

    # --- reports for the GUI ----------------------------------------------------------------------

    def publish_user_text(self, c: reports.PublishUserText) -> None:
        """Emit the user's final text."""
        self._show_user_text(int(c.turn_id), c.text)

    def publish_heard(self, c: reports.PublishHeard) -> None:
        """Emit what was heard."""
        self._show_heard(c.report)

    def publish_action(self, c: reports.PublishAction) -> None:
        """Emit the write path's move; an execution also changed the ledger."""
        self._show_action(c)
        if c.kind == "executed":
            self._ledger_changed()

    def publish_unit(self, c: reports.PublishUnit) -> None:
        """Emit the unit's new disposition."""
        self._show_unit(c)

    def publish_reflection(self, c: reports.PublishReflection) -> None:
        """Emit verdict-gated speech's move."""
        self._show_reflection(c)
