"""The pieces the headless executor shares with the app's workers: the guard rule for a run
after a tool (core/tools/answer.py) and one chunk per Synthesize (audio/speech_chunk.py)."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_agent.audio.speech_chunk import join_pieces, speak_text
from desktop_agent.core.ports import ChatMessage, LlmDelta, SpeechChunk, WordTiming
from desktop_agent.core.tools.answer import guard_llm_run, tool_context
from tests.fakes.tts import SAMPLES_PER_CHAR, FakeTts, piece

SENTENCE = "It is 08:02 on Monday."
AFTER_TOOL = (ChatMessage("system", "You help."), ChatMessage("user", "What time is it?"),
              ChatMessage("assistant", ""), ChatMessage("tool", SENTENCE, name="get_current_time"))


def _text(deltas: object) -> str:
    return "".join(d.text for d in deltas)  # type: ignore[attr-defined]


def test_tool_context_only_after_a_tool_result() -> None:
    assert tool_context(AFTER_TOOL) == ("What time is it?", SENTENCE)
    assert tool_context(AFTER_TOOL[:2]) is None
    assert tool_context(()) is None
    assert tool_context((ChatMessage("tool", "x"),)) == ("", "x")


def test_a_run_after_a_tool_is_guarded_and_others_stream_through() -> None:
    junk = iter([LlmDelta(text='{"time": "08:02", "weekday": "Monday"}')])
    assert _text(guard_llm_run(AFTER_TOOL, junk)) == SENTENCE
    same = iter([LlmDelta(text='{"a": 1}')])
    assert _text(guard_llm_run(AFTER_TOOL[:2], same)) == '{"a": 1}'


def test_join_pieces_shifts_word_timings_by_the_samples_before() -> None:
    a, b = piece("One two."), piece("Three.")
    joined = join_pieces([a, b])
    assert joined is not None
    assert joined.text == "One two. Three."
    assert joined.n_samples == a.n_samples + b.n_samples
    assert joined.aligned and joined.sample_rate == a.sample_rate
    assert joined.words[-1] == WordTiming("Three.", a.n_samples,
                                          a.n_samples + 6 * SAMPLES_PER_CHAR)
    assert joined.words[:2] == a.words
    assert np.array_equal(joined.audio[: a.n_samples], a.audio)


def test_join_pieces_edge_cases() -> None:
    assert join_pieces([]) is None
    estimated = SpeechChunk("x", np.zeros(10, dtype=np.int16), 16_000, aligned=False)
    joined = join_pieces([piece("y"), estimated])
    assert joined is not None and not joined.aligned
    with pytest.raises(ValueError, match="sample rates"):
        join_pieces([piece("y"), SpeechChunk("z", np.zeros(4, dtype=np.int16), 22_050)])


def test_speak_text_normalises_and_makes_one_chunk() -> None:
    tts = FakeTts()
    chunk = speak_text(tts, "**Call** me at 9:00. Thanks!")
    assert tts.texts == ["Call me at nine o'clock. Thanks!"]
    assert chunk is not None and chunk.text == "Call me at nine o'clock. Thanks!"
    assert speak_text(tts, "  **  ") is None and len(tts.texts) == 1
