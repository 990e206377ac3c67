"""Events: what happened. The runtime feeds them to ``TurnStateMachine.handle``.

Every event carries ``turn_id`` and ``at_s`` (clock seconds, stamped by the runtime when it
observed the fact; the machine never reads a clock). Events produced by a job the machine
started also carry that job's ``job`` id, copied from the command.

Two kinds, as in STYLE.md ("control messages are never dropped; data tied to a turn is dropped
when the turn is cancelled"):

* control events (``CONTROL_EVENTS``: user input and reset) are never dropped; their
  ``turn_id`` is informational (the runtime passes ``machine.turn_id``);
* every other event is data: the machine drops it, in one place, when its ``turn_id`` is not
  the current turn or its ``job`` is no longer live (cancelled, finished or superseded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.ports import ToolCall, WordTiming
from desktop_agent.core.tools.write_actions import PreparedAction
from desktop_agent.core.turns.states import JobId, Stage

if TYPE_CHECKING:
    from desktop_agent.core.knowledge.records import SpokenUnit

# --- user input (control) ----------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PttPressed:
    """The push-to-talk control went down."""

    turn_id: TurnId
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionButtonPressed:
    """The user pressed Confirm or Cancel on the pending action's card."""

    turn_id: TurnId
    confirm: bool
    """True for Confirm, False for Cancel."""
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class PttReleased:
    """The push-to-talk control came up (the endpoint in push-to-talk mode)."""

    turn_id: TurnId
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class SpeechStarted:
    """Hands-free: the VAD confirmed a speech onset while the assistant was not speaking."""

    turn_id: TurnId
    at_s: float
    """When the onset was confirmed, clock seconds."""
    speech_start_s: float
    """When the speech actually began (``at_s`` minus the VAD's confirmation delay), seconds.
    The recording starts here so the first syllable is not lost."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SpeechEnded:
    """Hands-free: the endpointer decided the user finished speaking."""

    turn_id: TurnId
    at_s: float
    """When the endpointer fired (after its trailing silence), clock seconds."""
    speech_end_s: float
    """When the speech actually ended, clock seconds (the recording may stop here)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Reset:
    """Drop everything and go back to LISTENING (mode switch, settings change, shutdown)."""

    turn_id: TurnId
    at_s: float


# --- recording and ASR ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class AsrPartial:
    """A partial transcript of the recording ``job`` that is still running."""

    turn_id: TurnId
    job: JobId
    """The StartRecording job."""
    text: str
    stable: bool
    """True when the recogniser considers the text settled (it stopped changing)."""
    trailing_silence_s: float
    """Seconds of silence after the last word of ``text``."""
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class AsrFinal:
    """The final transcript of one recording (answer to ``Transcribe``)."""

    turn_id: TurnId
    job: JobId
    """The Transcribe job."""
    text: str
    no_speech: bool
    """True when the recogniser judged the audio not to be speech (text is then ignored)."""
    at_s: float


# --- LLM and tools ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class LlmStarted:
    """The LLM job began work (prefill started). Informational."""

    turn_id: TurnId
    job: JobId
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class LlmToken:
    """A streamed piece of reply text (one or more tokens), or one grounded spoken unit."""

    turn_id: TurnId
    job: JobId
    text: str
    at_s: float
    unit: SpokenUnit | None = None
    """Set for a grounded answer: ``text`` is the unit's text, spoken as one chunk."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LlmToolCall:
    """The LLM asked for a tool call (complete, parsed)."""

    turn_id: TurnId
    job: JobId
    call: ToolCall
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class LlmFinished:
    """The LLM job's stream ended normally (not sent for a cancelled job)."""

    turn_id: TurnId
    job: JobId
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """A tool finished (answer to ``RunTool``)."""

    turn_id: TurnId
    job: JobId
    """The RunTool job."""
    call_id: str
    content: str
    """What the tool returned, as text for the LLM."""
    is_error: bool = False
    """True when the tool failed in an expected way; ``content`` then says why (the LLM is told)."""
    action: PreparedAction | None = None
    """For a PREPARE or REVISE job that succeeded: the validated action to read back."""
    final: bool = False
    """An error whose ``content`` is the user's whole answer (nothing the model could fix:
    no such application): the write path speaks it instead of asking the model."""
    at_s: float


