"""One onset during playback, judged from the evidence as it arrives: pure, clock-free.

The runtime's ``BargeInTracker`` (Qt timer, ASR worker) and the barge-in benchmark (a
simulated clock, Whisper run inline) both drive this class, so the benchmark measures the
very rules the app runs. The judge gathers facts about one onset (how much speech, whether
it ended, what the ASR heard of it), asks :class:`BargeInDecider` on every fact, and adds
the rules that need the runtime's view:

* speech the VAD heard but the ASR turned into no words (or function words alone, "for
  the") is what residual echo looks like:
  it interrupts only after ``wordless_interrupt_s`` and resumes once the ASR heard no
  words in 0.8 s of it (``no_words``);
* a transcript made only of the assistant's own words is its echo (``echo_words``), also
  one short word the decider would still wait on;
* "ended" counts only once a transcript covers all of the speech, or it is too late to
  wait for one: a short "no" must not resume the reply before the ASR heard it.

Positions are absolute mic sample indices; ``now`` is any monotonic seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

from desktop_agent.core.listening.bargein import (
    BargeInDecider,
    Decision,
    Verdict,
    echoes_reply,
    has_content,
)

MIN_ASR_SPEECH_S: Final = 0.3
"""Speech, seconds, the ASR is given before (and between) transcriptions."""
TRANSCRIPT_GRACE_S: Final = 0.7
"""After the speech ended, how long to wait for a transcript of all of it, seconds."""
WORDLESS_INTERRUPT_S: Final = 2.0
"""Speech without any transcribed word interrupts only after this long, seconds."""
NO_WORDS_S: Final = 0.8
"""Speech, seconds, the ASR must have found no words in before that resumes the reply.
At 0.5 s the first transcript of a real "Wait, stop, ..." (its first word, under the
reply's echo) sometimes came back empty and the reply resumed over the user; by 0.8 s a
second transcript covers the second word. Echo residue pays 0.3 s more of pause."""
PREROLL_S: Final = 0.1
"""Audio before the onset handed to the ASR (the first phoneme often starts early)."""
POSTROLL_S: Final = 0.1
"""Audio after the newest speech frame handed to the ASR (the last phoneme fades)."""
LOST_JOB_S: Final = 0.15
"""A job not answered this long after the ASR went idle was dropped (no speech)."""
SILENCE_ENDED_S: Final = 2.5
"""Silence in the mic history, seconds, after which the judge counts the speech as ended
even though no end was reported to it (longer than the endpointer's longest default pause,
2 s, so the segmenter's end comes first). Without it a backchannel ("okay") or wordless
speech whose end never reached the judge kept the reply paused for good: the decider
waits on those until the speech ends."""


class SpeechHistory(Protocol):
    """What the judge reads of the mic history (``audio.mic_history.MicHistory``)."""

    @property
    def start(self) -> int: ...  # noqa: D102

    @property
    def end(self) -> int: ...  # noqa: D102

    def last_speech_between(self, start: int, stop: int) -> int | None: ...  # noqa: D102


@dataclass(frozen=True, slots=True)
class TranscribeRequest:
    """Transcribe mic samples [start, stop): the judge waits for ``answer``."""

    start: int
    stop: int
    previous: str
    """The transcript so far (a prompt for the ASR)."""


@dataclass(frozen=True, slots=True)
class Judgement:
    """What one step concluded."""

    verdict: Verdict | None = None
    """Set once decided (the judge is then done)."""
    request: TranscribeRequest | None = None
    """A transcription to start now."""
    speech_s: float = 0.0


class BargeInJudge:
    """Judges one onset. Call ``step`` on every fact and every ~100 ms."""

    def __init__(self, decider: BargeInDecider, history: SpeechHistory, rate: int,
                 onset: int, reply_text: Callable[[], str] = lambda: "") -> None:
        """Start judging one onset.

        Args:
            decider: The pure policy.
            history: The mic history with per-frame VAD decisions.
            rate: Mic sample rate, Hz.
            onset: Absolute mic index where the speech began.
            reply_text: The reply being spoken (its words heard back are echo).
        """
        self.decider = decider
        self.history = history
        self.rate = rate
        self.onset = onset
        self._reply_text = reply_text
        self.ended_at: int | None = None
        """Absolute mic index where the speech stopped (None: still speaking)."""
        self.ended_now: float | None = None
        self.transcript = ""
        self.transcript_end = 0
        """Mic index where the audio of ``transcript`` ended (0: no transcript yet)."""
        self.asked_end = 0
        """Mic index where the audio of the newest request ended."""
        self.pending = False
        """A request is out and not answered."""
        self.sent_now = 0.0
        self.verdict: Verdict | None = None

    def speech_ended(self, end: int, now: float) -> None:
        """The segmenter ended the speech at mic index ``end``."""
        self.ended_at = max(end, self.onset)
        self.ended_now = now

    def answer(self, text: str) -> None:
        """The ASR answered the pending request with ``text``."""
        self.transcript, self.transcript_end, self.pending = text, self.asked_end, False

    def speech_end(self) -> int:
        """Mic index where the speech heard so far ends (the newest speech frame)."""
        if self.ended_at is not None:
            return self.ended_at
        last = self.history.last_speech_between(self.onset, self.history.end)
        return self.onset if last is None else max(last, self.onset)

    def step(self, now: float, asr_idle: bool) -> Judgement:
        """Judge again. ``asr_idle``: the ASR is running nothing (ours or another job)."""
        if self.verdict is not None:
            return Judgement(self.verdict)
        if self.pending and asr_idle and now - self.sent_now > LOST_JOB_S:
            self.pending = False  # the ASR dropped it (hallucination or silence): no words
        end = self.speech_end()
        if self.ended_at is None and self.history.end - end >= int(SILENCE_ENDED_S * self.rate):
            self.speech_ended(end, now)  # the history says so, whether or not anyone else did
        request = self._request(end, now) if asr_idle and not self.pending else None
        speech_s = (end - self.onset) / self.rate
        covered = self.transcript_end >= end or (not self.pending and self.asked_end >= end)
        late = self.ended_now is not None and now - self.ended_now >= TRANSCRIPT_GRACE_S
        ended = self.ended_at is not None and (covered or late)
        verdict = self.decider.evaluate(speech_s, self.transcript, speech_ended=ended)
        if (verdict.decision is Decision.INTERRUPT and verdict.reason == "long_speech"
                and not has_content(self.transcript) and speech_s < WORDLESS_INTERRUPT_S):
            heard_nothing = (not self.pending and
                             self.asked_end - self.onset >= int(NO_WORDS_S * self.rate))
            if not heard_nothing:
                return Judgement(request=request, speech_s=speech_s)
            verdict = Verdict(Decision.RESUME, "no_words")
        if self._words_heard(verdict, speech_s) and echoes_reply(self.transcript,
                                                                 self._reply_text()):
            verdict = Verdict(Decision.RESUME, "echo_words")
        if verdict.decision is Decision.WAIT:
            return Judgement(request=request, speech_s=speech_s)
        self.verdict = verdict
        return Judgement(verdict, None, speech_s)

    def _words_heard(self, verdict: Verdict, speech_s: float) -> bool:
        """Whether ``verdict`` rests on words.

        An interruption by them, or one short word alone the decider waits on (the reply's
        own word heard back resumes it now).
        """
        if verdict.decision is Decision.INTERRUPT:
            return verdict.reason == "words"
        return (verdict.decision is Decision.WAIT and has_content(self.transcript)
                and not self.decider.is_backchannel(self.transcript)
                and speech_s >= self.decider.settings.min_word_speech_s)

    def _request(self, end: int, now: float) -> TranscribeRequest | None:
        fresh = (end - (self.asked_end or self.onset)) / self.rate
        if fresh < MIN_ASR_SPEECH_S and not (self.ended_at is not None
                                             and self.asked_end < end):
            return None
        stop = min(self.history.end, end + int(POSTROLL_S * self.rate))
        start = max(self.history.start, self.onset - int(PREROLL_S * self.rate))
        if stop - start < int(MIN_ASR_SPEECH_S * self.rate):
            return None
        self.pending, self.asked_end, self.sent_now = True, end, now
        return TranscribeRequest(start, stop, self.transcript)
