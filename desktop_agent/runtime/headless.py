"""The headless executor: the app's turn machine, run synchronously on the real engines.

``desktop-agent ask`` answers one question here. It builds the same ``TurnStateMachine``
as the app (runtime/controller.py), feeds it the user's input events, and executes its
commands the way the scenario simulator does (tests/core/turns/scenario_fakes.py), but with
engines behind the core ports instead of fakes on a fake clock. So tools, the guard after
a tool, clause chunking, speech normalisation, heard-so-far and the history exist once:
in the machine and the functions the app's workers share.

Threads: the machine and everything in ``HeadlessExecutor`` are owned by the calling
thread. Each engine runs its jobs in order on its own lane (a thread with a job queue,
as each Qt worker has its QThread): ASR, LLM, tool and TTS, so Piper synthesises beside
the streaming LLM and the timings mean what the app's mean. Lanes only post events (with
their clock time) into one queue; the calling thread consumes it, feeds the machine and
runs the commands. Cancellation is the job's ``CancelToken``; late output of a cancelled
job is still posted and dropped by the machine, as in the app.

Playback goes to a ``VirtualSpeaker``: it consumes each queued chunk at once into an
output buffer and reports PlaybackStarted/Progress/Finished with the real sample counts,
so a reply is "heard" when its last chunk is synthesised and ``ask`` takes as long as the
engines take, not as long as the reply lasts. Timers are deadlines on the clock: a
``StageTimedOut`` is delivered when a stage really ran past its limit.

The machine's commands run through the command table the controller shares
(runtime/command_table.py): the executor implements ``CommandPorts`` itself, each command
one method below (the engine jobs they submit are in runtime/headless_jobs.py).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from functools import partial
from typing import Any, Final, Literal

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.conversation.history import History
from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT, dated_system_prompt
from desktop_agent.core.errors import AgentError
from desktop_agent.core.knowledge.index import KnowledgeIndex
from desktop_agent.core.knowledge.records import ClaimProposer
from desktop_agent.core.ports import AsrEngine, LlmEngine, TtsEngine
from desktop_agent.core.reflection.verdict import GrammarWriter, VerdictJudge, Writers
from desktop_agent.core.text.chunker import first_clause_chunker
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns import reports
from desktop_agent.core.turns.machine import TurnStateMachine
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.states import JobId, State, Transition
from desktop_agent.core.turns.tool_desk import WriteDesk
from desktop_agent.runtime.command_table import command_table
from desktop_agent.runtime.headless_io import Deadlines, Lane, Outbox, Tokens, VirtualSpeaker
from desktop_agent.runtime.headless_jobs import asr_job, llm_job, reflect_job, tool_job, tts_job
from desktop_agent.runtime.headless_turn import (
    HeadlessTurn,
    TurnLog,
    finished_turn,
    stall_error,
    turn_error,
)
from desktop_agent.runtime.headless_units import Interrupt, UnitLog

_LOGGER = logging.getLogger(__name__)

STALL_S: Final = 120.0
"""Seconds without any event while no timer is armed before a turn is declared stuck."""

Mode = Literal["push_to_talk", "hands_free"]


class HeadlessExecutor:
    """Runs the turn machine's commands synchronously with real (or fake) engines.

    Args:
        llm: Streams replies (``StartLlm``).
        tts: Speaks clauses (``Synthesize``).
        tools: Runs the LLM's tool calls (``RunTool``).
        asr: Transcribes recordings; may be None when only ``ask_text`` is used.
        desk: The write path (validate, revise, execute once); None: writes unavailable.
        wall: The local time (aware): today's date goes into each turn's prompt.
        session: Prefix of the write path's idempotency keys (unique per store).
        policy: Timeouts and knobs of the machine (the app's defaults when None).
        max_tokens: Per LLM run.
        clock: Monotonic seconds; stamps every event and drives the timers.
        stall_s: See ``STALL_S``.
        knowledge: The user's documents; with ``proposer``, questions about them get
            grounded answers (``core.conversation.knowledge_llm``).
        proposer: Proposes claims from passages (the local model).
        judge: The model reflector for questions no literal check understands (policy
            ``reflection`` 'on'); None: such replies stand as said.
        writer: The model writing under a grammar (word problems' computations, sentences
            that keep a word constraint); None: word problems are never corrected.

    Runs on: the calling thread (every public method); engines run on the lanes.
    """

    def __init__(self, llm: LlmEngine, tts: TtsEngine, tools: ToolRegistry,
                 asr: AsrEngine | None = None, *, policy: TurnPolicy | None = None,
                 max_tokens: int = 200, clock: Callable[[], float] = time.monotonic,
                 stall_s: float = STALL_S, desk: WriteDesk | None = None,
                 session: str = "headless",
                 wall: Callable[[], dt.datetime] = lambda: dt.datetime.now().astimezone(),
                 knowledge: KnowledgeIndex | None = None, proposer: ClaimProposer | None = None,
                 judge: VerdictJudge | None = None, writer: GrammarWriter | Writers | None = None,
                 ) -> None:
        """Start the lanes; the class docstring describes the arguments."""
        self._grounded = None
        if knowledge is not None and proposer is not None:
            from desktop_agent.core.conversation.knowledge_llm import KnowledgeLlm

            llm = self._grounded = KnowledgeLlm(llm, knowledge, proposer)
        self._llm, self._tts, self._tools, self._asr = llm, tts, tools, asr
        self._judge, self._desk, self._wall, self._max_tokens = judge, desk, wall, max_tokens
        self._clock, self._stall_s, self._writer = clock, stall_s, writer
        self._units, self._release_pending = UnitLog(), False
        self._interrupt: Interrupt | None = None
        self.machine = TurnStateMachine(History(SYSTEM_PROMPT), policy=policy or TurnPolicy(),
                                        chunker_factory=first_clause_chunker,
                                        write_tools=frozenset(
                                            s.name for s in tools.specs if s.writes),
                                        session=session,
                                        tools=frozenset(s.name for s in tools.specs),
                                        tool_limits_s={s.name: s.timeout_s for s in tools.specs
                                                       if s.timeout_s is not None})
        self._out = Outbox(clock)
        self._lanes = {name: Lane(name) for name in ("asr", "llm", "tool", "tts")}
        self._tokens = Tokens()
        self._deadlines = Deadlines()
        self._recordings: dict[JobId, Any] = {}
        self._speaker = VirtualSpeaker(self._out.post, clock)
        self._turn = TurnLog()
        self._handlers = command_table(self)

    # --- public --------------------------------------------------------------------------------

    def ask_text(self, text: str, interrupt: Interrupt | None = None) -> HeadlessTurn:
        """One turn whose transcript is ``text`` (typed): no ASR, the same machine after it.

        With ``interrupt``, the user cuts in with ``interrupt.text`` once that many units of
        a grounded answer were queued to play (or asks it next, if the answer ended first);
        the result is then the second question's turn, the first one's units in
        ``earlier_units``.
        """
        self._units = UnitLog()
        self._interrupt, self._release_pending = interrupt, False
        turn = self._run(TurnLog(text=text), "push_to_talk")
        if self._interrupt is not None:  # the answer ended before the cut: ask it next
            follow, self._interrupt = self._interrupt.text, None
            turn = self._run(TurnLog(text=follow), "push_to_talk")
        return turn

    def ask_audio(self, audio_16k: Any, mode: Mode = "push_to_talk") -> HeadlessTurn:
        """One turn on a recorded question (float32 mono 16 kHz), pressed or hands-free."""
        self._units, self._interrupt = UnitLog(), None
        return self._run(TurnLog(audio=audio_16k), mode)

    def machine_time(self) -> float:
        """The executor's clock now (what the machine's ``at_s`` values are measured on)."""
        return self._clock()

    def press(self, confirm: bool) -> HeadlessTurn:
        """The confirmation card's Confirm (True) or Cancel (False), as the window sends it."""
        return self._run(TurnLog(), "button", confirm)

    def close(self) -> None:
        """Cancel what still runs and stop the lanes (a hung engine is left behind)."""
        self._tokens.cancel_all("closed")
        for lane in self._lanes.values():
            lane.close()

    def __enter__(self) -> HeadlessExecutor:
        """The executor itself; ``close`` runs on exit."""
        return self

    def __exit__(self, *_exc: object) -> None:
        """Close the lanes."""
        self.close()

    # --- the loop: the one place the machine is touched ----------------------------------------

    def _run(self, turn: TurnLog, mode: Mode | Literal["button"],
             confirm: bool = False) -> HeadlessTurn:
        if self.machine.state is not State.LISTENING:
            raise AgentError("headless_busy", "A turn is still in progress.")
        self._turn = turn
        self.machine.history.set_system(dated_system_prompt(self._wall()))
        self._tokens.forget()  # the last turn's jobs are finished or cancelled
        self._speaker.reset()
        now = self._clock()
        tid = self.machine.turn_id
        if mode == "button":
            self._feed(ev.ActionButtonPressed(turn_id=tid, at_s=now, confirm=confirm))
            turn.over = turn.over or not turn.transitions  # ignored: nothing to wait for
        elif mode == "hands_free":
            self._feed(ev.SpeechStarted(turn_id=tid, at_s=now, speech_start_s=now))
            self._feed(ev.SpeechEnded(turn_id=self.machine.turn_id, at_s=self._clock(),
                                      speech_end_s=self._clock()))
        else:
            self._feed(ev.PttPressed(turn_id=tid, at_s=now))
            self._feed(ev.PttReleased(turn_id=self.machine.turn_id, at_s=self._clock()))
        while not self._turn.over:
            self._pump()
            self._maybe_interrupt()
        return self._result(self._turn)

    def _maybe_interrupt(self) -> None:
        """The scripted barge-in: press once enough units were queued, release when heard."""
        cut, machine = self._interrupt, self.machine
        if cut is None:
            return
        if self._release_pending:
            if machine.state is State.USER_SPEAKING:  # the floor is the user's: say it
                self._interrupt, self._release_pending = None, False
                self._feed(ev.PttReleased(turn_id=machine.turn_id, at_s=self._clock()))
            return
        if cut.due(preparing=machine.state in (State.PROCESSING, State.WAITING_FOR_TOOL),
                   speaking=machine.state is State.ASSISTANT_SPEAKING,
                   chunks_played=self._turn.chunks_played,
                   units_queued=self._units.queued.get(machine.turn_id, 0)):
            self._turn = TurnLog(text=cut.text)  # what happens from here is the new question's
            self._release_pending = True
            self._feed(ev.PttPressed(turn_id=machine.turn_id, at_s=self._clock()))

    def _pump(self) -> None:
        """Wait for the next event or the next deadline, whichever comes first."""
        due = self._deadlines.next_due()
        wait = self._stall_s if due is None else max(0.0, due - self._clock())
        posted = self._out.take(wait)
        if posted is None and due is None:
            self._stalled()
            return
        # Timers that expired before this event happened fire first, as they would have.
        for timed_out in self._deadlines.expired(
                self._clock() if posted is None else posted.event.at_s):
            self._feed(timed_out)
        if posted is not None:
            if posted.chunk is not None and isinstance(posted.event, ev.TtsChunkReady):
                self._speaker.keep(posted.event, posted.chunk)
            self._feed(posted.event, posted.error)

    def _feed(self, event: ev.Event, error: AgentError | None = None) -> None:
        dropped = self.machine.dropped_count
        step = self.machine.handle(event)
        if isinstance(event, ev.TtsChunkReady) and self.machine.dropped_count == dropped:
            self._turn.tts_done_s = event.at_s
        if step.transition is not None:
            self._on_transition(step.transition, error)
        for command in step.commands:
            try:
                self._handlers.run(command)
            except Exception as exc:  # a command that cannot run fails its turn, not ask
                _LOGGER.warning("turn=%d command %s failed: %s", command.turn_id,
                                type(command).__name__, exc)
                self._out.fail(self.machine.turn_id, None, command.stage, exc)

    def _on_transition(self, t: Transition, error: AgentError | None) -> None:
        _LOGGER.info("turn=%d %s -> %s (%s)", t.turn_id, t.source.name, t.target.name, t.cause)
        self._turn.transitions.append(t)
        if t.target is State.ERROR and self._turn.error is None:
            self._turn.error = turn_error(t.cause, error)
        if t.target is State.LISTENING:
            self._turn.over = True

    def _stalled(self) -> None:
        tid = self.machine.turn_id
        _LOGGER.warning("turn=%d stalled in %s", tid, self.machine.state.name)
        self._turn.error = stall_error(self.machine.state.name, self._stall_s)
        self._feed(ev.Reset(turn_id=tid, at_s=self._clock()))
        self._turn.over = True

    def _result(self, turn: TurnLog) -> HeadlessTurn:
        tid = self.machine.turn_id
        spans = [s for s in self.machine.completed_spans if s.turn_id == tid]
        return finished_turn(
            turn, turn_id=tid, span=spans[-1] if spans else None, audio=self._speaker.audio,
            sample_rate=self._tts.sample_rate, units=self._units,
            plan=self._grounded.last_plan if self._grounded is not None else None)

    def _token(self, c: Any) -> CancelToken:
        return self._tokens.new(c.turn_id, c.job)

    # --- commands (CommandPorts, runtime/command_table.py) -------------------------------------

    def start_recording(self, c: cmd.StartRecording) -> None:
        """The recording is the turn's recorded question (None when it was typed)."""
        self._recordings[c.job] = self._turn.audio

    def stop_recording(self, c: cmd.StopRecording) -> None:
        """Nothing to stop: the recording is the whole input."""

    def transcribe(self, c: cmd.Transcribe) -> None:
        """A typed question is the transcript at once; a recorded one goes to the ASR lane."""
        typed = self._turn.text
        if typed is not None:
            self._out.post(ev.AsrFinal(turn_id=c.turn_id, at_s=self._clock(), job=c.job,
                                       text=typed.strip(), no_speech=not typed.strip()))
            return
        audio = self._recordings.pop(c.recording, None)
        if audio is None:
            raise AgentError("recording_missing", "The recording to transcribe was lost.")
        if self._asr is None:
            raise AgentError("asr_not_loaded", "Speech recognition was not loaded.",
                             "Load the ASR model, or ask with --text.")
        self._lanes["asr"].submit(partial(asr_job, self._out, c, self._token(c), self._asr,
                                          audio))

    def cancel_asr(self, c: cmd.CancelAsr) -> None:
        """Cancel the job's token."""
        self._tokens.cancel(c.job, type(c).__name__)

    def start_llm(self, c: cmd.StartLlm) -> None:
        """Stream the reply on the LLM lane."""
        self._lanes["llm"].submit(partial(llm_job, self._out, c, self._token(c), self._llm,
                                          self._tools.specs, self._max_tokens))

    def cancel_llm(self, c: cmd.CancelLlm) -> None:
        """Cancel the job's token."""
        self._tokens.cancel(c.job, type(c).__name__)

    def reflect(self, c: cmd.Reflect) -> None:
        """Judge the utterance on the LLM lane (after the run that wrote it)."""
        self._lanes["llm"].submit(partial(reflect_job, self._out, c, self._token(c),
                                          self._judge, self._writer))

    def run_tool(self, c: cmd.RunTool) -> None:
        """Note the call for the report; run it on the tool lane."""
        token = self._token(c)
        self._turn.tool_calls.append(c.call.name)
        self._turn.tool_commands.append(c)
        self._lanes["tool"].submit(partial(tool_job, self._out, c, token, self._tools,
                                           self._desk))

    def cancel_tool(self, c: cmd.CancelTool) -> None:
        """Cancel the job's token."""
        self._tokens.cancel(c.job, type(c).__name__)

    def synthesize(self, c: cmd.Synthesize) -> None:
        """Synthesise the clause on the TTS lane."""
        self._lanes["tts"].submit(partial(tts_job, self._out, c, self._token(c), self._tts))

    def cancel_tts(self, c: cmd.CancelTts) -> None:
        """Cancel each job's token."""
        for job in c.jobs:
            self._tokens.cancel(job, "tts cancelled")

    def play_chunk(self, c: cmd.PlayChunk) -> None:
        """The virtual speaker consumes the chunk's audio at once."""
        chunk = self._speaker.take(c.turn_id, c.chunk_index)
        if chunk.text != self.machine.policy.filler_text:
            self._turn.chunks_played += 1  # the filler is not part of the answer
        self._speaker.play(c.turn_id, c.job, chunk.audio)

    def flush_playback(self, c: cmd.FlushPlayback) -> None:
        """The virtual speaker reports the stream stopped."""
        self._speaker.flush(c.turn_id, c.job)

    def duck_playback(self, c: cmd.DuckPlayback) -> None:
        """Nothing to lower: no barge-in without a microphone."""

    def resume_playback(self, c: cmd.ResumePlayback) -> None:
        """Nothing to restore: never ducked."""

    def speak_apology(self, c: cmd.SpeakApology) -> None:
        """Not spoken: headless, the error itself is the report (answered at once)."""
        self._out.post(ev.ApologyFinished(turn_id=c.turn_id, at_s=self._clock()))

    def stop_apology(self, c: cmd.StopApology) -> None:
        """Nothing to cut short: the apology is never spoken."""

    def start_timer(self, c: cmd.StartTimer) -> None:
        """A deadline on the clock, checked by the loop."""
        self._deadlines.arm(c, self._clock())

    def cancel_timer(self, c: cmd.CancelTimer) -> None:
        """Drop the deadline."""
        self._deadlines.disarm(c.job)

    def publish_user_text(self, c: reports.PublishUserText) -> None:
        """The turn's transcript."""
        self._turn.user_text = c.text

    def publish_heard(self, c: reports.PublishHeard) -> None:
        """The turn's heard report."""
        self._turn.heard = c.report

    def publish_action(self, c: reports.PublishAction) -> None:
        """One more move of the write path in the turn's report."""
        self._turn.actions.append(c)

    def publish_unit(self, c: reports.PublishUnit) -> None:
        """The unit's latest disposition, for the report."""
        self._units.record(c)

    def publish_reflection(self, c: reports.PublishReflection) -> None:
        """One more reflection move in the turn's report."""
        self._turn.reflections.append(c)
