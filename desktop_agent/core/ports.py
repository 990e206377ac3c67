"""Protocols ("ports") for every engine, and the plain data they exchange.

Audio crosses these ports as numpy arrays, but core never imports numpy: the
arrays are typed ``Any`` here and documented by name and docstring.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from desktop_agent.core.cancel import CancelToken

if TYPE_CHECKING:  # core.knowledge builds on the knowledge port, never on this module at run time
    from desktop_agent.core.knowledge.records import SpokenUnit

ASR_SAMPLE_RATE = 16_000
"""Every pipeline-side audio signal (mic, ASR, VAD, AEC) is 16 kHz mono."""


@dataclass(frozen=True, slots=True)
class TranscriptSegment:
    """One Whisper segment."""

    text: str
    start_s: float
    end_s: float
    no_speech_prob: float
    avg_logprob: float


@dataclass(frozen=True, slots=True)
class Transcript:
    """What the ASR heard in one buffer of audio."""

    text: str
    segments: tuple[TranscriptSegment, ...] = ()
    audio_s: float = 0.0
    """Duration of the audio that was transcribed, seconds."""

    @property
    def no_speech_prob(self) -> float:
        """The highest no-speech probability over segments (1.0 when there are none)."""
        if not self.segments:
            return 1.0
        return max(s.no_speech_prob for s in self.segments)


class AsrEngine(Protocol):
    """Speech to text."""

    def transcribe(self, audio: Any, cancel: CancelToken | None = None,
                   context: str = "") -> Transcript:
        """Transcribe ``audio`` (float32 mono at 16 kHz, values in [-1, 1]).

        ``context`` is what was said just before ``audio`` (words already transcribed): it
        guides the recogniser and is not part of the result, which holds only what
        ``audio`` adds.

        Runs on: a worker thread. Checks ``cancel`` between segments and raises
        nothing on cancel: it returns what it had.
        """
        ...


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call the LLM asked for."""

    name: str
    arguments: Mapping[str, Any]
    call_id: str = ""


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One entry of the conversation sent to the LLM."""

    role: str
    """'system', 'user', 'assistant' or 'tool'."""
    content: str
    name: str | None = None
    """Tool name for role 'tool'."""
    interrupted: bool = False
    """True for an assistant reply the user cut off; content holds only what was heard."""
    tool_call: ToolCall | None = None
    """For an assistant message that called a tool: the call (content is then '')."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool the LLM may call: an OpenAI-style function description."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    """JSON schema of the arguments."""
    writes: bool = False
    """True for a tool that changes the world (needs confirmation; later issue)."""
    timeout_s: float | None = None
    """Seconds the turn waits for one run of this tool; None: the turn policy's
    ``tool_timeout_s``. Your own tools' servers set theirs (``[mcp.servers.NAME]
    timeout_s``, ``core.mcp.tools.turn_wait_s``)."""


@dataclass(frozen=True, slots=True)
class LlmDelta:
    """One streamed piece of an LLM reply: text, or a complete tool call, or a spoken unit."""

    text: str = ""
    tool_call: ToolCall | None = None
    unit: SpokenUnit | None = None
    """A grounded answer's spoken unit (``text`` is then its text): spoken as one chunk,
    admitted before synthesis and playback, its evidence shown and never read aloud."""


class LlmEngine(Protocol):
    """A local chat model that streams."""

    def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        cancel: CancelToken | None = None,
        tools: Sequence[ToolSpec] = (),
        max_tokens: int = 256,
    ) -> Iterator[LlmDelta]:
        """Stream the reply to ``messages``.

        Runs on: a worker thread. Stops yielding soon after ``cancel`` is set
        (prefill cannot be interrupted; late output is dropped by turn id).
        """
        ...


@dataclass(frozen=True, slots=True)
class WordTiming:
    """Where one word of a spoken chunk lies in that chunk's audio."""

    word: str
    start_sample: int
    end_sample: int
    """Exclusive end, in samples at the chunk's sample rate."""


@dataclass(frozen=True, slots=True)
class SpeechChunk:
    """Audio for one clause or sentence of speech."""

    text: str
    """The text that was spoken (after normalisation)."""
    audio: Any
    """int16 mono numpy array at ``sample_rate``."""
    sample_rate: int
    words: tuple[WordTiming, ...] = ()
    aligned: bool = False
    """True when ``words`` come from the voice's phoneme alignments, False for an estimate."""

    @property
    def n_samples(self) -> int:
        """Number of audio samples in the chunk."""
        return len(self.audio)


class TtsEngine(Protocol):
    """Text to speech."""

    @property
    def sample_rate(self) -> int:
        """The voice's native sample rate in Hz."""
        ...

    def synthesize(self, text: str, cancel: CancelToken | None = None) -> Iterator[SpeechChunk]:
        """Synthesise ``text`` sentence by sentence.

        Runs on: a worker thread. Checks ``cancel`` between sentences.
        """
        ...


class VadEngine(Protocol):
    """Streaming voice-activity detection on 16 kHz audio."""

    frame_samples: int
    """Samples per frame the engine expects (512 = 32 ms for Silero)."""

    def speech_probability(self, frame: Any) -> float:
        """Probability in [0, 1] that ``frame`` (float32, ``frame_samples`` long) is speech."""
        ...

    def reset(self) -> None:
        """Forget the recurrent state (start of a new stream)."""
        ...


class EchoCanceller(Protocol):
    """Removes the assistant's own voice from the microphone signal."""

    frame_samples: int
    """Samples per frame (160 = 10 ms at 16 kHz)."""

    def process(self, near: Any, far: Any) -> Any:
        """Return the echo-cancelled ``near`` frame (int16), given the ``far`` frame played."""
        ...


class Embedder(Protocol):
    """Text to sentence vectors, for meaning-based matching (tool examples, document passages).

    Each row is L2-normalised, so the dot product of two rows is their cosine similarity;
    ``core.embed.nearest`` ranks labelled examples by it. The vectors of one model are
    comparable with each other only: store the model id beside any vector you keep.
    """

    @property
    def model_id(self) -> str:
        """Which model made the vectors (its manifest id): vectors kept on disk carry it."""
        ...

    @property
    def dimensions(self) -> int:
        """Length of every vector (384 for all-MiniLM-L6-v2)."""
        ...

    def embed(self, texts: Sequence[str]) -> Any:
        """One unit-length vector per text: a float32 numpy array ``[len(texts), dimensions]``.

        An empty sequence gives shape ``[0, dimensions]``; an empty text still gets a vector
        (of the model's start and end tokens alone); a long text is cut to the model's
        window (the rest of it is not heard). Row ``i`` does not depend on the other texts of
        the call: a batch of one and a batch of many agree.

        Runs on: a worker thread (milliseconds a sentence on one core; never the GUI thread).
        Raises ``ModelError`` (code, message, fix) when the model is missing or corrupt.
        """
        ...
