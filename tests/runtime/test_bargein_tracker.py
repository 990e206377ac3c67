"""BargeInTracker on a fake clock, a real MicHistory and a fake ASR worker (no models)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from desktop_agent.audio.mic_history import VAD_FRAME, MicHistory
from desktop_agent.core.cancel import TurnId
from desktop_agent.core.listening.bargein import BargeInDecider
from desktop_agent.core.turns import events as ev
from desktop_agent.runtime.bargein_tracker import (
    TRANSCRIPT_GRACE_S,
    WORDLESS_INTERRUPT_S,
    BargeInTracker,
)

RATE = 16_000
TURN = TurnId(3)


class Rig:
    """Mic audio is appended in VAD frames; every frame is speech or silence."""

    def __init__(self) -> None:
        self.now = 100.0
        self.history = MicHistory(10.0)
        self.fed: list[Any] = []
        self.jobs: list[Any] = []
        self.busy = False
        self.tracker = BargeInTracker(BargeInDecider(), self.history, RATE, feed=self.fed.append,
                                      submit_asr=self.jobs.append, asr_busy=lambda: self.busy,
                                      time_of=lambda i: i / RATE, clock=lambda: self.now)

    def audio(self, seconds: float, speech: bool) -> None:
        for _ in range(int(round(seconds * RATE / VAD_FRAME))):
            self.history.append(np.zeros(VAD_FRAME, np.float32))
            self.history.set_prob(self.history.end, 0.9 if speech else 0.05)
            self.now += VAD_FRAME / RATE
        self.tracker._on_timer_timeout()

    def answer(self, text: str) -> bool:
        job = self.jobs[-1]
        return self.tracker.take_partial(ev.AsrPartial(
            turn_id=TURN, at_s=self.now, job=job.job, text=text, stable=False,
            trailing_silence_s=0.0))

    def decided(self) -> list[bool]:
        return [e.real for e in self.fed if isinstance(e, ev.BargeInDecided)]


@pytest.fixture()
def rig(qtbot: Any) -> Rig:
    r = Rig()
    r.audio(1.0, speech=False)
    return r


def test_stop_word_interrupts_before_the_speech_is_long(rig: Rig) -> None:
    onset = rig.history.end
    rig.audio(0.26, speech=True)
    rig.tracker.start(TURN, onset)
    assert rig.jobs == [] and rig.decided() == []
    rig.audio(0.07, speech=True)  # 0.33 s: enough for a first transcription
    assert len(rig.jobs) == 1 and int(rig.jobs[0].job) < 0 and rig.jobs[0].partial
    assert rig.answer("Wait,")
    assert rig.decided() == [True]
    assert rig.tracker.verdicts[-1].reason == "stop_word" and not rig.tracker.active
    transcript, speech_s = rig.tracker.heard[-1]  # what a failed e2e test prints beside it
    assert transcript == "Wait," and speech_s == pytest.approx(0.33, abs=0.04)


def test_backchannel_resumes_once_its_end_is_transcribed(rig: Rig) -> None:
    onset = rig.history.end
    rig.audio(0.35, speech=True)
    rig.tracker.start(TURN, onset)
    rig.audio(0.1, speech=False)
    rig.answer("Mm-hmm.")
    assert rig.decided() == []  # heard a backchannel, but the speech has not ended
    rig.tracker.speech_ended(onset + int(0.35 * RATE))
    assert rig.decided() == [False]
    assert rig.tracker.verdicts[-1].reason == "backchannel"


def test_short_speech_waits_for_its_transcript_then_interrupts_on_a_word(rig: Rig) -> None:
    onset = rig.history.end
    rig.audio(0.29, speech=True)
    rig.tracker.start(TURN, onset)
    rig.tracker.speech_ended(onset + int(0.29 * RATE))
    assert len(rig.jobs) == 1 and rig.decided() == []  # ended, but the ASR may hear words
    rig.busy = True
    rig.audio(0.2, speech=False)
    assert rig.decided() == []
    rig.answer("No.")
    assert rig.decided() == [True]
    # The segmenter will not report this end again: the machine hears it after the verdict.
    assert isinstance(rig.fed[-1], ev.SpeechEnded)


def test_dropped_transcript_decides_on_duration(rig: Rig) -> None:
    onset = rig.history.end
    rig.audio(0.3, speech=True)
    rig.tracker.start(TURN, onset)
    rig.tracker.speech_ended(onset + int(0.3 * RATE))
    assert len(rig.jobs) == 1
    rig.audio(0.2, speech=False)  # the worker went idle without an answer (hallucination)
    assert rig.decided() == [False] and rig.tracker.verdicts[-1].reason == "too_short"


def test_wordless_speech_interrupts_only_when_long(rig: Rig) -> None:
    # VAD-only speech is what residual echo looks like: without a transcribed word it
    # interrupts only after WORDLESS_INTERRUPT_S.
    onset = rig.history.end
    rig.busy = True  # the ASR is busy with something else: no transcript at all
    rig.audio(0.3, speech=True)
    rig.tracker.start(TURN, onset)
    rig.audio(0.35, speech=True)
    assert rig.decided() == []  # 0.65 s: long enough by duration, but no words yet
    rig.audio(WORDLESS_INTERRUPT_S - 0.65 + 0.05, speech=True)
    assert rig.decided() == [True] and rig.tracker.verdicts[-1].reason == "long_speech"
    assert rig.jobs == []


def test_speech_the_asr_heard_no_words_in_resumes(rig: Rig) -> None:
    onset = rig.history.end
    rig.audio(0.9, speech=True)
    rig.tracker.start(TURN, onset)
    assert len(rig.jobs) == 1  # 0.9 s of it is being transcribed
    # The worker goes idle without answering: it found no words (hallucination filter or
    # no speech), and the job counts as lost after a moment.
    rig.audio(0.2, speech=True)
    assert rig.decided() == [False] and rig.tracker.verdicts[-1].reason == "no_words"


def test_gives_up_waiting_for_a_transcript(rig: Rig) -> None:
    onset = rig.history.end
    rig.audio(0.35, speech=True)
    rig.tracker.start(TURN, onset)
    assert len(rig.jobs) == 1
    rig.busy = True  # the job runs slowly and does not answer in time
    rig.tracker.speech_ended(onset + int(0.35 * RATE))
    rig.audio(TRANSCRIPT_GRACE_S - 0.1, speech=False)
    assert rig.decided() == []
    rig.audio(0.15, speech=False)
    assert rig.decided() == [False]
    assert rig.answer("Wait.")  # a late answer is still ours, and changes nothing
    assert rig.decided() == [False]


def test_unknown_partials_pass_through(rig: Rig) -> None:
    event = ev.AsrPartial(turn_id=TURN, at_s=0.0, job=7, text="hi", stable=False,  # type: ignore[arg-type]
                          trailing_silence_s=0.0)
    assert not rig.tracker.take_partial(event)


def test_the_assistants_own_words_heard_back_resume(rig: Rig) -> None:
    rig.tracker._reply_text = lambda: "The moon is covered in craters and dust."
    onset = rig.history.end
    rig.audio(0.4, speech=True)
    rig.tracker.start(TURN, onset)
    assert rig.answer("This is covered.")  # residual echo, transcribed
    assert rig.decided() == [False] and rig.tracker.verdicts[-1].reason == "echo_words"
