"""BargeInJudge: the pure rules the tracker and the benchmark share (no Qt, no models)."""

from __future__ import annotations

from desktop_agent.core.listening.bargein import BargeInDecider, Decision
from desktop_agent.core.listening.bargein_judge import (
    LOST_JOB_S,
    SILENCE_ENDED_S,
    WORDLESS_INTERRUPT_S,
    BargeInJudge,
)

RATE = 1000  # one sample a millisecond keeps the arithmetic readable


class History:
    """Speech frames are the indices in ``speech``; the mic has reached ``end``."""

    def __init__(self) -> None:
        self.start = 0
        self.end = 0
        self.speech: list[int] = []

    def talk(self, ms: int, speech: bool = True) -> None:
        for _ in range(ms // 10):
            self.end += 10
            if speech:
                self.speech.append(self.end)

    def last_speech_between(self, start: int, stop: int) -> int | None:
        inside = [i for i in self.speech if start < i <= stop]
        return inside[-1] if inside else None


def _judge(reply: str = "") -> tuple[BargeInJudge, History]:
    history = History()
    history.talk(1000, speech=False)
    return BargeInJudge(BargeInDecider(), history, RATE, history.end, lambda: reply), history


def test_asks_for_a_transcript_once_there_is_enough_speech_and_interrupts_on_a_stop_word() -> None:
    judge, history = _judge()
    history.talk(200)
    first = judge.step(1.2, asr_idle=True)
    assert first.request is None and first.verdict is None  # 0.2 s: too little to transcribe
    history.talk(150)
    second = judge.step(1.35, asr_idle=True)
    assert second.request is not None and judge.pending
    assert second.request.start == 1000 - 100  # with the pre-roll
    judge.answer("Wait,")
    assert judge.step(1.5, asr_idle=True).verdict.reason == "stop_word"  # type: ignore[union-attr]


def test_wordless_speech_waits_then_resumes_when_the_asr_heard_nothing() -> None:
    judge, history = _judge()
    history.talk(900)
    out = judge.step(1.9, asr_idle=True)
    assert out.verdict is None and out.request is not None  # VAD says 0.9 s: ask the ASR
    history.talk(100)
    assert judge.step(2.0, asr_idle=False).verdict is None  # still transcribing
    # The ASR went idle without an answer (its hallucination filter dropped the job).
    verdict = judge.step(2.0 + LOST_JOB_S + 0.01, asr_idle=True).verdict
    assert verdict is not None and (verdict.decision, verdict.reason) == (Decision.RESUME,
                                                                         "no_words")


def test_wordless_speech_interrupts_once_long_enough() -> None:
    judge, history = _judge()
    history.talk(int(WORDLESS_INTERRUPT_S * 1000) + 50)
    verdict = judge.step(4.0, asr_idle=False).verdict  # the ASR is busy elsewhere
    assert verdict is not None and verdict.reason == "long_speech"


def test_the_assistants_own_words_are_echo_and_a_verdict_is_final() -> None:
    judge, history = _judge("The moon is covered in craters and dust.")
    history.talk(400)
    assert judge.step(1.4, asr_idle=True).request is not None
    judge.answer("Covered in dust.")
    verdict = judge.step(1.5, asr_idle=True).verdict
    assert verdict is not None and verdict.reason == "echo_words"
    history.talk(3000)
    assert judge.step(5.0, asr_idle=True).verdict is verdict


def test_ended_speech_is_judged_only_once_its_end_is_transcribed() -> None:
    judge, history = _judge()
    history.talk(300)
    judge.step(1.3, asr_idle=True)  # first request covers 0.3 s
    judge.answer("")
    history.talk(60)
    judge.speech_ended(history.end, 1.36)
    out = judge.step(1.36, asr_idle=True)
    assert out.verdict is None and out.request is not None  # the last 60 ms must be heard
    judge.answer("No.")
    verdict = judge.step(1.5, asr_idle=True).verdict
    assert verdict is not None and (verdict.decision, verdict.reason) == (Decision.INTERRUPT,
                                                                         "words")


def test_one_wordless_half_second_is_not_enough_to_resume() -> None:
    judge, history = _judge()
    history.talk(600)
    assert judge.step(1.6, asr_idle=True).request is not None  # 0.6 s: ask the ASR
    judge.answer("")  # the first word, under the reply's echo, came back empty
    history.talk(100)
    assert judge.step(1.7, asr_idle=True).verdict is None  # not yet: 0.8 s of speech needed


def test_function_words_alone_are_heard_as_no_words() -> None:
    # Whisper made "for the" of the residual echo of "...away from the Earth": that
    # interrupted the reply; it is judged like speech without words now.
    judge, history = _judge("It is about three hundred thousand kilometres away from the Earth.")
    history.talk(400)
    assert judge.step(1.4, asr_idle=True).request is not None
    judge.answer("for the")
    history.talk(300)
    assert judge.step(1.7, asr_idle=False).verdict is None  # 0.7 s of it: not an interruption
    history.talk(int(WORDLESS_INTERRUPT_S * 1000))
    verdict = judge.step(4.0, asr_idle=False).verdict
    assert verdict is not None and verdict.reason == "long_speech"  # long speech still is


def test_a_lone_short_word_from_ended_speech_resumes_and_a_longer_one_interrupts() -> None:
    # CI's red run: after "okay" resumed the reply, 0.26 s of residual echo came back from
    # Whisper as "Perhaps." (not in the reply) and cut the reply off.
    judge, history = _judge("The Atlantic is the second largest ocean on Earth.")
    history.talk(260)
    judge.speech_ended(history.end, 1.26)
    assert judge.step(1.26, asr_idle=True).request is not None  # ended: hear all of it
    judge.answer("Perhaps.")
    verdict = judge.step(1.6, asr_idle=True).verdict
    assert verdict is not None and (verdict.decision, verdict.reason) == (Decision.RESUME,
                                                                         "lone_word")
    # A person who goes on after one word is heard out, then interrupts.
    judge, history = _judge("The Atlantic is the second largest ocean on Earth.")
    history.talk(300)
    assert judge.step(1.3, asr_idle=True).request is not None
    judge.answer("Actually")  # a short interrupter: at once
    verdict = judge.step(1.45, asr_idle=True).verdict
    assert verdict is not None and verdict.reason == "words"
    judge, history = _judge()
    history.talk(300)
    judge.step(1.3, asr_idle=True)
    judge.answer("Tomorrow")
    assert judge.step(1.35, asr_idle=True).verdict is None  # one short word: wait
    history.talk(150)
    verdict = judge.step(1.5, asr_idle=True).verdict
    assert verdict is not None and verdict.reason == "words"  # 0.45 s: a word


def test_speech_whose_end_was_never_reported_ends_after_silence_and_the_reply_resumes() -> None:
    """A backchannel, or speech the ASR found no words in: the decider waits for the speech
    to end. When no end reaches the judge (the segmenter was inside the speech when it was
    reset, or reported the end elsewhere), the silence in the history ends it: before, the
    reply stayed paused (120 s in a CI run, until the test gave up)."""
    for heard, reason in (("Okay.", "backchannel"), ("", "too_short")):
        judge, history = _judge("The moon is covered in craters.")
        history.talk(400)
        assert judge.step(1.4, asr_idle=True).request is not None
        judge.answer(heard)
        now, verdict = 1.4, None
        while verdict is None and now < 10.0:
            history.talk(100, speech=False)
            now += 0.1
            verdict = judge.step(now, asr_idle=True).verdict
        assert verdict is not None, f"still waiting after {now - 1.4:.1f} s of silence"
        assert (verdict.decision, verdict.reason) == (Decision.RESUME, reason)
        # Not before the endpointer's own longest pause (2 s) could have ended it.
        assert now - 1.4 >= SILENCE_ENDED_S - 0.05, now
