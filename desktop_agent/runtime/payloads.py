"""What goes to the engine workers and what comes back: frozen payloads, one per meaning.

Jobs carry the ``CancelToken`` their worker checks at every yield point. A result that is
more than a core event has a payload of its own: a partial transcript (``AsrPartialResult``),
a reply chunk with its audio (``SynthesizedChunk``), an aside's audio (``SpokenAside``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ChatMessage, SpeechChunk, ToolCall, ToolSpec
from desktop_agent.core.turns.commands import RunTool
from desktop_agent.core.turns.events import TtsChunkReady
from desktop_agent.core.turns.states import JobId

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


@dataclass(frozen=True, slots=True)
class AsrJob:
    """Transcribe ``audio`` for ``job``; partial jobs answer with an ``AsrPartialResult``."""

    turn_id: TurnId
    job: JobId
    audio: npt.NDArray[np.float32]
    """16 kHz mono float32."""
    cancel: CancelToken
    partial: bool = False
    speech_ratio: float = 1.0
    """Fraction of VAD frames that were speech (gates Whisper's silence hallucinations)."""
    previous_partial: str = ""
    trailing_silence_s: float = 0.0
    """Seconds of silence at the end of ``audio``."""
    context: str = ""
    """Committed words said before ``audio`` (see ``core/listening/partials.py``): the engine
    reads them as context, and the transcript reported is these words and what ``audio``
    adds."""


@dataclass(frozen=True, slots=True)
class AsrPartialResult:
    """A partial transcript came back (the controller decides what the machine sees)."""

    job: AsrJob
    text: str
    """The transcript, stripped ('' when nothing was heard)."""
    no_speech: bool
    """True when the recogniser judged the audio not to be speech (``text`` is then void)."""


@dataclass(frozen=True, slots=True)
class LlmJob:
    """Stream a reply to ``messages``."""

    turn_id: TurnId
    job: JobId
    messages: tuple[ChatMessage, ...]
    cancel: CancelToken
    tools: tuple[ToolSpec, ...] = ()
    no_tools: bool = False
    """True: offer no tools (a reflection's continuation writes prose only)."""


@dataclass(frozen=True, slots=True)
class ReflectJob:
    """Judge ``utterance`` as an answer to ``question`` (verdict-gated speech)."""

    turn_id: TurnId
    job: JobId
    question: str
    utterance: str
    cancel: CancelToken


class PrefillGate:
    """Which queued prefill is still worth doing: the newest, and none once a run is queued.

    Prefills queue on the LLM thread faster than they run on a busy machine (one when a
    turn ends, one per partial transcript, each in both models of a composite); only the
    newest prompt's start matters, and a run queued behind them evaluates what it needs
    itself. Written on the GUI thread, read on the LLM thread (one int: atomic).
    """

    def __init__(self) -> None:
        """No prefill issued yet."""
        self._latest = 0

    def issue(self) -> int:
        """A new prefill's number: every one issued before it is superseded."""
        self._latest += 1
        return self._latest

    def supersede(self) -> None:
        """A run was queued: every prefill issued so far is superseded."""
        self._latest += 1

    def current(self, number: int) -> bool:
        """True when prefill ``number`` is the newest and no run was queued since."""
        return number == self._latest


@dataclass(frozen=True)
class PrefillJob:
    """Evaluate the start of the next prompt ahead of the endpoint.

    ``messages`` (system prompt and history), then a user message that starts with
    ``user_prefix`` (a partial transcript; '' between turns). With a ``gate``, the job is
    skipped when a newer prefill or a run was queued after it (``PrefillGate``).
    """

    messages: tuple[ChatMessage, ...]
    user_prefix: str = ""
    gate: PrefillGate | None = None
    number: int = 0


@dataclass(frozen=True, slots=True)
class TtsJob:
    """Speak ``text`` as chunk ``chunk_index`` of the turn's reply."""

    turn_id: TurnId
    job: JobId
    chunk_index: int
    text: str
    cancel: CancelToken


@dataclass(frozen=True, slots=True)
class SynthesizedChunk:
    """One reply chunk, synthesized: the machine's event and the audio it describes."""

    ready: TtsChunkReady
    """What the turn machine is told (text, sample count, rate, word timings)."""
    audio: npt.NDArray[Any] | None
    """The samples at ``ready.sample_rate`` (int16 mono); None when there was nothing to say."""
    cancel: CancelToken
    """The job's token: audio of a job cancelled since is not kept."""


@dataclass(frozen=True, slots=True)
class AsideJob:
    """Speak ``text`` outside the turn machine (an apology, a repeated answer, a test)."""

    turn_id: TurnId
    text: str
    cancel: CancelToken


@dataclass(frozen=True, slots=True)
class SpokenAside:
    """The audio of an ``AsideJob``; ``chunk`` is None when the voice could not say it."""

    job: AsideJob
    chunk: SpeechChunk | None


@dataclass(frozen=True, slots=True)
class ToolJob:
    """Run, prepare, revise or execute a tool call (``command.mode`` says which)."""

    turn_id: TurnId
    job: JobId
    call: ToolCall
    cancel: CancelToken
    command: RunTool | None = None
    """The machine's command (None: a plain read of ``call``)."""


@dataclass
class LoadState:
    """What a worker's engine is doing: loading, ready or failed."""

    stage: str
    status: str
    detail: str = ""
    ms: float = 0.0
    error: AgentError | None = field(default=None)
