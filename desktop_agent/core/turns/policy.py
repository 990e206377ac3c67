"""The turn machine's settings and its table of declared transitions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from desktop_agent.core.turns.states import State

DEFAULT_APOLOGY: Final = "Sorry, I lost that. Could you say it again?"


PAUSE_GAIN_DB = -60.0
"""A duck this deep is a pause."""


@dataclass(frozen=True, slots=True)
class TurnPolicy:
    """Per-stage timeouts and turn-taking knobs. Frozen: build a new one to change it."""

    asr_timeout_s: float = 10.0
    """Seconds from Transcribe to AsrFinal before the turn fails."""
    llm_first_token_timeout_s: float = 20.0
    """Seconds from StartLlm to the first token (or tool call) before the turn fails."""
    tool_timeout_s: float = 10.0
    """Seconds from RunTool to ToolResult before the turn fails."""
    tts_timeout_s: float = 10.0
    """Seconds without a TtsChunkReady while synthesis is outstanding before the turn fails."""
    flush_timeout_s: float = 1.0
    """Seconds to wait for PlaybackStopped after a barge-in; then the last progress counts."""
    apology_timeout_s: float = 10.0
    """Seconds to wait for ApologyFinished before LISTENING anyway."""
    fade_ms: float = 30.0
    """Fade-out applied when playback is flushed, milliseconds."""
    duck_gain_db: float = -120.0
    """Gain while a hands-free onset during playback is judged, dB. At or below
    ``PAUSE_GAIN_DB`` (the default) the reply pauses and holds its place: nothing the
    user did not hear is lost, and the echo stops while the barge-in is judged."""
    partials: bool = True
    """Ask recordings for AsrPartial events (needed for the speculative start)."""
    speculative_start: bool = True
    """Start the LLM on a stable partial transcript before the final one."""
    speculative_min_silence_s: float = 0.3
    """Trailing silence after a stable partial before it is trusted, seconds."""
    max_tool_calls: int = 4
    """Tool calls allowed in one turn; one more fails the turn ('too_many_tool_calls')."""
    apology_text: str = DEFAULT_APOLOGY
    """What the assistant says when a turn fails."""
    filler_after_s: float = 0.7
    """Seconds the LLM's first output or a tool may take before a short acknowledgement
    (``filler_text``) plays; 0 turns it off. Once per turn; a barge-in cuts it like any
    reply audio; it is not recorded in the history."""
    filler_text: str = "One moment."
    confirm_expiry_s: float = 30.0
    """Seconds a read-back stays answerable; a later "yes" does nothing (and says so)."""
    unit_max_age_s: float = 30.0
    """A grounded answer's unit not yet queued this long after it arrived is dropped (expired)."""
    reflection: str = "off"
    """Verdict-gated speech: 'off', 'on' (every reply) or 'checkable' (replies to questions a
    literal check understands: arithmetic, counts, units, dates, word constraints). The
    app's setting (interaction.reflection) defaults to 'checkable'."""
    max_reflections: int = 3
    """Reflections in one reply; the last one's continuation ends the reply."""
    opening_min_words: int = 4
    """The opening ends with the first sentence of at least this many words (or the second
    sentence, or the run's end)."""
    speak_tool_results: bool = True
    """Speak a read tool's own sentence instead of running the LLM again on it (faster,
    and a small model cannot garble it). A failed call still goes back to the model."""


_L, _U, _P = State.LISTENING, State.USER_SPEAKING, State.PROCESSING
_W, _A, _I, _E = State.WAITING_FOR_TOOL, State.ASSISTANT_SPEAKING, State.INTERRUPTED, State.ERROR

DECLARED_TRANSITIONS: Final[frozenset[tuple[State, State]]] = frozenset(
    {
        (_L, _U),  # ptt_pressed, speech_started
        (_U, _P),  # ptt_released, speech_ended
        (_L, _P),  # action_pressed (the card's Cancel, or nothing pending)
        (_L, _W),  # action_pressed (the card's Confirm: the stored action executes)
        (_P, _L),  # no_speech, empty_reply
        (_P, _U),  # speech_resumed (false endpoint: the segments merge)
        (_P, _W),  # tool_call
        (_P, _A),  # playback_started
        (_W, _P),  # tool_result
        (_W, _U),  # speech_resumed
        (_W, _A),  # playback_started (text spoken before the tool call)
        (_A, _I),  # barge_in_ptt, barge_in_voice
        (_A, _L),  # reply_done
        (_A, _P),  # action_pressed (Cancel over the read-back)
        (_A, _W),  # action_pressed (Confirm over the read-back)
        (_I, _U),  # floor_to_user
        (_I, _P),  # speech_ended (the barge-in utterance ended during the fade)
        (_I, _L),  # ptt_tap (released before the playback stopped)
        (_E, _L),  # apology_done, apology_timeout
        (_E, _U),  # ptt_pressed (cuts the apology)
    }
    | {(s, _E) for s in State if s not in (_L, _E)}  # <stage>_failed, <stage>_timeout
    | {(s, _L) for s in State if s is not _L}  # reset
)
"""Every (source, target) edge the machine may take; anything else is a bug."""
