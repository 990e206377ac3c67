"""The one command table: each command of the turn machine and the port method that runs it.

Both executors of the machine's commands build their table here: the app's controller
(runtime/controller.py, through ``ControllerCommands``, which maps each method to a
collaborator) and the headless executor (runtime/headless.py, which implements the methods
itself). ``CommandPorts`` has one method per command type of ``core/turns/commands.py`` (the
reports in ``core/turns/reports.py`` included), named after it in snake case (``StartLlm`` ->
``start_llm``), and ``command_table`` has one line per command. A new command is one method
here and one line in the table, and then both executors must implement it (mypy says where;
tests/runtime/test_command_table.py checks that the table covers every command and that both
executors build from it).

No Qt here: ``desktop-agent ask`` imports this without PySide6.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from desktop_agent.core.errors import AgentError
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import reports

C = TypeVar("C")


class HandlerTable:
    """Command type -> the function that runs it; each entry is type-checked when added.

    An explicit ``dict[type, handler]`` (as the machine has for events), so a command without
    a handler fails loudly and a test can list the gaps.
    """

    def __init__(self) -> None:
        """An empty table."""
        self._handlers: dict[type[Any], Callable[[Any], None]] = {}

    def add(self, kind: type[C], handler: Callable[[C], None]) -> HandlerTable:
        """Run ``handler`` for commands of exactly ``kind``. Returns the table (chaining)."""
        self._handlers[kind] = handler
        return self

    @property
    def kinds(self) -> frozenset[type[Any]]:
        """The command types that have a handler."""
        return frozenset(self._handlers)

    def run(self, command: cmd.Command) -> None:
        """Run ``command``'s handler. Raises AgentError('unknown_command') when it has none."""
        handler = self._handlers.get(type(command))
        if handler is None:
            raise AgentError("unknown_command", f"No handler for {type(command).__name__}.")
        handler(command)


class CommandPorts(Protocol):
    """What an executor does for each command (the command's docstring says what it asks).

    Runs on: the thread that owns the machine (the GUI thread; headless, the calling thread).
    """

    def start_recording(self, c: cmd.StartRecording, /) -> None:
        """Start a recording."""

    def stop_recording(self, c: cmd.StopRecording, /) -> None:
        """Stop a recording, keeping its audio."""

    def transcribe(self, c: cmd.Transcribe, /) -> None:
        """Transcribe a stopped recording."""

    def cancel_asr(self, c: cmd.CancelAsr, /) -> None:
        """Cancel a recording or transcription job."""

    def start_llm(self, c: cmd.StartLlm, /) -> None:
        """Stream a reply."""

    def cancel_llm(self, c: cmd.CancelLlm, /) -> None:
        """Cancel an LLM run (or a reflection)."""

    def run_tool(self, c: cmd.RunTool, /) -> None:
        """Run, prepare or execute a tool call."""

    def cancel_tool(self, c: cmd.CancelTool, /) -> None:
        """Cancel a tool job."""

    def synthesize(self, c: cmd.Synthesize, /) -> None:
        """Synthesise one clause."""

    def cancel_tts(self, c: cmd.CancelTts, /) -> None:
        """Cancel synthesis jobs."""

    def play_chunk(self, c: cmd.PlayChunk, /) -> None:
        """Queue a chunk's audio on a playback stream."""

    def flush_playback(self, c: cmd.FlushPlayback, /) -> None:
        """Stop a playback stream now."""

    def duck_playback(self, c: cmd.DuckPlayback, /) -> None:
        """Lower a playback stream while a barge-in is judged."""

    def resume_playback(self, c: cmd.ResumePlayback, /) -> None:
        """Undo a duck."""

    def speak_apology(self, c: cmd.SpeakApology, /) -> None:
        """Say a canned apology."""

    def stop_apology(self, c: cmd.StopApology, /) -> None:
        """Cut the apology short."""

    def start_timer(self, c: cmd.StartTimer, /) -> None:
        """Arm a one-shot timer."""

    def cancel_timer(self, c: cmd.CancelTimer, /) -> None:
        """Disarm a timer."""

    def publish_user_text(self, c: reports.PublishUserText, /) -> None:
        """Show the user's final text."""

    def publish_heard(self, c: reports.PublishHeard, /) -> None:
        """Show what was heard of a reply."""

    def publish_action(self, c: reports.PublishAction, /) -> None:
        """Show the write path's move."""

    def publish_unit(self, c: reports.PublishUnit, /) -> None:
        """Show a grounded answer's unit and what became of it."""

    def reflect(self, c: cmd.Reflect, /) -> None:
        """Judge the utterance so far."""

    def publish_reflection(self, c: reports.PublishReflection, /) -> None:
        """Show verdict-gated speech's move."""


def command_table(ports: CommandPorts) -> HandlerTable:
    """Every command type of ``cmd.Command`` -> the method of ``ports`` that runs it."""
    p = ports
    return (
        HandlerTable()
        .add(cmd.StartRecording, p.start_recording).add(cmd.StopRecording, p.stop_recording)
        .add(cmd.Transcribe, p.transcribe).add(cmd.CancelAsr, p.cancel_asr)
        .add(cmd.StartLlm, p.start_llm).add(cmd.CancelLlm, p.cancel_llm)
        .add(cmd.RunTool, p.run_tool).add(cmd.CancelTool, p.cancel_tool)
        .add(cmd.Synthesize, p.synthesize).add(cmd.CancelTts, p.cancel_tts)
        .add(cmd.PlayChunk, p.play_chunk).add(cmd.FlushPlayback, p.flush_playback)
        .add(cmd.DuckPlayback, p.duck_playback).add(cmd.ResumePlayback, p.resume_playback)
        .add(cmd.SpeakApology, p.speak_apology).add(cmd.StopApology, p.stop_apology)
        .add(cmd.StartTimer, p.start_timer).add(cmd.CancelTimer, p.cancel_timer)
        .add(reports.PublishUserText, p.publish_user_text)
        .add(reports.PublishHeard, p.publish_heard)
        .add(reports.PublishAction, p.publish_action).add(reports.PublishUnit, p.publish_unit)
        .add(cmd.Reflect, p.reflect).add(reports.PublishReflection, p.publish_reflection))
