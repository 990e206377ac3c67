"""A synchronous rig for the write path: the real turn machine, fake engines that answer at once.

``Rig.say(text)`` runs one whole push-to-talk turn: the fake LLM answers from a table
(a text reply, or a tool call), tools answer from a fake executor that records every
PREPARE / REVISE / EXECUTE it is asked for, synthesis and playback finish at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop_agent.core.conversation.history import History
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.write_actions import PreparedAction
from desktop_agent.core.turns import commands as c
from desktop_agent.core.turns import events as e
from desktop_agent.core.turns.machine import TurnStateMachine
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.states import State, ToolMode

LlmFn = Callable[[str], "str | ToolCall"]


def prepare(call: ToolCall) -> PreparedAction | str:
    """A fake ``prepare``: a note needs text; a timer needs a duration."""
    args = dict(call.arguments)
    if call.name == "add_note":
        if not str(args.get("text", "")).strip():
            return "add_note needs the text of the note."
        return PreparedAction("add_note", {"text": args["text"]},
                              f"Add a note: {args['text']}. Shall I?")
    if call.name == "set_timer":
        if not str(args.get("duration", "")).strip():
            return 'set_timer needs a duration like "5 minutes".'
        return PreparedAction("set_timer", {"duration": args["duration"]},
                              f"Set a timer for {args['duration']}?")
    return f"{call.name} is not a write tool."


@dataclass
class Rig:
    """The machine plus fakes; ``log`` keeps every command, ``executed`` every execution."""

    llm: LlmFn
    policy: TurnPolicy = field(default_factory=TurnPolicy)
    t: float = 0.0
    machine: TurnStateMachine = field(init=False)
    log: list[Any] = field(default_factory=list)
    executed: list[c.RunTool] = field(default_factory=list)
    spoken: list[str] = field(default_factory=list)
    """What each turn said, one string per turn."""
    queue: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.machine = TurnStateMachine(History("sys"), policy=self.policy, strict=True,
                                        session="test")

    # --- driving ------------------------------------------------------------------------------

    def feed(self, event: Any) -> None:
        self.queue.append(event)
        while self.queue:
            step = self.machine.handle(self.queue.pop(0))
            for command in step.commands:
                self.log.append(command)
                self._answer(command)

    def ev(self, kind: type[Any], **fields: Any) -> Any:
        fields.setdefault("turn_id", self.machine.turn_id)
        return kind(at_s=self.t, **fields)

    def say(self, text: str) -> str:
        """One push-to-talk turn with ``text`` as the transcript; returns what was spoken."""
        start = len(self.log)
        self.t += 0.1
        self.feed(self.ev(e.PttPressed))
        self.t += 0.1
        self.feed(self.ev(e.PttReleased))
        transcribe = self.last(c.Transcribe)
        self.t += 0.1
        self.feed(self.ev(e.AsrFinal, job=transcribe.job, text=text, no_speech=False))
        return self._spoken_since(start)

    def press(self, confirm: bool) -> str:
        start = len(self.log)
        self.t += 0.1
        self.feed(self.ev(e.ActionButtonPressed, confirm=confirm))
        return self._spoken_since(start)

    def advance(self, seconds: float) -> None:
        self.t += seconds

    def last(self, kind: type[Any]) -> Any:
        return [x for x in self.log if isinstance(x, kind)][-1]

    def _spoken_since(self, start: int) -> str:
        said = " ".join(x.text for x in self.log[start:] if isinstance(x, c.Synthesize))
        self.spoken.append(said)
        assert self.machine.state is State.LISTENING, self.machine.state
        return said

    # --- fake engines ---------------------------------------------------------------------------

    def _answer(self, command: Any) -> None:
        tid = command.turn_id
        if isinstance(command, c.StartLlm):
            user = [m.content for m in command.messages if m.role == "user"][-1]
            out = self.llm(user) if command.messages[-1].role == "user" else "Sorry about that."
            if isinstance(out, ToolCall):
                self.queue.append(e.LlmToolCall(turn_id=tid, job=command.job, call=out,
                                                at_s=self.t))
            else:
                self.queue.append(e.LlmToken(turn_id=tid, job=command.job, text=out,
                                             at_s=self.t))
            self.queue.append(e.LlmFinished(turn_id=tid, job=command.job, at_s=self.t))
        elif isinstance(command, c.RunTool):
            self.queue.append(self._tool(command))
        elif isinstance(command, c.Synthesize):
            self.queue.append(e.TtsChunkReady(turn_id=tid, job=command.job,
                                              chunk_index=command.chunk_index, text=command.text,
                                              n_samples=100, sample_rate=1000, at_s=self.t))
        elif isinstance(command, c.PlayChunk):
            self.queue.append(e.PlaybackStarted(turn_id=tid, job=command.job, at_s=self.t))
            self.queue.append(e.PlaybackFinished(turn_id=tid, job=command.job,
                                                 played_samples=10**9, at_s=self.t))

    def _tool(self, command: c.RunTool) -> e.ToolResult:
        def result(content: str, *, error: bool = False,
                   action: PreparedAction | None = None) -> e.ToolResult:
            return e.ToolResult(turn_id=command.turn_id, job=command.job, call_id="",
                                content=content, is_error=error, action=action, at_s=self.t)

        if command.mode is ToolMode.RUN:
            return result(f"{command.call.name} says hello.")
        if command.mode is ToolMode.PREPARE:
            prepared = prepare(command.call)
            if isinstance(prepared, str):
                return result(prepared, error=True)
            return result("", action=prepared)
        if command.mode is ToolMode.REVISE:
            assert command.action is not None
            words = command.text.lower().replace("make it", "").strip(" .")
            if command.action.tool == "set_timer" and words:
                return result("", action=PreparedAction(
                    "set_timer", {"duration": words}, f"Set a timer for {words}?"))
            return result("not a change", error=True)
        assert command.mode is ToolMode.EXECUTE and command.action is not None
        self.executed.append(command)
        return result(f"Done: {command.action.tool} {dict(command.action.args)}.")
