"""States and transition records of the turn-taking machine."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NewType

from desktop_agent.core.cancel import TurnId

JobId = NewType("JobId", int)
"""Id of one job the machine started (a recording, an ASR, LLM, tool or TTS job, a playback
stream, a timer). Unique for the machine's lifetime. Events produced by a job echo its id,
so output of a cancelled job is dropped even when the turn id is still current."""


class State(enum.Enum):
    """The seven states of the turn-taking machine."""

    LISTENING = "listening"
    USER_SPEAKING = "user_speaking"
    PROCESSING = "processing"
    WAITING_FOR_TOOL = "waiting_for_tool"
    ASSISTANT_SPEAKING = "assistant_speaking"
    INTERRUPTED = "interrupted"
    ERROR = "error"

    @property
    def label(self) -> str:
        """Human label, e.g. 'Assistant speaking'."""
        return self.value.replace("_", " ").capitalize()


class Stage(enum.Enum):
    """A pipeline stage that can fail or time out (names the ``StageFailed``/timer stage)."""

    RECORDING = "recording"
    ASR = "asr"
    LLM = "llm"
    TOOL = "tool"
    TTS = "tts"
    PLAYBACK = "playback"
    APOLOGY = "apology"


class ToolMode(enum.Enum):
    """What a ``RunTool`` job does with its call (the write path has three steps)."""

    RUN = "run"
    """Run a read tool; the result is spoken."""
    PREPARE = "prepare"
    """Validate a write call and build its read-back; nothing changes yet."""
    REVISE = "revise"
    """Apply the user's change ("make it 6 pm") to the pending action; nothing changes yet."""
    EXECUTE = "execute"
    """Execute the confirmed, stored action once (by its idempotency key)."""


@dataclass(frozen=True, slots=True)
class Transition:
    """One edge the machine took. The GUI draws these, the log prints them, tests snapshot them."""

    turn_id: TurnId
    source: State
    target: State
    cause: str
    """Short machine-readable reason, e.g. 'ptt_released', 'barge_in', 'llm_failed'."""
    at_s: float
    """Clock time of the event that caused it, seconds."""
    cancels: tuple[str, ...] = ()
    """What this transition cancels, e.g. ('llm', 'tts', 'playback')."""
