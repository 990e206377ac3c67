"""The fake engines and the event loop behind ``scenario.run_scenario`` (see scenario.py)."""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.ports import ChatMessage, ToolCall, WordTiming
from desktop_agent.core.reflection.reflector import reflect
from desktop_agent.core.turns import commands as c
from desktop_agent.core.turns import events as e
from desktop_agent.core.turns.context import normalise_for_compare
from desktop_agent.core.turns.machine import TurnStateMachine
from desktop_agent.core.turns.reports import PublishHeard, PublishUserText
from desktop_agent.core.turns.states import JobId, State, Transition
from desktop_agent.core.turns.telemetry import TurnSpan
from tests.fakes.clock import FakeClock

if TYPE_CHECKING:
    from tests.core.turns.scenario import Script

SYSTEM_PROMPT = "You are a helpful voice assistant."
LEAD_SAMPLES = 800
"""Silence before the first word of every fake chunk."""
TAIL_SAMPLES = 1600
"""Silence after the last word of every fake chunk."""


@dataclass(frozen=True, slots=True)
class Utterance:
    """Something the user says: push-to-talk or hands-free."""

    start_s: float
    end_s: float
    text: str
    ptt: bool
    backchannel: bool = False


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    """What the fake LLM answers to one prompt."""

    text: str = ""
    tool_call: ToolCall | None = None
    fail_code: str | None = None
    hang: bool = False
    units: tuple[Any, ...] = ()
    """A grounded answer: these ``SpokenUnit`` s stream one LlmToken each (``text`` unused)."""


def fake_chunk_words(text: str, samples_per_char: int) -> tuple[tuple[WordTiming, ...], int]:
    """Word timings and length of a fake chunk: lead, one slot per character, tail."""
    words, pos = [], 0
    for token in text.split():
        start = LEAD_SAMPLES + pos * samples_per_char
        words.append(WordTiming(token, start, start + len(token) * samples_per_char))
        pos += len(token) + 1
    n = LEAD_SAMPLES + len(" ".join(text.split())) * samples_per_char + TAIL_SAMPLES
    return tuple(words), (n if words else 0)


@dataclass
class TurnRecord:
    """What one turn produced, for assertions."""

    turn_id: TurnId
    user_text: str | None
    heard: HeardReport | None

    @property
    def heard_text(self) -> str:
        """What the user heard of the reply ('' when nothing)."""
        return self.heard.heard_text if self.heard is not None else ""


@dataclass
class ScenarioLog:
    """Everything a run produced."""

    machine: TurnStateMachine
    transitions: list[Transition] = field(default_factory=list)
    events: list[tuple[float, e.Event]] = field(default_factory=list)
    commands: list[tuple[float, c.Command]] = field(default_factory=list)
    unscripted: list[str] = field(default_factory=list)
    heard_whole: list[tuple[float, int, tuple[ChatMessage, ...]]] = field(default_factory=list)
    """(time, turn, prompt) whenever the machine knew the next prompt's start, heard whole."""

    @property
    def targets(self) -> list[State]:
        """Target state of every transition, in order."""
        return [t.target for t in self.transitions]

    @property
    def causes(self) -> list[str]:
        """Cause of every transition, in order."""
        return [t.cause for t in self.transitions]

    @property
    def spans(self) -> tuple[TurnSpan, ...]:
        """The machine's completed latency spans."""
        return self.machine.completed_spans

    def of(self, kind: type[Any]) -> list[Any]:
        """Commands of one type, in order."""
        return [cmd for _, cmd in self.commands if isinstance(cmd, kind)]

    def kinds(self) -> list[str]:
        """Names of all command types, in order."""
        return [type(cmd).__name__ for _, cmd in self.commands]

    def turn(self, turn_id: int) -> TurnRecord:
        """The user text and heard report of ``turn_id``."""
        users = [x.text for x in self.of(PublishUserText) if x.turn_id == turn_id]
        heard = [x.report for x in self.of(PublishHeard) if x.turn_id == turn_id]
        return TurnRecord(
            TurnId(turn_id), users[-1] if users else None, heard[-1] if heard else None
        )


