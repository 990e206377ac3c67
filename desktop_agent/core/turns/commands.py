"""Commands: what the machine asks the runtime to do.

The runtime executes the commands of a ``Step`` in order. Commands that start work carry a
fresh ``job`` id; the runtime keeps one ``CancelToken`` per job, and every event that work
produces echoes ``turn_id`` and ``job``. ``Cancel*`` commands name the job(s) to cancel; a
cancelled job's late output is dropped by the machine, so cancelling is best effort. The
reports (``Publish*``), which start no work, are in ``reports.py``; ``Command`` has them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.ports import ChatMessage, ToolCall
from desktop_agent.core.tools.write_actions import PreparedAction
from desktop_agent.core.turns.reports import (
    PublishAction,
    PublishHeard,
    PublishReflection,
    PublishUnit,
    PublishUserText,
)
from desktop_agent.core.turns.states import JobId, Stage, ToolMode

# --- recording and ASR ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class StartRecording:
    """Start capturing the user's speech into a new recording ``job``."""

    stage: ClassVar[Stage] = Stage.RECORDING
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId
    from_s: float
    """Clock time the recording starts at, seconds. May lie in the past (a barge-in, a VAD
    onset): the runtime takes that audio from its mic ring buffer."""
    partials: bool
    """True: send ``AsrPartial`` events for this recording while it runs."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StopRecording:
    """Stop the recording ``job``; its audio is kept for ``Transcribe``."""

    stage: ClassVar[Stage] = Stage.RECORDING
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId
    until_s: float
    """Clock time the recording ends at, seconds (audio after it is discarded)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Transcribe:
    """Transcribe the audio of a stopped recording; answer with ``AsrFinal``."""

    stage: ClassVar[Stage] = Stage.ASR
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId
    recording: JobId
    """The StartRecording job whose audio to transcribe."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelAsr:
    """Cancel a recording or transcription job (discard its audio)."""

    stage: ClassVar[Stage] = Stage.ASR
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId


# --- LLM and tools ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class StartLlm:
    """Stream a reply to ``messages``; answer with LlmToken/LlmToolCall and LlmFinished."""

    stage: ClassVar[Stage] = Stage.LLM
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId
    messages: tuple[ChatMessage, ...]
    """The whole prompt: system prompt, trimmed history, this turn's user text and tool messages."""
    speculative: bool = False
    """True when started on a stable partial transcript before the final one (may be cancelled)."""
    tools: bool = True
    """False: never offer tools (a reflection's continuation writes prose only)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reflect:
    """Judge the utterance so far as an answer to ``question``; answer with ``Reflected``.

    A literal check (core/reflection) decides when one applies; otherwise the model
    reflector (temperature 0, a fixed grammar). Runs where the LLM runs; cancelled with
    ``CancelLlm(job)`` like a run.
    """

    stage: ClassVar[Stage] = Stage.LLM
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId
    question: str
    utterance: str
    """What was said so far: heard words of earlier segments, then the planned text."""
    round: int
    """1 for the opening, then one more for each continuation."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelLlm:
    """Cancel the LLM ``job`` (its late output is dropped anyway)."""

    stage: ClassVar[Stage] = Stage.LLM
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId


@dataclass(frozen=True, slots=True, kw_only=True)
class RunTool:
    """Run, prepare or execute a tool call; answer with ``ToolResult``.

    Only ``ToolMode.EXECUTE`` may change anything, and it runs ``action`` (the stored,
    confirmed action) under ``key``, never the model's call.
    """

    stage: ClassVar[Stage] = Stage.TOOL
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId
    call: ToolCall
    mode: ToolMode = ToolMode.RUN
    action: PreparedAction | None = None
    """REVISE: the pending action to change; EXECUTE: the confirmed action to run."""
    key: str = ""
    """EXECUTE: the idempotency key (the action runs at most once per key)."""
    text: str = ""
    """REVISE: the user's words ("make it 6 pm")."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelTool:
    """Cancel the tool ``job`` (a pending tool plan is dropped)."""

    stage: ClassVar[Stage] = Stage.TOOL
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId


# --- TTS and playback ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Synthesize:
    """Synthesise one clause; answer with exactly one ``TtsChunkReady``.

    When the engine yields several pieces for ``text``, the runtime concatenates them (word
    timings shifted by the preceding samples) into one chunk.
    """

    stage: ClassVar[Stage] = Stage.TTS
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId
    chunk_index: int
    """The chunk's place in this turn's speech (0, 1, ...); the runtime keys the audio by it."""
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelTts:
    """Cancel the synthesis jobs ``jobs`` (drop their audio, ready or not)."""

    stage: ClassVar[Stage] = Stage.TTS
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    jobs: tuple[JobId, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayChunk:
    """Queue the audio of chunk ``chunk_index`` on the playback stream ``job``.

    The first PlayChunk of a stream opens it: the player reports PlaybackStarted when its
    first sample reaches the device, then PlaybackProgress/Finished with the samples of the
    stream consumed so far.
    """

    stage: ClassVar[Stage] = Stage.PLAYBACK
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId
    """The playback stream."""
    chunk_index: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FlushPlayback:
    """Stop the playback stream ``job`` now, fading out; answer with ``PlaybackStopped``.

    Always answered, even when the stream had already drained (the machine waits for it, or
    for its flush timer, before it hands the floor to the user).
    """

    stage: ClassVar[Stage] = Stage.PLAYBACK
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId
    fade_ms: float
    """Length of the fade-out, milliseconds (the faded samples count as played)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DuckPlayback:
    """Lower the playback stream ``job`` while a possible barge-in is judged."""

    stage: ClassVar[Stage] = Stage.PLAYBACK
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId
    gain_db: float
    """Gain to apply, dB (negative)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ResumePlayback:
    """Undo ``DuckPlayback``: the onset was not a real barge-in."""

    stage: ClassVar[Stage] = Stage.PLAYBACK
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId


@dataclass(frozen=True, slots=True, kw_only=True)
class SpeakApology:
    """Say ``text`` (a canned apology); answer with ``ApologyFinished`` in any case."""

    stage: ClassVar[Stage] = Stage.APOLOGY
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StopApology:
    """Cut the apology short (the user pressed push-to-talk)."""

    stage: ClassVar[Stage] = Stage.APOLOGY
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId


# --- timers -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class StartTimer:
    """Arm a one-shot timer; on expiry send ``StageTimedOut(job, stage)``."""

    turn_id: TurnId
    job: JobId
    stage: Stage
    """The stage the timer guards: named by ``StageTimedOut`` on expiry, and (as on every
    command) the stage a failure to run this command is reported as. A field here, not a
    ClassVar: a second ``stage`` declaration would silently replace the first."""
    seconds: float
    """Delay until expiry, seconds from now."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CancelTimer:
    """Disarm the timer ``job`` (an expiry already queued is dropped by the machine)."""

    stage: ClassVar[Stage] = Stage.PLAYBACK
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    job: JobId


Command: TypeAlias = (
    StartRecording
    | StopRecording
    | Transcribe
    | CancelAsr
    | StartLlm
    | CancelLlm
    | RunTool
    | CancelTool
    | Synthesize
    | CancelTts
    | PlayChunk
    | FlushPlayback
    | DuckPlayback
    | ResumePlayback
    | SpeakApology
    | StopApology
    | StartTimer
    | CancelTimer
    | PublishUserText
    | PublishHeard
    | PublishAction
    | PublishUnit
    | Reflect
    | PublishReflection
)
"""Every command the machine emits."""
