"""Hands-free barge-in: pause first, decide second, with a transcript when there is one.

The controller feeds ``VoiceOnsetDuringPlayback`` on a confirmed onset (the machine pauses
the reply at once) and then hands the onset to :class:`BargeInTracker`. The tracker
keeps a :class:`~desktop_agent.core.listening.bargein_judge.BargeInJudge` (the pure rules the
benchmark runs too) and steps it on every new fact and on a 100 ms timer. Its verdict becomes
``BargeInDecided``: real (the machine cuts the reply and gives the user the floor) or not
(the reply resumes where it paused).

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
from collections import deque
from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QObject, QTimer

from desktop_agent.audio.mic_history import MicHistory
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.listening.bargein import BargeInDecider, Decision, Verdict
from desktop_agent.core.listening.bargein_judge import (
    TRANSCRIPT_GRACE_S,
    WORDLESS_INTERRUPT_S,
    BargeInJudge,
    TranscribeRequest,
)
from desktop_agent.core.privacy import said
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import JobId
from desktop_agent.runtime.controller_ports import Feed
from desktop_agent.runtime.payloads import AsrJob

_LOGGER = logging.getLogger(__name__)

TICK_MS: Final = 100
"""How often a pending barge-in is judged again, milliseconds."""
VERDICTS_KEPT: Final = 64
"""How many verdicts ``BargeInTracker.verdicts`` keeps (the newest)."""
__all__ = ["TICK_MS", "TRANSCRIPT_GRACE_S", "VERDICTS_KEPT", "WORDLESS_INTERRUPT_S",
           "BargeInTracker"]


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
        parent: The owning QObject.
        reply_text: The reply being spoken (its words heard back are echo).
    """

    def __init__(self, decider: BargeInDecider, history: MicHistory, rate: int, *,
                 feed: Feed, submit_asr: Callable[[AsrJob], None],
                 asr_busy: Callable[[], bool], time_of: Callable[[int], float],
                 clock: Callable[[], float] = time.monotonic,
                 parent: QObject | None = None,
                 reply_text: Callable[[], str] = lambda: "") -> None:
        """Wire it up; the class docstring describes the arguments."""
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
        self._judge: BargeInJudge | None = None
        self._turn = TurnId(0)
        self._job: JobId | None = None
        self._token: CancelToken | None = None
        self.verdicts: deque[Verdict] = deque(maxlen=VERDICTS_KEPT)
        """The newest verdicts fed to the machine, oldest first (tests and the log read it)."""
        self.heard: deque[tuple[str, float]] = deque(maxlen=VERDICTS_KEPT)
        """Beside each of ``verdicts``: the transcript it rested on and the seconds of speech
        (what a failed test prints: the words the ASR made of an echo or a misheard word)."""
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    @property
    def active(self) -> bool:
        """True while an onset is being judged."""
        return self._judge is not None

    @property
    def onset(self) -> int | None:
        """Absolute mic index of the onset being judged (None when idle)."""
        return None if self._judge is None else self._judge.onset

    @property
    def ended(self) -> bool:
        """Whether the speech being judged has ended."""
        return self._judge is not None and self._judge.ended_at is not None

    def start(self, turn_id: TurnId, onset: int) -> None:
        """A confirmed onset at mic index ``onset`` (the machine was told and paused)."""
        self.cancel()
        self._turn = turn_id
        self._judge = BargeInJudge(self.decider, self.history, self.rate, onset,
                                   lambda: self._reply_text())
        self._timer.start()
        self._step()

    def speech_ended(self, end: int) -> None:
        """The segmenter ended the speech at mic index ``end``."""
        if self._judge is None:
            return
        self._judge.speech_ended(end, self._clock())
        self._step()

    def take_partial(self, event: ev.AsrPartial) -> bool:
        """Consume ``event`` if it answers one of our jobs (True), else leave it (False).

        Ours are the negative job ids (the machine's start at 1): no set of them to grow
        when the worker drops an answer.
        """
        if int(event.job) >= 0:
            return False
        if self._judge is not None and self._job == event.job:
            self._job = None
            self._judge.answer(event.text)
            _LOGGER.info("turn=%d barge-in transcript %s", self._turn, said(event.text))
            self._step()
        return True

    def cancel(self) -> None:
        """Forget the onset being judged (the reply ended, or a verdict was fed)."""
        self._timer.stop()
        self._judge, self._job = None, None
        token, self._token = self._token, None
        if token is not None:
            token.cancel("barge-in judged")

    # --- judging ---------------------------------------------------------------------------------

    def _on_timer_timeout(self) -> None:
        self._step()

    def _step(self) -> None:
        judge = self._judge
        if judge is None:
            return
        result = judge.step(self._clock(), asr_idle=not self._asr_busy())
        if judge.pending is False:
            self._job = None  # answered, or dropped by the worker
        if result.request is not None:
            self._transcribe(result.request)
        if result.verdict is not None:
            self._decide(judge, result.verdict, result.speech_s)

    def _transcribe(self, request: TranscribeRequest) -> None:
        job = JobId(-next(self._jobs))
        self._job, self._token = job, CancelToken(self._turn)
        self._submit_asr(AsrJob(self._turn, job, self.history.slice(request.start, request.stop),
                                self._token, partial=True,
                                speech_ratio=max(self.history.speech_ratio(request.start,
                                                                           request.stop), 0.0),
                                previous_partial=request.previous))

    def _decide(self, judge: BargeInJudge, verdict: Verdict, speech_s: float) -> None:
        self.cancel()
        self.verdicts.append(verdict)
        self.heard.append((judge.transcript, speech_s))
        real = verdict.decision is Decision.INTERRUPT
        _LOGGER.info("turn=%d barge-in %s (%s) after %.2f s of speech from mic sample %d, "
                     "transcript %s", self._turn, verdict.decision.value, verdict.reason,
                     speech_s, judge.onset, said(judge.transcript))
        self._feed(ev.BargeInDecided(turn_id=self._turn, at_s=self._clock(), real=real,
                                     transcript=judge.transcript))
        if real and judge.ended_at is not None:
            # The segmenter already ended this speech, and it will not say so again: tell
            # the machine (now INTERRUPTED) so the user's turn is endpointed, not left open.
            self._feed(ev.SpeechEnded(turn_id=self._turn, at_s=self._clock(),
                                      speech_end_s=self._time_of(judge.ended_at)))
