"""The runtime's typed seams: command table, worker payloads, playback driver, span publisher."""

from __future__ import annotations

import typing
from typing import Any

import numpy as np
import pytest

from desktop_agent.audio.player import Player
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import SpeechChunk, Transcript, TranscriptSegment
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import JobId
from desktop_agent.core.turns.telemetry import TurnSpan
from desktop_agent.runtime.command_table import HandlerTable
from desktop_agent.runtime.payloads import (
    AsideJob,
    AsrJob,
    AsrPartialResult,
    SpokenAside,
    SynthesizedChunk,
    TtsJob,
)
from desktop_agent.runtime.playback_driver import PlaybackDriver
from desktop_agent.runtime.spans import SpanPublisher
from desktop_agent.runtime.workers import AsrWorker, TtsWorker

TURN = TurnId(4)


class FakeVoice:
    """Two pieces per text, 100 samples each, at 16 kHz."""

    sample_rate = 16_000

    def synthesize(self, text: str, cancel: Any = None) -> Any:
        for word in text.split()[:2]:
            yield SpeechChunk(word, np.full(100, 1000, np.int16), 16_000)

    def set_speaking_rate(self, rate: float) -> None:
        pass


class FakeWhisper:
    def transcribe(self, audio: Any, cancel: Any = None, context: str = "") -> Transcript:
        return Transcript(" hello there", (TranscriptSegment(" hello there", 0.0, 1.0, 0.01,
                                                             -0.2),))


def _loaded(worker: Any) -> Any:
    worker.load()
    assert worker.engine is not None
    return worker


def test_every_command_has_a_handler(qtbot: Any) -> None:
    from tests.runtime.test_controller_settings import make_controller

    c = make_controller()
    try:
        assert c.handlers.kinds == set(typing.get_args(cmd.Command))
    finally:
        c.driver.close()


def test_a_command_without_a_handler_fails_with_a_code() -> None:
    ran: list[Any] = []
    table = HandlerTable().add(cmd.CancelLlm, ran.append)
    table.run(cmd.CancelLlm(turn_id=TURN, job=JobId(1)))
    assert len(ran) == 1
    with pytest.raises(AgentError) as info:
        table.run(cmd.CancelTool(turn_id=TURN, job=JobId(2)))
    assert info.value.code == "unknown_command"


def test_tts_sends_the_audio_with_its_metadata_on_one_signal(qtbot: Any) -> None:
    tts = _loaded(TtsWorker(FakeVoice))
    chunks: list[SynthesizedChunk] = []
    events: list[Any] = []
    tts.sig_chunk_synthesized.connect(chunks.append)
    tts.sig_event_reported.connect(events.append)
    tts.run(TtsJob(TURN, JobId(7), 2, "one two three", CancelToken(TURN)))
    assert events == []  # TtsChunkReady travels with its audio, not on its own
    (chunk,) = chunks
    ready = chunk.ready
    assert isinstance(ready, ev.TtsChunkReady)
    assert (ready.turn_id, ready.job, ready.chunk_index) == (TURN, 7, 2)
    assert ready.text == "one two" and ready.n_samples == 200 == len(chunk.audio)


def test_tts_says_nothing_for_a_cancelled_job(qtbot: Any) -> None:
    tts = _loaded(TtsWorker(FakeVoice))
    chunks: list[Any] = []
    tts.sig_chunk_synthesized.connect(chunks.append)
    token = CancelToken(TURN)
    token.cancel()
    tts.run(TtsJob(TURN, JobId(7), 0, "one", token))
    assert chunks == []


def test_an_aside_comes_back_on_its_own_signal(qtbot: Any) -> None:
    tts = _loaded(TtsWorker(FakeVoice))
    asides: list[SpokenAside] = []
    chunks: list[Any] = []
    tts.sig_aside_synthesized.connect(asides.append)
    tts.sig_chunk_synthesized.connect(chunks.append)
    job = AsideJob(TURN, "sorry about that", CancelToken(TURN))
    tts.speak_aside(job)
    assert chunks == [] and len(asides) == 1
    assert asides[0].job is job and asides[0].chunk is not None
    assert asides[0].chunk.n_samples == 200


