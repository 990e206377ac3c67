"""The recorder: which partial is the final transcript, what the final pass decodes, and when.

A real ``MicHistory`` is fed frame by frame (speech or silence, as the VAD would judge it); the
ASR worker is a list of submitted jobs that the test answers. The scheduler's tick and the
worker's answers are called directly, in the order a timeline gives them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from desktop_agent.audio.mic_history import VAD_FRAME, MicHistory
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.listening.partials import CUT_PREROLL_S, PAUSE_S, PartialSettings
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import JobId, State
from desktop_agent.runtime.payloads import AsrJob, AsrPartialResult
from desktop_agent.runtime.recorder import Recorder
from desktop_agent.runtime.workers import AsrWorker

RATE = 16_000
TURN = TurnId(1)
REC, FINAL = JobId(10), JobId(11)


@dataclass
class Machine:
    state: State = State.USER_SPEAKING
    turn_id: TurnId = TURN
    history: Any = None


@dataclass
class Backend:
    rate: int = RATE

    def sample_at(self, t_s: float) -> int:
        return int(round(t_s * RATE))

    def time_of(self, index: int) -> float:
        return index / RATE


@dataclass
class Pipeline:
    history: MicHistory = field(default_factory=lambda: MicHistory(30.0))
    last_speech_sample: int = 0
    silence_s: float | None = None


class Rig:
    """A recorder on a fake machine, mic and worker."""

    def __init__(self, partials: PartialSettings | None = None) -> None:
        self.machine = Machine()
        self.pipeline = Pipeline()
        self.fed: list[Any] = []
        self.jobs: list[AsrJob] = []
        self.answered = 0
        self.recorder = Recorder(self.machine, Backend(), self.pipeline,  # type: ignore[arg-type]
                                 feed=self.fed.append, submit_asr=self.jobs.append,
                                 asr_busy=lambda: self.answered < len(self.jobs),
                                 token=lambda job, turn: CancelToken(turn), partials=partials)
        self.recorder.start(cmd.StartRecording(turn_id=TURN, job=REC, from_s=0.15,
                                                     partials=True))

    @property
    def now(self) -> int:
        return self.pipeline.history.end

    def hear(self, seconds: float, speech: bool) -> None:
        """``seconds`` of audio, judged speech or silence frame by frame."""
        history = self.pipeline.history
        for _ in range(round(seconds * RATE / VAD_FRAME)):
            history.append(np.full(VAD_FRAME, 0.1 if speech else 0.0, np.float32))
            history.set_prob(history.end, 0.9 if speech else 0.0)
            if speech:
                self.pipeline.last_speech_sample = history.end

    def tick(self) -> AsrJob | None:
        """The scheduler's tick; the job it launched, if any."""
        before = len(self.jobs)
        self.recorder._on_timer_timeout()
        return self.jobs[-1] if len(self.jobs) > before else None

    def answer(self, text: str) -> None:
        """The oldest unanswered job comes back with ``text`` (what the worker would say)."""
        job = self.jobs[self.answered]
        self.answered += 1
        assert job.partial
        whole = " ".join(p for p in (job.context, text) if p)
        self.recorder.on_partial(AsrPartialResult(job, whole, not whole))

    def release(self) -> None:
        """The key comes up now: stop and transcribe, as the machine commands it."""
        self.machine.state = State.PROCESSING
        self.recorder.stop(cmd.StopRecording(turn_id=TURN, job=REC, until_s=self.now / RATE))
        self.recorder.transcribe(cmd.Transcribe(turn_id=TURN, job=FINAL, recording=REC))

    def finals(self) -> list[ev.AsrFinal]:
        return [e for e in self.fed if isinstance(e, ev.AsrFinal)]


def test_a_partial_that_heard_every_word_is_the_final_transcript() -> None:
    rig = Rig()
    rig.hear(0.2, False)
    rig.hear(1.5, True)
    rig.hear(0.1, False)
    partial = rig.tick()  # the pause: launched at once
    assert partial is not None and partial.partial
    rig.answer("What time is it?")
    rig.hear(0.1, False)
    rig.release()
    assert [f.text for f in rig.finals()] == ["What time is it?"]
    assert len(rig.jobs) == 1  # no second pass


def test_the_final_waits_for_a_partial_in_flight_that_covers_the_speech() -> None:
    rig = Rig()
    rig.hear(0.2, False)
    rig.hear(1.5, True)
    rig.hear(0.1, False)
    assert rig.tick() is not None
    rig.hear(0.1, False)
    rig.release()
    assert rig.finals() == [] and len(rig.jobs) == 1
    rig.answer("What time is it?")
    assert [f.text for f in rig.finals()] == ["What time is it?"]


def _first_words_then_a_pause(rig: Rig) -> int:
    """1.2 s of speech, a short pause and its partial; returns where the pause ended."""
    rig.hear(0.2, False)
    rig.hear(1.2, True)
    rig.hear(0.1, False)
    rig.tick()
    rig.answer("What is the capital of?")  # a pause partial
    return rig.now