# --- TTS and playback ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TtsChunkReady:
    """Audio for one ``Synthesize`` command is ready (the runtime keeps the samples)."""

    turn_id: TurnId
    job: JobId
    """The Synthesize job."""
    chunk_index: int
    """Copied from Synthesize: the chunk's place in the turn's speech (0, 1, ...)."""
    text: str
    """The text actually spoken (after speech normalisation)."""
    n_samples: int
    """Number of audio samples at ``sample_rate`` (0 for text with nothing to say)."""
    sample_rate: int
    """Hz."""
    words: tuple[WordTiming, ...] = ()
    """Word timings in samples from the chunk start; may be empty (then heard text is estimated)."""
    aligned: bool = False
    """True when ``words`` come from the voice's alignments, False when estimated."""
    written_text: str = ""
    """The Synthesize text as the reply wrote it (digits, not 'two thirty p m'); '' = unknown.
    Heard-so-far maps the heard words back to it for the history (core/conversation/heard.py)."""
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaybackStarted:
    """The first sample of the playback stream ``job`` actually reached the device."""

    turn_id: TurnId
    job: JobId
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaybackProgress:
    """Periodic playback position of the stream ``job``."""

    turn_id: TurnId
    job: JobId
    played_samples: int
    """Samples of this stream the device consumed so far, at the chunks' sample rate."""
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaybackFinished:
    """The device consumed everything queued on the stream ``job`` (the queue ran dry).

    May be sent more than once per stream when synthesis falls behind playback.
    """

    turn_id: TurnId
    job: JobId
    played_samples: int
    """Samples of this stream the device consumed so far, at the chunks' sample rate."""
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaybackStopped:
    """The stream ``job`` was flushed (answer to ``FlushPlayback``) and is silent now."""

    turn_id: TurnId
    job: JobId
    played_samples: int
    """Samples the device actually consumed for this stream, fade included (not samples queued)."""
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class VoiceOnsetDuringPlayback:
    """Hands-free: the (echo-cancelled) mic heard a voice onset while the assistant spoke."""

    turn_id: TurnId
    at_s: float
    speech_start_s: float
    """When the user's speech began, clock seconds (the next recording starts here)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BargeInDecided:
    """Hands-free: the barge-in policy's verdict on the last onset during playback."""

    turn_id: TurnId
    real: bool
    """True: the user takes the floor. False: a backchannel or noise; playback resumes."""
    transcript: str = ""
    """What the policy heard, for the log (e.g. 'mm-hmm', 'wait')."""
    at_s: float


# --- failures and timers --------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class StageFailed:
    """A job (or a whole stage, when ``job`` is None) failed with a typed error."""

    turn_id: TurnId
    job: JobId | None
    """The failing job; None for a failure not tied to one job (e.g. the output device)."""
    stage: Stage
    code: str
    """The AgentError code, e.g. 'llm_error'."""
    message: str
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Reflected:
    """The reflector's verdict on the utterance of a ``Reflect`` job."""

    turn_id: TurnId
    job: JobId
    """The Reflect job."""
    verdict: str
    """'good', 'refine', 'repair' or 'working' (core.reflection.Verdict values)."""
    guidance: str
    """What is wrong or missing and the correct substance ('' when good)."""
    correction: str
    """The correct substance as a clause to speak; '' when the model writes the continuation."""
    flagged_word: int | None
    """Index of the first written word of the flagged claim in the utterance (None: not
    located)."""
    checker: str
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class StageTimedOut:
    """The timer ``job`` (a ``StartTimer`` command) expired."""

    turn_id: TurnId
    job: JobId
    """The StartTimer job."""
    stage: Stage
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ApologyFinished:
    """The apology of an ERROR turn was spoken (or could not be: the runtime sends it anyway)."""

    turn_id: TurnId
    at_s: float


Event: TypeAlias = (
    PttPressed
    | ActionButtonPressed
    | PttReleased
    | SpeechStarted
    | SpeechEnded
    | Reset
    | AsrPartial
    | AsrFinal
    | LlmStarted
    | LlmToken
    | LlmToolCall
    | LlmFinished
    | ToolResult
    | TtsChunkReady
    | PlaybackStarted
    | PlaybackProgress
    | PlaybackFinished
    | PlaybackStopped
    | VoiceOnsetDuringPlayback
    | BargeInDecided
    | StageFailed
    | StageTimedOut
    | ApologyFinished
    | Reflected
)
"""Every event the machine accepts."""

CONTROL_EVENTS: Final[tuple[type[Any], ...]] = (
    PttPressed,
    ActionButtonPressed,
    PttReleased,
    SpeechStarted,
    SpeechEnded,
    Reset,
)
"""Events that are never dropped as stale (user input and reset)."""


def event_job(event: Event) -> JobId | None:
    """The job id an event carries, or None for events not produced by a job."""
    job: JobId | None = getattr(event, "job", None)
    return job
