"""What a headless turn produced (``HeadlessTurn``) and how it is recorded while it runs.

``TurnLog`` is the headless executor's bookkeeping of the turn in progress (runtime/headless.py
fills it from the machine's transitions and commands); ``HeadlessTurn`` is the finished turn, the
fields of ``desktop-agent ask --json``, built from the log by ``finished_turn`` (the stage
timings read off the machine's latency span). ``turn_error`` and ``stall_error`` give every failed
turn an error with a fix to print.

Runs on: the headless executor's calling thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.errors import AgentError
from desktop_agent.core.knowledge.records import AnswerPlan
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import reports
from desktop_agent.core.turns.states import Transition
from desktop_agent.core.turns.telemetry import TurnSpan
from desktop_agent.runtime.headless_units import UnitLog, UnitRecord

DOCTOR_FIX: Final = "Run `desktop-agent doctor` to check the models and engines."


@dataclass(frozen=True)
class HeadlessTurn:
    """What one turn produced: the fields of ``ask --json`` and the machine's record."""

    transcript: str
    """The user's text as the machine published it ('' when no speech was heard)."""
    reply: str
    """What was said: the heard text of a reply that played to the end ('' otherwise)."""
    audio: Any
    """The reply audio the speaker consumed, int16 mono at ``sample_rate``."""
    sample_rate: int
    tool_calls: tuple[str, ...]
    """Names of the tools the machine ran, in order."""
    timings_ms: dict[str, float]
    """Milliseconds from the endpoint: asr, filler, llm_first_token, tts_first_chunk, first_audio,
    llm_total, tts_total, turn_total (only the stages the turn reached)."""
    transitions: tuple[Transition, ...]
    heard: HeardReport | None = None
    error: AgentError | None = None
    """Why the turn went to ERROR (with a fix), or None."""
    tool_commands: tuple[cmd.RunTool, ...] = ()
    """Every RunTool of the turn (read runs, write proposals, executions), in order."""
    actions: tuple[reports.PublishAction, ...] = ()
    """The write path's moves in this turn (pending, executed, cleared), in order."""
    units: tuple[UnitRecord, ...] = ()
    """A grounded answer's spoken units, each with its sources and what became of it."""
    earlier_units: tuple[UnitRecord, ...] = ()
    """After a scripted interruption: the units of the question that was cut off."""
    plan: AnswerPlan | None = None
    """The grounded answer's plan (claims, refused claims, passages), None for other turns."""
    reflections: tuple[reports.PublishReflection, ...] = ()
    """Verdict-gated speech: each reflection, verdict and continuation, in order."""

    @property
    def reply_audio_s(self) -> float:
        """Seconds of reply audio."""
        return len(self.audio) / self.sample_rate if self.sample_rate else 0.0

    def transition_lines(self) -> list[str]:
        """Every transition as 'SOURCE->TARGET (cause)'."""
        return [f"{t.source.name}->{t.target.name} ({t.cause})" for t in self.transitions]


@dataclass
class TurnLog:
    """Bookkeeping of the turn in progress. Owned by the calling thread."""

    audio: Any = None
    """The recorded question (float32 mono 16 kHz), or None."""
    text: str | None = None
    """The typed question (no ASR), or None."""
    transitions: list[Transition] = field(default_factory=list)
    user_text: str = ""
    heard: HeardReport | None = None
    tool_calls: list[str] = field(default_factory=list)
    tool_commands: list[cmd.RunTool] = field(default_factory=list)
    actions: list[reports.PublishAction] = field(default_factory=list)
    tts_done_s: float | None = None
    """When the last chunk the machine took was synthesised (clock seconds)."""
    error: AgentError | None = None
    over: bool = False
    """True once the machine is back to LISTENING (or the turn stalled)."""
    reflections: list[reports.PublishReflection] = field(default_factory=list)
    chunks_played: int = 0
    """Chunks of the reply queued to play (the filler not counted)."""


def finished_turn(turn: TurnLog, *, turn_id: TurnId, span: TurnSpan | None,
                  audio: Callable[[], Any], sample_rate: int, units: UnitLog,
                  plan: AnswerPlan | None) -> HeadlessTurn:
    """The report of ``turn`` (the machine's turn ``turn_id``, whose latency span is ``span``).

    ``audio`` (what the speaker consumed) and the reply count only for a reply heard to the
    end; ``plan`` (the grounded answerer's last) only when this turn's units came from it.
    """
    heard = turn.heard
    said = heard is not None and not heard.interrupted and turn.error is None
    records = units.records(turn_id)
    if plan is not None and (not records or records[0].generation != plan.generation):
        plan = None
    return HeadlessTurn(
        transcript=turn.user_text, reply=heard.heard_text if said and heard else "",
        audio=audio() if said else np.zeros(0, dtype=np.int16),
        sample_rate=sample_rate, tool_calls=tuple(turn.tool_calls),
        timings_ms=timings_ms(span, turn), transitions=tuple(turn.transitions), heard=heard,
        error=turn.error, tool_commands=tuple(turn.tool_commands), actions=tuple(turn.actions),
        units=records, earlier_units=units.records(turn_id, before=True), plan=plan,
        reflections=tuple(turn.reflections))


def timings_ms(span: TurnSpan | None, turn: TurnLog) -> dict[str, float]:
    """The ``HeadlessTurn.timings_ms`` of ``turn`` from its latency ``span`` (none without)."""
    timings: dict[str, float] = {}
    if span is None:
        return timings
    for key, mark in (("asr", "asr_final"), ("filler", "filler"),
                      ("llm_first_token", "llm_first_token"),
                      ("tts_first_chunk", "first_chunk"), ("first_audio", "first_audio"),
                      ("llm_total", "llm_done")):
        if (ms := span.since_endpoint_ms(mark)) is not None:
            timings[key] = round(ms, 1)
    endpoint = span.marks.get("endpoint")
    if endpoint is not None and turn.tts_done_s is not None:
        timings["tts_total"] = round((turn.tts_done_s - endpoint) * 1000, 1)
    if endpoint is not None and turn.transitions:
        timings["turn_total"] = round((turn.transitions[-1].at_s - endpoint) * 1000, 1)
    return timings


def turn_error(cause: str, error: AgentError | None) -> AgentError:
    """Why a turn went to ERROR by ``cause``: the typed ``error`` (with a fix), or one made up.

    Without a typed failure (timeouts, limits) the error is named by the cause.
    """
    if error is not None:
        return error if error.fix else AgentError(error.code, error.message, DOCTOR_FIX)
    stage, _, kind = cause.partition("_")
    what = {"asr": "Speech recognition", "llm": "The language model", "tts": "The voice",
            "tool": "A tool", "playback": "Playback", "recording": "The recording"}.get(
        stage, "The turn")
    if kind == "timeout":
        return AgentError(cause, f"{what} took too long.", DOCTOR_FIX)
    return AgentError(cause, f"The turn failed ({cause}).", DOCTOR_FIX)


def stall_error(state: str, stall_s: float) -> AgentError:
    """The error of a turn during which nothing happened for ``stall_s`` in ``state``."""
    return AgentError("turn_stalled", f"Nothing happened for {stall_s:.0f} s in {state}.",
                      DOCTOR_FIX)
