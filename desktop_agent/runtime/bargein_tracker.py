"""Hands-free barge-in: pause first, decide second, with a transcript when there is one.

The controller feeds ``VoiceOnsetDuringPlayback`` on a confirmed onset (the machine ducks
the reply at once) and then hands the onset to :class:`BargeInTracker`. The tracker
gathers the facts (how much speech, whether it ended, what the ASR heard of it) and asks
:class:`BargeInDecider` again on every new fact and on a 100 ms timer. Its verdict becomes
``BargeInDecided``: real (the machine cuts the reply and gives the user the floor) or not
(the reply un-ducks).

Transcripts come from partial ASR jobs over ``history.slice(onset, now)`` whenever the
ASR worker is idle. Their job ids are negative, so the turn machine never knows them; the
controller routes their ``AsrPartial`` here before the machine sees it. The worker drops
partials it takes for hallucinations or silence, so a job may never answer: the tracker
then decides on speech duration alone.

Runs on: GUI thread (everything in this module).
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from PySide6.QtCore import QObject, QTimer

from desktop_agent.audio.capture import MicHistory
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.policy.bargein import BargeInDecider, Decision, Verdict, echoes_reply
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.model import JobId
from desktop_agent.runtime.workers import AsrJob

_LOGGER = logging.getLogger(__name__)

TICK_MS: Final = 100
"""How often a pending barge-in is judged again, milliseconds."""
MIN_ASR_SPEECH_S: Final = 0.3
"""Speech, seconds, the ASR is given before (and between) transcriptions."""
TRANSCRIPT_GRACE_S: Final = 0.7
"""After the speech ended, how long to wait for a transcript of all of it, seconds."""
WORDLESS_INTERRUPT_S = 2.0
"""Speech without any transcribed word interrupts only after this long, seconds."""
PREROLL_S: Final = 0.1
"""Audio before the onset handed to the ASR (the first phoneme often starts early)."""
LOST_JOB_S: Final = 0.15
"""A job not answered this long after the worker went idle was dropped (no speech)."""


@dataclass
class _Barge:
    """One onset being judged."""

    turn_id: TurnId
    onset: int
    """Absolute mic index where the speech began."""
    ended_at: int | None = None
    """Absolute mic index where it stopped (None: still speaking)."""
    ended_mono: float | None = None
    """Clock time the end was reported."""
    transcript: str = ""
    transcript_end: int = 0
    """Mic index where the audio of ``transcript`` ended (0: no transcript yet)."""
    asked_end: int = 0
    """Mic index where the audio of the newest job ended."""
    job: JobId | None = None
    token: CancelToken | None = None
    job_sent_mono: float = 0.0


class BargeInTracker(QObject):
    """Judges one onset during playback at a time and feeds the verdict.

    Args:
        decider: The pure policy.
        history: The capture pipeline's mic history (VAD probabilities included).
        rate: Mic sample rate, Hz.
        feed: The controller's single entry into the machine.
        submit_asr: Queues an ``AsrJob`` to the ASR worker.
        asr_busy: Whether the ASR worker is running a job now.
        time_of: Absolute mic index -> clock seconds.
        clock: Monotonic seconds (injectable for tests).
    """

    def __init__(self, decider: BargeInDecider, history: MicHistory, rate: int,
                 feed: Callable[[Any], None], submit_asr: Callable[[AsrJob], None],
                 asr_busy: Callable[[], bool], time_of: Callable[[int], float],
                 clock: Callable[[], float] = time.monotonic,
                 parent: QObject | None = None,
                 reply_text: Callable[[], str] = lambda: "") -> None:
        super().__init__(parent)
        self._reply_text = reply_text
        self.decider = decider
        self.history = history
        self.rate = rate
        self._feed = feed
        self._submit_asr = submit_asr
        self._asr_busy = asr_busy
        self._time_of = time_of
        self._clock = clock
        self._jobs = itertools.count(1)
        self._mine: set[int] = set()
        self._barge: _Barge | None = None
        self.verdicts: list[Verdict] = []
        """Every verdict fed to the machine (tests and the log read it)."""
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    @property
    def active(self) -> bool:
        """True while an onset is being judged."""
        return self._barge is not None

    @property
    def onset(self) -> int | None:
        """Absolute mic index of the onset being judged (None when idle)."""
        return None if self._barge is None else self._barge.onset

    @property
    def ended(self) -> bool:
        """Whether the speech being judged has ended."""
        return self._barge is not None and self._barge.ended_at is not None

    def start(self, turn_id: TurnId, onset: int) -> None:
        """A confirmed onset at mic index ``onset`` (the machine was told and ducked)."""
        self.cancel()
        self._barge = _Barge(turn_id, onset)
        self._timer.start()
        self._step()

    def speech_ended(self, end: int) -> None:
        """The segmenter ended the speech at mic index ``end``."""
        if self._barge is None:
            return
        self._barge.ended_at = max(end, self._barge.onset)
        self._barge.ended_mono = self._clock()
        self._step()

    def take_partial(self, event: ev.AsrPartial) -> bool:
        """Consume ``event`` if it answers one of our jobs (True), else leave it (False)."""
        if int(event.job) not in self._mine:
            return False
        self._mine.discard(int(event.job))
        b = self._barge
        if b is not None and b.job == event.job:
            b.transcript, b.transcript_end, b.job = event.text, b.asked_end, None
            _LOGGER.info("turn=%d barge-in transcript %r", b.turn_id, event.text)
            self._step()
        return True

    def cancel(self) -> None:
        """Forget the onset being judged (the reply ended, or a verdict was fed)."""
        self._timer.stop()
        b, self._barge = self._barge, None
        if b is not None and b.token is not None:
            b.token.cancel("barge-in judged")

    # --- judging ---------------------------------------------------------------------------------

    def _on_timer_timeout(self) -> None:
        self._step()

    def _speech_end(self, b: _Barge) -> int:
        """Mic index where the speech heard so far ends (the newest speech frame)."""
        if b.ended_at is not None:
            return b.ended_at
        last = self.history.last_speech_between(b.onset, self.history.end)
        return b.onset if last is None else max(last, b.onset)

    def _step(self) -> None:
        b = self._barge
        if b is None:
            return
        now = self._clock()
        if b.job is not None and not self._asr_busy() and now - b.job_sent_mono > LOST_JOB_S:
            b.job = None  # the worker dropped it (hallucination or silence): no words
        end = self._speech_end(b)
        self._maybe_transcribe(b, end, now)
        speech_s = (end - b.onset) / self.rate
        # Judge "ended" only once the transcript covers all of the speech, or it is too late
        # to wait for one: a short "no" must not resume the reply before the ASR heard it.
        covered = b.transcript_end >= end or (b.job is None and b.asked_end >= end)
        late = b.ended_mono is not None and now - b.ended_mono >= TRANSCRIPT_GRACE_S
        ended = b.ended_at is not None and (covered or late)
        verdict = self.decider.evaluate(speech_s, b.transcript, speech_ended=ended)
        if (verdict.decision is Decision.INTERRUPT and verdict.reason == "long_speech"
                and not b.transcript and speech_s < WORDLESS_INTERRUPT_S):
            # Speech by the VAD alone is what residual echo looks like too: wait for the
            # ASR's words; if it heard none in half a second or more of it, it was not a
            # person talking over the assistant.
            heard_nothing = b.job is None and b.asked_end - b.onset >= int(0.5 * self.rate)
            if not heard_nothing:
                return
            verdict = Verdict(Decision.RESUME, "no_words")
        if (verdict.decision is Decision.INTERRUPT and verdict.reason == "words"
                and echoes_reply(b.transcript, self._reply_text())):
            # The words heard are the assistant's own (residual echo transcribed).
            verdict = Verdict(Decision.RESUME, "echo_words")
        if verdict.decision is Decision.WAIT:
            return
        self._decide(b, verdict, speech_s)

    def _maybe_transcribe(self, b: _Barge, end: int, now: float) -> None:
        if b.job is not None or self._asr_busy():
            return
        fresh = (end - b.asked_end) / self.rate if b.asked_end else (end - b.onset) / self.rate
        if fresh < MIN_ASR_SPEECH_S and not (b.ended_at is not None and b.asked_end < end):
            return
        stop = min(self.history.end, end + int(0.1 * self.rate))
        start = max(self.history.start, b.onset - int(PREROLL_S * self.rate))
        if stop - start < int(MIN_ASR_SPEECH_S * self.rate):
            return
        job = JobId(-next(self._jobs))
        self._mine.add(int(job))
        b.job, b.token, b.asked_end, b.job_sent_mono = job, CancelToken(b.turn_id), end, now
        self._submit_asr(AsrJob(b.turn_id, job, self.history.slice(start, stop), b.token,
                                partial=True,
                                speech_ratio=max(self.history.speech_ratio(start, stop), 0.0),
                                previous_partial=b.transcript))

    def _decide(self, b: _Barge, verdict: Verdict, speech_s: float) -> None:
        self.cancel()
        self.verdicts.append(verdict)
        real = verdict.decision is Decision.INTERRUPT
        _LOGGER.info("turn=%d barge-in %s (%s) after %.2f s of speech, transcript %r",
                     b.turn_id, verdict.decision.value, verdict.reason, speech_s, b.transcript)
        self._feed(ev.BargeInDecided(turn_id=b.turn_id, at_s=self._clock(), real=real,
                                     transcript=b.transcript))
        if real and b.ended_at is not None:
            # The segmenter already ended this speech, and it will not say so again: tell
            # the machine (now INTERRUPTED) so the user's turn is endpointed, not left open.
            self._feed(ev.SpeechEnded(turn_id=b.turn_id, at_s=self._clock(),
                                      speech_end_s=self._time_of(b.ended_at)))