def test_a_partial_transcript_is_one_frozen_payload(qtbot: Any) -> None:
    asr = _loaded(AsrWorker(FakeWhisper, lambda *_: False))
    partials: list[AsrPartialResult] = []
    events: list[Any] = []
    asr.sig_partial_transcribed.connect(partials.append)
    asr.sig_event_reported.connect(events.append)
    job = AsrJob(TURN, JobId(3), np.zeros(1600, np.float32), CancelToken(TURN), partial=True)
    asr.run(job)
    assert events == [] and partials == [AsrPartialResult(job, "hello there", False)]
    with pytest.raises(AttributeError):
        partials[0].text = "changed"  # type: ignore[misc]


class Rig:
    """A PlaybackDriver on a real Player (no device: nothing is rendered)."""

    def __init__(self) -> None:
        self.player = Player(16_000)
        self.tts = TtsWorker(FakeVoice)
        self.fed: list[Any] = []
        self.captions: list[str] = []
        self.replies: list[tuple[int, str]] = []
        self.tokens: dict[int, CancelToken] = {}
        self.asides: list[AsideJob] = []
        self.driver = PlaybackDriver(
            self.player, feed=self.fed.append,
            token=lambda job, turn: self.tokens.setdefault(job, CancelToken(turn)),
            cancel=lambda job, reason: self.tokens.pop(job, CancelToken()).cancel(reason),
            tts=self.tts, show_caption=self.captions.append,
            show_reply=lambda t, s: self.replies.append((t, s)))
        self.tts.sig_aside_synthesized.disconnect()  # answered by hand below
        self.driver.sig_aside_requested.disconnect()
        self.driver.sig_aside_requested.connect(self.asides.append)

    def chunk(self, turn: int, index: int, text: str, n: int = 160) -> SynthesizedChunk:
        ready = ev.TtsChunkReady(turn_id=TurnId(turn), job=JobId(50 + index), chunk_index=index,
                                 text=text, n_samples=n, sample_rate=16_000, at_s=0.0)
        return SynthesizedChunk(ready, np.full(n, 0.1, np.float32), CancelToken(TurnId(turn)))


@pytest.fixture()
def rig(qtbot: Any) -> Any:
    r = Rig()
    yield r
    r.driver.close()


def test_the_driver_plays_the_kept_audio_of_the_chunk_asked_for(rig: Rig, qtbot: Any) -> None:
    rig.driver.keep(rig.chunk(4, 0, "Hello."))
    rig.driver.keep(rig.chunk(4, 1, "Again."))
    rig.driver.play(cmd.PlayChunk(turn_id=TURN, job=JobId(9), chunk_index=1))
    key = rig.driver.monitor.key(JobId(9))
    qtbot.waitUntil(lambda: rig.player.status(key) is not None)
    status = rig.player.status(key)
    assert status is not None and status.enqueued_samples == 160
    assert rig.captions == ["Again."] and rig.replies == [(4, "Again.")]
    assert rig.driver.reply_text(TURN) == "Again." and rig.driver.reply_text(TurnId(5)) == ""
    rig.driver.play(cmd.PlayChunk(turn_id=TURN, job=JobId(9), chunk_index=1))
    assert rig.captions == ["Again."]  # played once: the audio is handed over


def test_the_driver_drops_audio_of_cancelled_jobs_and_of_old_turns(rig: Rig) -> None:
    old = rig.chunk(2, 0, "Old.")
    rig.driver.keep(old)
    cancelled = rig.chunk(4, 1, "Cut.")
    cancelled.cancel.cancel()
    rig.driver.keep(cancelled)
    rig.driver.keep(rig.chunk(4, 0, "New."))  # a turn two later: turn 2's audio goes
    for turn, index in ((2, 0), (4, 1)):
        rig.driver.play(cmd.PlayChunk(turn_id=TurnId(turn), job=JobId(9), chunk_index=index))
    assert rig.captions == []


def test_only_an_apology_reports_that_it_was_spoken(rig: Rig, qtbot: Any) -> None:
    rig.driver.speak_aside(TURN, "This is the speaker test.")
    (job,) = rig.asides
    rig.driver._on_tts_sig_aside_synthesized(SpokenAside(job, None))
    assert rig.fed == []
    rig.driver.speak_apology(cmd.SpeakApology(turn_id=TURN, text="Sorry."))
    assert rig.captions == ["Sorry."]
    apology = rig.asides[-1]
    stale = SpokenAside(job, None)  # the replaced aside's late audio is ignored
    rig.driver._on_tts_sig_aside_synthesized(stale)
    assert rig.fed == []
    audio = SpeechChunk("Sorry.", np.full(320, 1000, np.int16), 16_000)
    rig.driver._on_tts_sig_aside_synthesized(SpokenAside(apology, audio))

    def played_out() -> bool:
        rig.player.render(1024)  # the device pulls the aside's audio
        return bool(rig.fed)

    qtbot.waitUntil(played_out, timeout=5000)
    assert [type(e) for e in rig.fed] == [ev.ApologyFinished]
    assert rig.fed[0].turn_id == TURN


