"""Ending a hands-free turn with an audio end-of-turn model and the transcript rule.

The pure rule (``TurnModelRule``) and the segmenter's ``end_if_silent`` are driven by
chunk seconds; the capture pipeline by 32 ms VAD frames of a fake VAD, so every instant
below is exact: speech for ``SPEECH`` frames, then silence; the model is asked on the
7th silent frame (0.224 s, the first to reach ``probe_s`` = 0.2 s).
"""

from __future__ import annotations

import numpy as np
import pytest

from desktop_agent.audio.capture import CapturePipeline
from desktop_agent.audio.mic_history import VAD_FRAME
from desktop_agent.core.errors import SettingsError
from desktop_agent.core.listening.endpointing import Endpointer, TurnModelRule, TurnModelSettings
from desktop_agent.core.listening.segmenter import EndReason, SegmentEvent, SpeechSegmenter
from tests.fakes.vad import FakeDetector, ScriptedVad

SHORT, MEDIUM, LONG = 0.5, 0.9, 1.6  # the Endpointer's defaults


# --- the pure rule -------------------------------------------------------------------------


@pytest.mark.parametrize("probability,transcript_s,needed", [
    (0.9, SHORT, 0.2),    # both say finished: end now
    (0.9, 0.3, 0.2),      # a bare "yes" (min_s): end now
    (0.9, MEDIUM, MEDIUM),  # no hint from the words: the veto holds (strict default)
    (0.9, LONG, LONG),    # "... and": the transcript's long wait stands
    (0.2, SHORT, 1.0),    # the model hears more to come: wait longer than the short wait
    (0.2, MEDIUM, 1.0),
    (0.2, LONG, LONG),    # both say more to come
    (0.5, SHORT, 0.2),    # the threshold itself counts as finished
])
def test_rule_combines_the_verdict_with_the_transcript(probability: float, transcript_s: float,
                                                       needed: float) -> None:
    rule = TurnModelRule()
    assert rule.silence_needed_s(transcript_s) == transcript_s  # no verdict yet
    rule.record(probability)
    assert rule.silence_needed_s(transcript_s) == pytest.approx(needed)


def test_rule_probes_once_per_pause() -> None:
    rule = TurnModelRule(TurnModelSettings(probe_s=0.2))
    assert not rule.wants_probe(0.0) and not rule.wants_probe(0.19)
    assert rule.wants_probe(0.2) and rule.wants_probe(0.25)
    rule.record(0.7)
    assert rule.complete is True and not rule.wants_probe(0.3)
    rule.reset()
    assert rule.complete is None and rule.wants_probe(0.3)
    lenient = TurnModelRule(TurnModelSettings(veto_above_s=MEDIUM))
    lenient.record(0.9)
    assert lenient.silence_needed_s(MEDIUM) == pytest.approx(0.2)
    assert lenient.silence_needed_s(LONG) == LONG
    with pytest.raises(SettingsError):
        TurnModelSettings(threshold=1.5)


def test_transcript_veto_words_from_the_endpointer() -> None:
    # The veto is the Endpointer's answer: a trailing "and" asks for more than short_s.
    endpointer, rule = Endpointer(), TurnModelRule()
    rule.record(0.95)
    assert rule.silence_needed_s(endpointer.silence_needed_s("Book a table for two.")) == 0.2
    assert rule.silence_needed_s(endpointer.silence_needed_s("Book a table and")) == LONG


def test_segmenter_ends_between_chunks_at_the_exact_instant() -> None:
    seg = SpeechSegmenter()
    for _ in range(20):  # 1.0 s of speech
        seg.process(0.05, 0.9)
    assert seg.in_speech and seg.trailing_silence_s == 0.0
    assert seg.end_if_silent(0.0) is None  # no silence yet: nothing to end
    for _ in range(4):
        assert seg.process(0.05, 0.1, SHORT) is None
    assert seg.trailing_silence_s == pytest.approx(0.2)
    assert seg.end_if_silent(0.3) is None  # not enough silence yet
    assert seg.end_if_silent(0.2) is SegmentEvent.SPEECH_ENDED
    assert seg.speech_end_s == pytest.approx(1.0) and seg.position_s == pytest.approx(1.2)
    assert seg.end_reason is EndReason.SILENCE and not seg.in_speech
    assert seg.trailing_silence_s == 0.0


# --- the capture pipeline ------------------------------------------------------------------

SPEECH = 40  # frames of speech (1.28 s) before the pause
FRAME_S = VAD_FRAME / 16_000


def _speech(frames: int) -> np.ndarray:
    rng = np.random.default_rng(frames)
    return (0.1 * rng.standard_normal(frames * VAD_FRAME)).astype(np.float32)


def _silence(frames: int) -> np.ndarray:
    return np.zeros(frames * VAD_FRAME, np.float32)