class Simulator:
    """The event loop and the fake engines."""

    def __init__(self, script: Script, machine: TurnStateMachine) -> None:
        self.s, self.m = script, machine
        self.clock = FakeClock()
        self.queue: list[tuple[float, int, Callable[[], e.Event | None]]] = []
        self.seq = 0
        self.log = ScenarioLog(machine)
        self.cancelled: dict[JobId, float] = {}
        self.killed: set[JobId] = set()
        self.apology_stopped: set[TurnId] = set()
        self.chunks: dict[tuple[TurnId, int], int] = {}
        self.recordings: dict[JobId, list[float]] = {}
        self.live_recording: JobId | None = None
        self.tts_busy_until = 0.0
        self.tts_started: dict[JobId, float] = {}
        self.streams: dict[JobId, _Stream] = {}
        self.spc = int(script.sample_rate / script.chars_per_s)

    # --- loop ---------------------------------------------------------------------------------

    def at(self, t: float, factory: Callable[[], e.Event | None]) -> None:
        self.seq += 1
        heapq.heappush(self.queue, (t, self.seq, factory))

    def run(self, until_s: float) -> ScenarioLog:
        while self.queue and self.queue[0][0] <= until_s:
            t, _, factory = heapq.heappop(self.queue)
            self.clock.set(t)
            event = factory()
            if event is None:
                continue
            self.log.events.append((t, event))
            step = self.m.handle(event)
            if (start := self.m.prompt_if_heard_whole()) is not None:
                self.log.heard_whole.append((t, int(self.m.turn_id), start))
            if step.transition is not None:
                self.log.transitions.append(step.transition)
            for command in step.commands:
                self.log.commands.append((t, command))
                self.execute(command, t)
        return self.log

    def later(self, t: float, job: JobId, event: e.Event) -> None:
        """Deliver ``event`` at ``t`` unless its job was cancelled (and the lag is over)."""
        self.at(t, lambda: event if self.alive(job, t) else None)

    def alive(self, job: JobId, t: float) -> bool:
        """Output of ``job`` at ``t`` still reaches the machine (cancel lag included)."""
        if job in self.killed:
            return False
        cut = self.cancelled.get(job)
        return cut is None or t <= cut + self.s.cancel_lag_s

    # --- user -------------------------------------------------------------------------------------

    def schedule_user(self, u: Utterance) -> None:
        m = self.m
        if u.ptt:
            self.at(u.start_s, lambda: e.PttPressed(turn_id=m.turn_id, at_s=u.start_s))
            self.at(u.end_s, lambda: e.PttReleased(turn_id=m.turn_id, at_s=u.end_s))
            return
        onset = u.start_s + self.s.vad_confirm_s
        self.at(onset, lambda: self.voice_onset(u, onset))
        if not u.backchannel:
            ended = u.end_s + self.s.endpoint_silence_s
            self.at(
                ended, lambda: e.SpeechEnded(turn_id=m.turn_id, at_s=ended, speech_end_s=u.end_s)
            )

    def voice_onset(self, u: Utterance, t: float) -> e.Event:
        m = self.m
        if m.state is not State.ASSISTANT_SPEAKING:
            return e.SpeechStarted(turn_id=m.turn_id, at_s=t, speech_start_s=u.start_s)
        decided = t + self.s.barge_in_decision_s
        turn = m.turn_id
        self.at(
            decided,
            lambda: e.BargeInDecided(
                turn_id=turn, real=not u.backchannel, transcript=u.text, at_s=decided
            ),
        )
        return e.VoiceOnsetDuringPlayback(turn_id=m.turn_id, at_s=t, speech_start_s=u.start_s)

    def schedule_partial(self, at_s: float, text: str, stable: bool, silence_s: float) -> None:
        def make() -> e.Event | None:
            job = self.live_recording
            if job is None:
                return None
            return e.AsrPartial(
                turn_id=self.m.turn_id,
                job=job,
                text=text,
                stable=stable,
                trailing_silence_s=silence_s,
                at_s=at_s,
            )

        self.at(at_s, make)

    # --- commands ---------------------------------------------------------------------------------

    def execute(self, cmd: c.Command, t: float) -> None:
        s, tid = self.s, cmd.turn_id
        if isinstance(cmd, c.StartRecording):
            self.recordings[cmd.job] = [cmd.from_s, float("inf")]
            self.live_recording = cmd.job
        elif isinstance(cmd, c.StopRecording):
            self.recordings[cmd.job][1] = cmd.until_s
            self.live_recording = None
        elif isinstance(cmd, c.Transcribe):
            lo, hi = self.recordings[cmd.recording]
            text = " ".join(u.text for u in s.utterances if u.start_s < hi and u.end_s > lo)
            done, job = t + s.asr_s, cmd.job
            self.at(
                done,
                lambda: (
                    e.AsrFinal(
                        turn_id=tid, job=job, text=text, no_speech=not text.strip(), at_s=done
                    )
                    if self.alive(job, done)
                    else None
                ),
            )
        elif isinstance(cmd, c.CancelAsr | c.CancelLlm | c.CancelTool | c.CancelTimer):
            self.cancelled[cmd.job] = t
            if cmd.job == self.live_recording:
                self.live_recording = None
        elif isinstance(cmd, c.StartLlm):
            self.start_llm(cmd, t)
        elif isinstance(cmd, c.Reflect):
            self.reflect(cmd, t)
        elif isinstance(cmd, c.RunTool):
            done, job, call = t + s.tool_s, cmd.job, cmd.call
            result = s.tools.get(call.name, "")
            self.at(
                done,
                lambda: (
                    e.ToolResult(
                        turn_id=tid, job=job, call_id=call.call_id, content=result, at_s=done,
                        is_error=call.name in s.tool_errors,
                    )
                    if self.alive(job, done)
                    else None
                ),
            )
        elif isinstance(cmd, c.Synthesize):
            self.synthesize(cmd, t)
        elif isinstance(cmd, c.CancelTts):
            for job in cmd.jobs:  # a chunk already being synthesised still comes out
                if self.tts_started.get(job, float("inf")) > t:
                    self.killed.add(job)
        elif isinstance(cmd, c.PlayChunk):
            self.play(cmd, t)
        elif isinstance(cmd, c.FlushPlayback):
            self.streams[cmd.job].flush(self, cmd, t)
        elif isinstance(cmd, c.DuckPlayback | c.ResumePlayback):
            pass
        elif isinstance(cmd, c.StartTimer):
            due, job, stage = t + cmd.seconds, cmd.job, cmd.stage
            self.at(
                due,
                lambda: (
                    e.StageTimedOut(turn_id=tid, job=job, stage=stage, at_s=due)
                    if job not in self.cancelled
                    else None
                ),
            )
        elif isinstance(cmd, c.SpeakApology):
            done = t + s.apology_s
            self.at(
                done,
                lambda: (
                    e.ApologyFinished(turn_id=tid, at_s=done)
                    if tid not in self.apology_stopped
                    else None
                ),
            )
        elif isinstance(cmd, c.StopApology):
            self.apology_stopped.add(tid)

    def start_llm(self, cmd: c.StartLlm, t: float) -> None:
        s, tid, job = self.s, cmd.turn_id, cmd.job
        last = cmd.messages[-1]
        key = (
            ("tool", last.name or "")
            if last.role == "tool"
            else ("user", normalise_for_compare(last.content))
        )
        reply = s.replies.get(key)
        if not cmd.tools:  # a reflection's continuation
            reply = ScriptedReply(s.continuations.pop(0) if s.continuations else "")
        if reply is None:
            self.log.unscripted.append(f"{key}")
            reply = ScriptedReply()
        if reply.hang:
            return
        first = t + s.first_token_s
        if reply.fail_code is not None:
            code = reply.fail_code
            self.at(
                first,
                lambda: (
                    e.StageFailed(
                        turn_id=tid,
                        job=job,
                        stage=e.Stage.LLM,
                        code=code,
                        message="scripted",
                        at_s=first,
                    )
                    if self.alive(job, first)
                    else None
                ),
            )
            return
        when = first
        for unit in reply.units:
            self.later(when, job, e.LlmToken(turn_id=tid, job=job, text=unit.text, at_s=when,
                                             unit=unit))
            when += 1.0 / s.tokens_per_s
        for token in re.findall(r"\S+\s*", reply.text):
            self.later(when, job, e.LlmToken(turn_id=tid, job=job, text=token, at_s=when))
            when += 1.0 / s.tokens_per_s
        if reply.tool_call is not None:
            self.later(
                when, job, e.LlmToolCall(turn_id=tid, job=job, call=reply.tool_call, at_s=when)
            )
            when += 1.0 / s.tokens_per_s
        self.later(when, job, e.LlmFinished(turn_id=tid, job=job, at_s=when))

    def reflect(self, cmd: c.Reflect, t: float) -> None:
        got = self.s.verdicts.pop(0) if self.s.verdicts else reflect(cmd.question,
                                                                      cmd.utterance, None)
        done, job = t + self.s.reflect_s, cmd.job
        self.at(done, lambda: e.Reflected(
            turn_id=cmd.turn_id, job=job, verdict=got.verdict.value, guidance=got.guidance,
            correction=got.correction, flagged_word=got.flagged_word, checker=got.checker,
            at_s=done) if self.alive(job, done) else None)

    def synthesize(self, cmd: c.Synthesize, t: float) -> None:
        start = max(t, self.tts_busy_until)
        done = self.tts_busy_until = start + self.s.tts_s
        self.tts_started[cmd.job] = start
        words, n = fake_chunk_words(cmd.text, self.spc)
        event = e.TtsChunkReady(
            turn_id=cmd.turn_id,
            job=cmd.job,
            chunk_index=cmd.chunk_index,
            text=cmd.text,
            n_samples=n,
            sample_rate=self.s.sample_rate,
            words=words,
            aligned=True,
            at_s=done,
        )
        self.at(done, lambda: event if self.alive(cmd.job, done) else None)
        self.chunks[(cmd.turn_id, cmd.chunk_index)] = n

    def play(self, cmd: c.PlayChunk, t: float) -> None:
        stream = self.streams.get(cmd.job)
        if stream is None:
            stream = self.streams[cmd.job] = _Stream(cmd.turn_id, cmd.job, self.s.sample_rate)
        stream.queue(self, self.chunks[(cmd.turn_id, cmd.chunk_index)], t)