def test_a_stale_partial_in_flight_is_waited_for_then_the_final_pass_runs() -> None:
    rig = Rig()
    _first_words_then_a_pause(rig)
    rig.hear(0.9, True)
    assert rig.tick() is not None  # due: a pass in the middle of the speech
    rig.hear(0.3, True)
    rig.hear(0.2, False)
    rig.release()
    # The pass in flight does not cover the last words: no job queues behind it.
    assert rig.finals() == [] and len(rig.jobs) == 2
    rig.answer("What is the capital of Fra")
    assert len(rig.jobs) == 3
    final = rig.jobs[-1]  # no commits in the app: one pass over the whole recording
    assert not final.partial and final.context == "" and len(final.audio) == rig.now


def test_with_commits_the_final_pass_decodes_only_the_rest() -> None:
    rig = Rig(PartialSettings(min_commit_words=1))
    pause_end = _first_words_then_a_pause(rig)
    rig.hear(0.5, True)
    rig.hear(0.4, True)
    assert rig.tick() is not None  # due: a pass in the middle of the speech
    rig.hear(0.3, True)
    rig.hear(0.2, False)
    rig.release()
    # The pass in flight does not cover the last words: no job queues behind it.
    assert rig.finals() == [] and len(rig.jobs) == 2
    rig.answer("What is the capital of Fra")  # agrees with the pause partial: committed
    assert len(rig.jobs) == 3
    final = rig.jobs[-1]
    assert not final.partial and final.context == "What is the capital of"
    assert len(final.audio) == rig.now - (pause_end - int(CUT_PREROLL_S * RATE))


def test_without_a_commit_the_final_pass_decodes_the_whole_recording() -> None:
    rig = Rig()
    rig.hear(0.2, False)
    rig.hear(1.0, True)
    rig.hear(0.1, False)
    rig.tick()
    rig.answer("What is the capital of friend")
    rig.hear(0.6, True)
    rig.hear(0.2, False)
    rig.release()  # nothing in flight, nothing covers the end: one pass over it all
    final = rig.jobs[-1]
    assert not final.partial and final.context == ""
    assert len(final.audio) == rig.now


def test_the_unjudged_sliver_before_the_release_does_not_delay_the_final() -> None:
    rig = Rig()
    rig.hear(0.2, False)
    rig.hear(1.5, True)
    rig.hear(0.1, False)
    rig.tick()
    rig.answer("What time is it?")
    rig.hear(0.15, False)
    # The key comes up part of a VAD frame after the newest judged one.
    history = rig.pipeline.history
    history.append(np.zeros(VAD_FRAME // 3, np.float32))
    rig.release()
    assert [f.text for f in rig.finals()] == ["What time is it?"]


def test_a_silent_pause_partial_launches_only_after_the_pause() -> None:
    rig = Rig()
    rig.hear(0.2, False)
    rig.hear(1.0, True)
    assert rig.tick() is not None  # the first pass is due
    rig.answer("What time")
    rig.hear(0.2, True)
    assert rig.tick() is None  # speech goes on, the next pass is not due yet
    rig.hear(PAUSE_S, False)
    launched = rig.tick()
    assert launched is not None and launched.trailing_silence_s >= PAUSE_S


def test_a_failed_partial_reports_that_it_heard_nothing() -> None:
    class Broken:
        def transcribe(self, audio: Any, cancel: Any = None, context: str = "") -> Any:
            raise RuntimeError("out of memory")

    worker = AsrWorker(Broken, lambda *_: False)
    worker.load()
    results: list[AsrPartialResult] = []
    worker.sig_partial_transcribed.connect(results.append)
    job = AsrJob(TURN, REC, np.zeros(1600, np.float32), CancelToken(TURN), partial=True)
    worker.note_submitted()
    worker.run(job)
    assert results == [AsrPartialResult(job, "", True)] and not worker.busy


def test_the_worker_joins_the_context_and_what_the_audio_adds() -> None:
    class Heard:
        contexts: list[str] = []

        def transcribe(self, audio: Any, cancel: Any = None, context: str = "") -> Any:
            from desktop_agent.core.ports import Transcript, TranscriptSegment

            self.contexts.append(context)
            text = "" if len(audio) < 800 else " France?"
            return Transcript(text, (TranscriptSegment(text, 0.0, 1.0, 0.01, -0.2),)
                              if text else ())

    worker = AsrWorker(Heard, lambda *_: False)
    worker.load()
    results: list[AsrPartialResult] = []
    worker.sig_partial_transcribed.connect(results.append)
    for samples in (1600, 400):
        worker.run(AsrJob(TURN, REC, np.zeros(samples, np.float32), CancelToken(TURN),
                          partial=True, context="What is the capital of"))
    assert [(r.text, r.no_speech) for r in results] == [
        ("What is the capital of France?", False), ("What is the capital of", False)]
    assert Heard.contexts == ["What is the capital of"] * 2