def _end_frame(pipe: CapturePipeline, audio: np.ndarray,
               transcript: dict[int, float] | None = None) -> int | None:
    """Frame (1-based) whose processing reported SPEECH_ENDED; ``transcript`` sets
    ``silence_s`` before a given frame, as the recorder does when a partial arrives."""
    for i in range(len(audio) // VAD_FRAME):
        if transcript and i in transcript:
            pipe.silence_s = transcript[i]
        for event in pipe.process(audio[i * VAD_FRAME:(i + 1) * VAD_FRAME]):
            if event.kind is SegmentEvent.SPEECH_ENDED:
                assert event.speech_sample == SPEECH * VAD_FRAME  # where the silence began
                return i + 1
    return None


def _frames(seconds: float) -> int:
    """Silent frames until ``seconds`` of silence is reached (the segmenter's rounding)."""
    return int(np.ceil(seconds / FRAME_S - 1e-6))


@pytest.mark.parametrize("probability,transcript_s,wait_s", [
    (0.9, SHORT, 0.2),    # agree: ends on the probe's own frame (7 x 32 ms = 0.224 s)
    (0.9, LONG, LONG),    # "... and": vetoed
    (0.1, SHORT, 1.0),    # disagree: the longer wait
    (None, SHORT, SHORT),  # no model: the transcript rule alone, exactly as before
])
def test_pipeline_ends_the_turn_by_model_and_transcript(probability: float | None,
                                                        transcript_s: float,
                                                        wait_s: float) -> None:
    detector = None if probability is None else FakeDetector(probability)
    pipe = CapturePipeline(ScriptedVad(), turn_detector=detector)
    pipe.silence_s = transcript_s
    got = _end_frame(pipe, np.concatenate([_speech(SPEECH), _silence(80)]))
    assert got == SPEECH + _frames(max(wait_s, 0.2 if detector else 0.0))
    if detector is not None:
        # Asked once, on the 7th silent frame, with the utterance (+0.2 s pre-roll, here
        # clipped at the stream start) up to that frame.
        assert detector.heard == [(SPEECH + 7) * VAD_FRAME]


def test_a_late_partial_ends_the_turn_when_it_arrives() -> None:
    # No transcript yet at the probe (medium: veto); the partial "... two." arrives on
    # silent frame 12 and the finished-sounding verdict ends the turn on that frame.
    detector = FakeDetector(0.9)
    pipe = CapturePipeline(ScriptedVad(), turn_detector=detector)
    audio = np.concatenate([_speech(SPEECH), _silence(80)])
    assert _end_frame(pipe, audio, {SPEECH + 11: SHORT}) == SPEECH + 12
    assert len(detector.heard) == 1


def test_resumed_speech_is_asked_again_and_playback_is_left_alone() -> None:
    detector = FakeDetector(0.1)  # "more to come" at the first pause
    pipe = CapturePipeline(ScriptedVad(), turn_detector=detector)
    pipe.silence_s = SHORT
    audio = np.concatenate([_speech(SPEECH), _silence(20), _speech(10), _silence(40)])
    # The 0.64 s pause is shorter than the 1.0 s the disagreement asks for: one turn.
    end = _end_frame(pipe, audio[:(SPEECH + 20) * VAD_FRAME])
    assert end is None and len(detector.heard) == 1
    detector.p = 0.9
    for i in range(SPEECH + 20, len(audio) // VAD_FRAME):
        events = pipe.process(audio[i * VAD_FRAME:(i + 1) * VAD_FRAME])
        if events:
            assert events[0].kind is SegmentEvent.SPEECH_ENDED
            assert i + 1 == SPEECH + 20 + 10 + 7  # the second pause, at its probe
            break
    assert len(detector.heard) == 2

    playing = FakeDetector(0.9)
    pipe = CapturePipeline(ScriptedVad(), turn_detector=playing)
    pipe.set_playback(True)
    pipe.silence_s = SHORT
    assert _end_frame(pipe, np.concatenate([_speech(SPEECH), _silence(40)])) \
        == SPEECH + _frames(SHORT)
    assert playing.heard == []  # barge-in speech is the tracker's to judge

    off = FakeDetector(0.9)
    pipe = CapturePipeline(ScriptedVad(), turn_detector=off)
    pipe.turn_model_on = False  # push-to-talk: the release ends the turn
    pipe.silence_s = SHORT
    assert _end_frame(pipe, np.concatenate([_speech(SPEECH), _silence(40)])) \
        == SPEECH + _frames(SHORT)
    assert off.heard == []


def test_a_failing_model_leaves_the_transcript_rule_in_charge() -> None:
    class Broken:
        def probability(self, audio: np.ndarray) -> float:
            raise RuntimeError("onnxruntime: bad input")

    pipe = CapturePipeline(ScriptedVad(), turn_detector=Broken())
    pipe.silence_s = SHORT
    assert _end_frame(pipe, np.concatenate([_speech(SPEECH), _silence(40)])) \
        == SPEECH + _frames(SHORT)
    assert pipe.turn_detector is None
