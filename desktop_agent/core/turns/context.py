"""The machine's private, mutable bookkeeping for the current turn and its reply.

Owned by one ``TurnStateMachine`` on one thread; never shared, never published.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.ports import ChatMessage, ToolCall
from desktop_agent.core.turns.chunking import Chunker
from desktop_agent.core.turns.events import LlmFinished, LlmToken, LlmToolCall, TtsChunkReady
from desktop_agent.core.turns.spoken_units import ReplyUnits
from desktop_agent.core.turns.states import JobId, Stage, ToolMode
from desktop_agent.core.turns.telemetry import TurnSpan

_NOT_WORD = re.compile(r"[^\w' ]+")


def normalise_for_compare(text: str) -> str:
    """Lower case, punctuation dropped, whitespace collapsed: 'Hi, there!' -> 'hi there'."""
    return " ".join(_NOT_WORD.sub(" ", text.lower()).split())


@dataclass(slots=True)
class Speculation:
    """An LLM job started on a stable partial transcript; its output is held back."""

    job: JobId
    text: str
    """The user text it was started on (earlier segments + the partial)."""
    held: list[LlmToken | LlmToolCall | LlmFinished] = field(default_factory=list)
    """Output received before the final transcript confirmed the text, in order."""


@dataclass(slots=True)
class ReflectState:
    """Verdict-gated speech in one reply: the opening, reflections, continuations."""

    question: str
    rounds: int = 0
    """Reflections started."""
    job: JobId | None = None
    """The Reflect job awaited (None between reflections)."""
    speaking: bool = True
    """True while the speaker's opening streams (it is stopped when the opening is done)."""
    sentences: int = 0
    """Sentences of the opening so far."""
    heard_before: HeardReport | None = None
    """What was heard of the streams a repair cut (kept for the history and the next
    reflection)."""
    sentence_task: bool = False
    """The question asks for a constrained sentence: a continuation is a new attempt."""
    retried: bool = False
    """A sentence task's model continuation was started: a new attempt is made once."""
    word_problem: bool = False
    """The question is a word problem: what is said after a tool call is judged too."""


@dataclass(slots=True)
class Reply:
    """One attempt at answering the user's text: LLM runs, tools, synthesis, playback."""

    chunker: Chunker
    llm_job: JobId | None = None
    """The LLM run streaming now (None between runs and when done)."""
    llm_first_output: bool = False
    """True once the current run produced a token or a tool call."""
    llm_done: bool = False
    """True once the last LLM run finished and no tool continuation is due."""
    text: str = ""
    """LLM text of all runs so far."""
    tools: dict[JobId, ToolCall] = field(default_factory=dict)
    """Tool jobs running."""
    tool_modes: dict[JobId, ToolMode] = field(default_factory=dict)
    """What each running tool job does (RUN when absent)."""
    filler_index: int | None = None
    """Chunk index of the filler ("One moment.") if one was synthesised for this reply."""
    tool_calls: int = 0
    tool_messages: list[ChatMessage] = field(default_factory=list)
    """Call + result pairs of finished tools, in order of completion."""
    continuation_due: bool = False
    """True when a tool result arrived since the last LLM run started."""
    synth: dict[JobId, tuple[int, str]] = field(default_factory=dict)
    """Synthesis jobs outstanding: job -> (chunk_index, text)."""
    ready: dict[int, TtsChunkReady] = field(default_factory=dict)
    """Chunks synthesised but waiting for an earlier chunk before they can be queued."""
    next_play_index: int = 0
    queued: list[TtsChunkReady] = field(default_factory=list)
    """Chunks queued on the playback stream, in order (chunks without samples are skipped)."""
    queued_samples: int = 0
    stream_job: JobId | None = None
    playback_started: bool = False
    played_samples: int = 0
    """Samples of the stream the device consumed (last report)."""
    playback_idle: bool = True
    """True when the device consumed everything queued so far."""
    ducked: bool = False
    units: ReplyUnits = field(default_factory=ReplyUnits)
    """A grounded answer's spoken units, by chunk index."""
    reflect: ReflectState | None = None
    """Verdict-gated speech of this reply (None: not reflected)."""
    acted: bool = False
    """True once a tool of this turn ran and answered without an error: only then may the
    model's words say that something was done (``core.tools.claimed``)."""
    tool_error: str = ""
    """The last error a tool of this turn answered (said instead of a claim of success)."""
    claim_refused: bool = False
    """True once a clause claimed an action with no tool behind it: the rest is not spoken."""


@dataclass(slots=True)
class TurnContext:
    """Everything the machine knows about the current turn."""

    turn_id: TurnId
    span: TurnSpan
    segments: list[str | None] = field(default_factory=list)
    """Final transcripts of the turn's recordings, in order; None while pending."""
    asr_segment: dict[JobId, int] = field(default_factory=dict)
    """Transcription job -> index into ``segments``."""
    recording_job: JobId | None = None
    next_chunk_index: int = 0
    """Chunk indices are unique within a turn, across reply attempts."""
    speculation: Speculation | None = None
    reply: Reply | None = None
    timers: dict[JobId, Stage] = field(default_factory=dict)
    """Armed timers of this turn."""
    tts_timer: JobId | None = None
    llm_timer: JobId | None = None
    asr_timers: dict[JobId, JobId] = field(default_factory=dict)
    """Transcription job -> its timer."""
    tool_timers: dict[JobId, JobId] = field(default_factory=dict)
    """Tool job -> its timer."""
    flush_timer: JobId | None = None
    apology_timer: JobId | None = None
    filler_timer: JobId | None = None
    """Armed while the LLM's first output or a tool is awaited (see ``filler_after_s``)."""
    filler_done: bool = False
    """The filler played (or was not needed) this turn: it comes at most once."""
    floor_from_s: float | None = None
    """After a barge-in: where the user's recording starts."""
    released_early: bool = False
    """After a PTT barge-in: the button came up before the playback stopped (a tap)."""
    ended_early_s: float | None = None
    """After a voice barge-in: the speech ended (this clock time) before the playback stopped."""

    def user_text(self) -> str:
        """The merged final text of the resolved segments."""
        return " ".join(s.strip() for s in self.segments if s and s.strip())

    def segments_resolved(self) -> bool:
        """True when every recording of the turn has its final transcript."""
        return all(s is not None for s in self.segments)