class _Stream:
    """A fake output stream: real-time consumption of queued chunks."""

    def __init__(self, turn_id: TurnId, job: JobId, rate: int) -> None:
        self.turn_id, self.job, self.rate = turn_id, job, rate
        self.segments: list[tuple[float, int]] = []  # (start time, samples)
        self.end_s = -1.0
        self.total = 0
        self.stopped = False

    def played(self, t: float) -> int:
        return sum(max(0, min(n, int((t - t0) * self.rate + 1e-6))) for t0, n in self.segments)

    def queue(self, sim: Simulator, n: int, t: float) -> None:
        first = not self.segments
        ran_dry = not first and t >= self.end_s
        start = t + sim.s.output_latency_s if first else max(t, self.end_s)
        self.segments.append((start, n))
        self.total += n
        self.end_s = start + n / self.rate
        tid, job = self.turn_id, self.job
        if first:
            sim.at(start, lambda: e.PlaybackStarted(turn_id=tid, job=job, at_s=start))
        end, total = self.end_s, self.total
        if first or ran_dry:
            self.tick(sim, start + sim.s.progress_s)
        sim.at(
            end,
            lambda: (
                e.PlaybackFinished(turn_id=tid, job=job, played_samples=total, at_s=end)
                if not self.stopped and self.end_s == end
                else None
            ),
        )

    def tick(self, sim: Simulator, t: float) -> None:
        def make() -> e.Event | None:
            if self.stopped or t >= self.end_s:
                return None
            self.tick(sim, t + sim.s.progress_s)
            return e.PlaybackProgress(
                turn_id=self.turn_id, job=self.job, played_samples=self.played(t), at_s=t
            )

        sim.at(t, make)

    def flush(self, sim: Simulator, cmd: c.FlushPlayback, t: float) -> None:
        fade = int(cmd.fade_ms / 1000.0 * self.rate)
        played = min(self.total, self.played(t) + fade)
        self.stopped = True
        done = t + cmd.fade_ms / 1000.0
        tid, job = self.turn_id, self.job
        sim.at(
            done, lambda: e.PlaybackStopped(turn_id=tid, job=job, played_samples=played, at_s=done)
        )
