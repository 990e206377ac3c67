"""Exact-instant tests for the chunk-driven VAD segmenter."""

from __future__ import annotations

import math
from typing import Any

import pytest

from desktop_agent.core.errors import SettingsError
from desktop_agent.core.listening import EndReason, SegmenterSettings, SegmentEvent, SpeechSegmenter

CHUNK_S = 0.05


def feed(
    seg: SpeechSegmenter,
    probs: list[float],
    chunk_s: float = CHUNK_S,
    silence_s: float | None = None,
) -> list[tuple[float, str]]:
    """Run chunks through ``seg``; return (stream time after the chunk, event) per event."""
    events: list[tuple[float, str]] = []
    for prob in probs:
        event = seg.process(chunk_s, prob, silence_s)
        if event is not None:
            events.append((round(seg.position_s, 6), str(event)))
    return events


def test_speech_is_confirmed_after_min_speech_s() -> None:
    seg = SpeechSegmenter()
    assert feed(seg, [0.9] * 4) == []
    assert not seg.in_speech
    assert feed(seg, [0.9]) == [(0.25, "speech_started")]
    assert seg.in_speech
    assert seg.speech_start_s == 0.0


def test_start_instant_is_where_speech_began() -> None:
    seg = SpeechSegmenter()
    events = feed(seg, [0.1, 0.1, 0.9, 0.9, 0.9, 0.9, 0.9])
    assert events == [(0.35, "speech_started")]
    assert seg.speech_start_s == pytest.approx(0.10)
    assert seg.speech_s == pytest.approx(0.25)


def test_threshold_is_inclusive() -> None:
    assert feed(SpeechSegmenter(), [0.49] * 20) == []
    assert feed(SpeechSegmenter(), [0.5] * 5) == [(0.25, "speech_started")]


def test_odd_chunk_sizes_accumulate_exactly() -> None:
    seg = SpeechSegmenter()
    events = feed(seg, [0.9] * 8, chunk_s=0.032)  # 512 samples at 16 kHz
    assert events == [(0.256, "speech_started")]  # 7 chunks are 0.224 s: not enough


def test_short_gap_during_onset_keeps_accumulating() -> None:
    seg = SpeechSegmenter()
    # 0.15 s speech, 0.10 s gap (< onset_reset_s 0.2), 0.10 s speech -> 0.25 s of speech
    events = feed(seg, [0.9, 0.9, 0.9, 0.0, 0.0, 0.9, 0.9])
    assert events == [(0.35, "speech_started")]
    assert seg.speech_start_s == 0.0


def test_long_gap_during_onset_resets_it() -> None:
    seg = SpeechSegmenter()
    # 0.15 s speech, 0.20 s gap resets, then 0.25 s of new speech starting at 0.35
    events = feed(seg, [0.9, 0.9, 0.9, 0.0, 0.0, 0.0, 0.0, 0.9, 0.9, 0.9, 0.9, 0.9])
    assert events == [(0.6, "speech_started")]
    assert seg.speech_start_s == pytest.approx(0.35)


def test_speech_ends_after_default_silence_with_hysteresis() -> None:
    seg = SpeechSegmenter()
    feed(seg, [0.9] * 5)  # started at 0.25
    # 0.4 is below threshold but above neg_threshold: still speech, resets nothing
    assert feed(seg, [0.4] * 30) == []
    assert seg.in_speech
    events = feed(seg, [0.2] * 18)  # 0.9 s of silence
    assert events == [(round(0.25 + 1.5 + 0.9, 6), "speech_ended")]
    assert seg.speech_end_s == pytest.approx(1.75)
    assert seg.end_reason is EndReason.SILENCE
    assert not seg.in_speech


def test_silence_just_short_of_the_limit_does_not_end() -> None:
    seg = SpeechSegmenter()
    feed(seg, [0.9] * 5)
    assert feed(seg, [0.0] * 17 + [0.9]) == []  # 0.85 s of silence, then speech again
    assert feed(seg, [0.0] * 18) == [(round(0.25 + 0.9 + 0.9, 6), "speech_ended")]
    assert seg.speech_end_s == pytest.approx(1.15)


def test_silence_needed_can_be_given_per_call() -> None:
    seg = SpeechSegmenter()
    feed(seg, [0.9] * 5)
    assert feed(seg, [0.0] * 10, silence_s=0.5) == [(0.75, "speech_ended")]


def test_shorter_silence_mid_gap_ends_on_the_next_chunk() -> None:
    seg = SpeechSegmenter()
    feed(seg, [0.9] * 5)
    assert feed(seg, [0.0] * 12, silence_s=1.6) == []  # 0.6 s into a long wait
    # the endpointer now says 0.5 s is enough: the gap already exceeds it
    assert feed(seg, [0.0], silence_s=0.5) == [(0.9, "speech_ended")]
    assert seg.speech_end_s == pytest.approx(0.25)


def test_max_utterance_length_ends_speech() -> None:
    seg = SpeechSegmenter(SegmenterSettings(max_speech_s=1.0))
    events = feed(seg, [0.9] * 39)
    assert events == [(0.25, "speech_started"), (1.0, "speech_ended"), (1.25, "speech_started")]
    assert seg.end_reason is None  # the second utterance is under way
    seg2 = SpeechSegmenter(SegmenterSettings(max_speech_s=1.0))
    feed(seg2, [0.9] * 20)
    assert seg2.end_reason is EndReason.MAX_LENGTH
    assert seg2.speech_end_s == pytest.approx(1.0)


def test_a_new_utterance_can_start_after_the_end() -> None:
    seg = SpeechSegmenter()
    events = feed(seg, [0.9] * 5 + [0.0] * 18 + [0.0] * 4 + [0.9] * 5)
    assert events == [(0.25, "speech_started"), (1.15, "speech_ended"), (1.6, "speech_started")]
    assert seg.speech_start_s == pytest.approx(1.35)
    assert seg.speech_end_s is None


def test_events_are_str_enums() -> None:
    seg = SpeechSegmenter()
    event = None
    for _ in range(5):
        event = seg.process(CHUNK_S, 1.0)
    assert event is SegmentEvent.SPEECH_STARTED
    as_str: str = SegmentEvent.SPEECH_STARTED
    assert as_str == "speech_started"  # callers may compare with plain strings


def test_zero_chunk_is_a_no_op_and_bad_input_is_handled() -> None:
    seg = SpeechSegmenter()
    assert seg.process(0.0, 1.0) is None
    assert seg.position_s == 0.0
    assert feed(seg, [math.nan] * 10) == []  # NaN is silence
    with pytest.raises(ValueError):
        seg.process(-0.01, 0.9)
    with pytest.raises(ValueError):
        seg.process(math.inf, 0.9)


def test_reset_restarts_stream_time() -> None:
    seg = SpeechSegmenter()
    feed(seg, [0.9] * 6)
    seg.reset()
    assert (seg.position_s, seg.in_speech, seg.speech_start_s, seg.speech_s) == (
        0.0,
        False,
        None,
        0.0,
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"threshold": 0.3, "neg_threshold": 0.4},
        {"threshold": 1.5},
        {"min_speech_s": -0.1},
        {"max_speech_s": 0.2},
    ],
)
def test_invalid_settings_raise(kwargs: dict[str, Any]) -> None:
    with pytest.raises(SettingsError) as info:
        SegmenterSettings(**kwargs)
    assert info.value.code == "segmenter_settings"