def test_a_listening_cue_plays_whole_and_the_next_reply_plays_after_it(rig: Rig,
                                                                       qtbot: Any) -> None:
    rig.driver.play_cue("start")
    out: list[np.ndarray] = []

    def cue_played() -> bool:
        out.append(rig.player.render(800))  # the device pulls 50 ms at a time
        return len(out) > 1 and not out[-1].any() and any(b.any() for b in out)

    qtbot.waitUntil(cue_played, timeout=5000)
    audio = np.concatenate(out)
    sounding = np.flatnonzero(np.abs(audio) > 1e-3)
    assert 0.08 < (sounding[-1] - sounding[0]) / 16_000 <= 0.1  # two 50 ms notes
    assert 0.1 < float(np.abs(audio).max()) <= 0.12  # soft: -18 dBFS at most
    rig.driver.keep(rig.chunk(4, 0, "Hello."))  # the reply's key is newer: not refused
    rig.driver.play(cmd.PlayChunk(turn_id=TURN, job=JobId(9), chunk_index=0))
    key = rig.driver.monitor.key(JobId(9))
    qtbot.waitUntil(lambda: rig.player.status(key) is not None)
    status = rig.player.status(key)
    assert status is not None and status.enqueued_samples == 160


class FakeSpans:
    """The machine's bounded span store: the newest ``kept`` spans and a total count."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self.spans: list[TurnSpan] = []
        self.spans_completed = 0

    def finish(self, n: int) -> None:
        for _ in range(n):
            self.spans_completed += 1
            self.spans = [*self.spans, TurnSpan(TurnId(self.spans_completed))][-self.kept:]

    def spans_since(self, seen: int) -> tuple[TurnSpan, ...]:
        new = self.spans_completed - seen
        return tuple(self.spans[-new:]) if new > 0 else ()


def test_spans_are_sent_once_each_even_when_the_machine_keeps_few() -> None:
    source, sent, logged = FakeSpans(kept=3), [], []
    publisher = SpanPublisher(source, sent.append, logged.append)
    publisher.publish()
    assert sent == []
    source.finish(2)
    publisher.publish()
    publisher.publish()  # nothing new: nothing sent again
    source.finish(5)  # more than the machine keeps: the newest three are left
    publisher.publish()
    assert [int(s.turn_id) for s in sent] == [1, 2, 5, 6, 7]
    assert [int(s.turn_id) for s in logged] == [1, 2, 5, 6, 7]
    assert sent[0] is not logged[0]  # the GUI gets a copy, the log the machine's own


def test_a_failing_telemetry_sink_does_not_stop_the_gui_copy() -> None:
    def broken(span: TurnSpan) -> None:
        raise OSError("disk full")

    source, sent = FakeSpans(kept=64), []
    publisher = SpanPublisher(source, sent.append, broken)
    source.finish(1)
    publisher.publish()
    assert len(sent) == 1


def test_every_worker_loads_its_engine_on_its_own_thread(qtbot: Any) -> None:
    """A worker that extends ``load`` (the LLM's warm-up) must not load on the GUI thread."""
    import threading

    from desktop_agent.core.tools.registry import ToolRegistry
    from desktop_agent.runtime.llm_worker import LlmWorker
    from desktop_agent.runtime.workers import start_worker

    where: dict[str, str] = {}

    class Engine:
        def warm(self, *args: Any) -> None:
            where["warm"] = threading.current_thread().name

    def factory(name: str) -> Any:
        def make() -> Engine:
            where[name] = threading.current_thread().name
            return Engine()
        return make

    workers = [LlmWorker(factory("llm"), ToolRegistry(), ""), TtsWorker(factory("tts")),
               AsrWorker(factory("asr"), lambda *_: False)]
    threads = [start_worker(w, name) for w, name in zip(workers, ("llm", "tts", "asr"),
                                                         strict=True)]
    try:
        qtbot.waitUntil(lambda: len(where) == 4, timeout=5000)
    finally:
        for thread in threads:
            thread.quit()
            thread.wait(2000)
    gui = threading.current_thread().name
    assert gui not in where.values(), where
