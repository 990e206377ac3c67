"""Direct tests of the reducer: one event in, one step out."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.history import History
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.turns import commands as c
from desktop_agent.core.turns import events as e
from desktop_agent.core.turns.base import SPANS_KEPT, Step, UndeclaredTransitionError
from desktop_agent.core.turns.chunking import PunctuationChunker
from desktop_agent.core.turns.machine import TurnStateMachine
from desktop_agent.core.turns.policy import DECLARED_TRANSITIONS, TurnPolicy
from desktop_agent.core.turns.reply import NOT_CAUGHT
from desktop_agent.core.turns.states import JobId, Stage, State

L, U, P = State.LISTENING, State.USER_SPEAKING, State.PROCESSING
W, A, E = State.WAITING_FOR_TOOL, State.ASSISTANT_SPEAKING, State.ERROR
INT = State.INTERRUPTED
J = JobId


class Driver:
    """Feeds events stamped with the machine's turn id; remembers every command."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("strict", True)
        self.m = TurnStateMachine(History("sys"), **kwargs)
        self.t = 0.0
        self.commands: list[c.Command] = []

    def __call__(self, kind: type[Any], **fields: Any) -> Step:
        self.t = fields.pop("at_s", self.t + 0.1)
        fields.setdefault("turn_id", self.m.turn_id)
        step = self.m.handle(kind(at_s=self.t, **fields))
        self.commands.extend(step.commands)
        return step

    def last(self, kind: type[Any]) -> Any:
        return [x for x in self.commands if isinstance(x, kind)][-1]

    def to_processing(self, text: str = "time?") -> None:
        self(e.PttPressed)
        self(e.PttReleased)
        self(e.AsrFinal, job=self.last(c.Transcribe).job, text=text, no_speech=False)


def names(step: Step) -> list[str]:
    return [type(x).__name__ for x in step.commands]


def test_events_of_another_turn_or_a_dead_job_are_dropped_in_one_place() -> None:
    d = Driver()
    d.to_processing()
    llm = d.last(c.StartLlm).job
    assert d(e.LlmToken, job=llm, text="Hi ", turn_id=0) == Step(None, ())
    assert d(e.LlmToken, job=J(999), text="Hi ") == Step(None, ())
    assert d.m.dropped_count == 2
    assert [type(x) for x in d.m.dropped_events] == [e.LlmToken, e.LlmToken]
    # Control events are never dropped, whatever turn they name.
    assert d(e.PttPressed, turn_id=42).transition is not None
    assert d.m.dropped_count == 2


def test_undeclared_transition_raises_in_strict_mode() -> None:
    d = Driver(transitions=DECLARED_TRANSITIONS - {(L, U)})
    with pytest.raises(UndeclaredTransitionError) as info:
        d(e.PttPressed)
    assert info.value.code == "undeclared_transition"


def test_undeclared_transition_becomes_error_in_production() -> None:
    d = Driver(strict=False, transitions=DECLARED_TRANSITIONS - {(L, U)})
    step = d(e.PttPressed)
    assert step.transition is not None
    assert (step.transition.target, step.transition.cause) == (E, "undeclared_transition")
    assert names(step) == ["StartRecording", "CancelAsr", "SpeakApology", "StartTimer"]
    assert d(e.ApologyFinished).transition.target is L  # type: ignore[union-attr]


def test_no_speech_goes_back_to_listening_without_a_turn() -> None:
    d = Driver()
    d(e.PttPressed)
    d(e.PttReleased)
    step = d(e.AsrFinal, job=d.last(c.Transcribe).job, text=" ", no_speech=True)
    assert step.transition is not None and step.transition.cause == "no_speech"
    assert names(step) == ["CancelTimer"]
    assert d.m.state is L and d.m.history.exchanges == 0
    assert list(d.m.completed_spans[0].marks) == ["endpoint", "asr_final"]


def test_barge_in_silences_first_then_cancels_then_hands_the_floor_over() -> None:
    d = Driver(policy=TurnPolicy(speak_tool_results=False))  # the LLM runs on after the call
    d.to_processing()
    llm = d.last(c.StartLlm).job
    d(e.LlmToken, job=llm, text="Let me check. ")
    d(e.LlmToken, job=llm, text="Also ")
    call = ToolCall("get_time", {}, "c1")
    assert d(e.LlmToolCall, job=llm, call=call).transition.target is W  # type: ignore[union-attr]
    first, second = d.m.history, [x for x in d.commands if isinstance(x, c.Synthesize)]
    assert [x.text for x in second] == ["Let me check.", "Also"]
    d(
        e.TtsChunkReady,
        job=second[0].job,
        chunk_index=0,
        text="Let me check.",
        n_samples=1000,
        sample_rate=1000,
    )
    stream = d.last(c.PlayChunk).job
    assert d(e.PlaybackStarted, job=stream).transition.target is A  # type: ignore[union-attr]
    tool = d.last(c.RunTool).job
    step = d(e.PttPressed)
    assert step.transition is not None
    assert (step.transition.target, step.transition.cancels) == (
        INT,
        ("playback", "tts", "llm", "tool"),
    )
    assert names(step) == [
        "FlushPlayback",
        "CancelTts",
        "CancelLlm",
        "CancelTool",
        "CancelTimer",
        "CancelTimer",
        "StartTimer",
    ]
    assert step.commands[1] == c.CancelTts(turn_id=TurnId(1), jobs=(second[1].job,))
    assert step.commands[3] == c.CancelTool(turn_id=TurnId(1), job=tool)
    assert step.commands[-1].stage is Stage.PLAYBACK  # type: ignore[union-attr]
    # The tool answers late: dropped. Then the player reports what it played.
    assert d(e.ToolResult, job=tool, call_id="c1", content="15:00") == Step(None, ())
    step = d(e.PlaybackStopped, job=stream, played_samples=500)
    assert step.transition is not None
    assert (step.transition.target, step.transition.cause, step.transition.turn_id) == (
        U,
        "floor_to_user",
        2,
    )
    assert names(step) == ["CancelTimer", "PublishHeard", "StartRecording"]
    report = step.commands[1].report  # type: ignore[union-attr]
    assert (report.heard_text, report.unheard_text) == ("Let me", "check. Also")
    assert [(m.role, m.content, m.interrupted) for m in first.messages[1:]] == [
        ("user", "time?", False),
        ("assistant", "Let me", True),
    ]


def test_a_tap_on_push_to_talk_just_stops_the_assistant() -> None:
    d = Driver()
    d.to_processing()
    llm = d.last(c.StartLlm).job
    d(e.LlmToken, job=llm, text="Hello there. ")
    d(
        e.TtsChunkReady,
        job=d.last(c.Synthesize).job,
        chunk_index=0,
        text="Hello there.",
        n_samples=100,
        sample_rate=1000,
    )
    stream = d.last(c.PlayChunk).job
    d(e.PlaybackStarted, job=stream)
    d(e.PttPressed)
    d(e.PttReleased)
    step = d(e.PlaybackStopped, job=stream, played_samples=0)
    assert step.transition is not None and step.transition.cause == "ptt_tap"
    assert d.m.state is L and d.m.turn_id == 1
    assert [m.role for m in d.m.history.messages] == ["system", "user"]


def test_a_lost_playback_stopped_is_covered_by_the_flush_timer() -> None:
    d = Driver()
    d.to_processing()
    d(e.LlmToken, job=d.last(c.StartLlm).job, text="Hello there. ")
    d(
        e.TtsChunkReady,
        job=d.last(c.Synthesize).job,
        chunk_index=0,
        text="Hello there.",
        n_samples=1200,
        sample_rate=1000,
    )
    stream = d.last(c.PlayChunk).job
    d(e.PlaybackStarted, job=stream)
    d(e.PlaybackProgress, job=stream, played_samples=600)
    d(e.PttPressed)
    timer = d.last(c.StartTimer)
    step = d(e.StageTimedOut, job=timer.job, stage=Stage.PLAYBACK)
    assert step.transition is not None and step.transition.cause == "floor_to_user"
    assert d.m.history.messages[-1].content == "Hello"


def test_stage_failure_stops_everything_and_apologises() -> None:
    d = Driver(policy=TurnPolicy(filler_after_s=0))
    d.to_processing()
    llm = d.last(c.StartLlm).job
    step = d(e.StageFailed, job=llm, stage=Stage.LLM, code="llm_error", message="boom")
    assert step.transition is not None
    assert (step.transition.target, step.transition.cause) == (E, "llm_failed")
    assert names(step) == ["CancelLlm", "CancelTimer", "SpeakApology", "StartTimer"]
    # Late output of the failed turn is dropped; a press cuts the apology and starts turn 2.
    assert d(e.LlmToken, job=llm, text="x") == Step(None, ())
    step = d(e.PttPressed)
    assert names(step) == ["StopApology", "CancelTimer", "StartRecording"]
    assert (d.m.state, d.m.turn_id) == (U, 2)


def test_a_failed_speculation_is_not_an_error() -> None:
    d = Driver()
    d(e.PttPressed)
    rec = d.last(c.StartRecording).job
    d(e.AsrPartial, job=rec, text="hi", stable=True, trailing_silence_s=0.5)
    spec = d.last(c.StartLlm)
    assert spec.speculative
    step = d(e.StageFailed, job=spec.job, stage=Stage.LLM, code="llm_error", message="x")
    assert step == Step(None, ())
    d(e.PttReleased)
    d(e.AsrFinal, job=d.last(c.Transcribe).job, text="hi", no_speech=False)
    assert [x.speculative for x in d.commands if isinstance(x, c.StartLlm)] == [True, False]


def test_speculative_output_is_held_until_the_final_confirms_it() -> None:
    d = Driver()
    d(e.PttPressed)
    d(
        e.AsrPartial,
        job=d.last(c.StartRecording).job,
        text="Hi there",
        stable=True,
        trailing_silence_s=0.3,
    )
    spec = d.last(c.StartLlm).job
    assert d(e.LlmToken, job=spec, text="Hello! ").commands == ()
    d(e.PttReleased)
    step = d(e.AsrFinal, job=d.last(c.Transcribe).job, text="hi, there.", no_speech=False, at_s=5.0)
    assert names(step) == ["CancelTimer", "PublishUserText", "Synthesize", "StartTimer"]
    assert d.m.current_span.marks["llm_first_token"] == 5.0


def test_a_reply_with_nothing_speakable_is_never_silence() -> None:
    d = Driver()
    d.to_processing("hm")
    d(e.LlmToken, job=d.last(c.StartLlm).job, text=" ... ")
    step = d(e.LlmFinished, job=d.last(c.StartLlm).job)
    assert step.transition is None
    said = " ".join(x.text for x in step.commands if isinstance(x, c.Synthesize))
    assert said == NOT_CAUGHT


def test_too_many_tool_calls_fail_the_turn() -> None:
    d = Driver(policy=TurnPolicy(speak_tool_results=False))
    d.to_processing()
    call = ToolCall("get_time", {}, "c")
    for _ in range(4):
        d(e.LlmToolCall, job=d.last(c.StartLlm).job, call=call)
        d(e.LlmFinished, job=d.last(c.StartLlm).job)
        d(e.ToolResult, job=d.last(c.RunTool).job, call_id="c", content="now")
    step = d(e.LlmToolCall, job=d.last(c.StartLlm).job, call=call)
    assert step.transition is not None and step.transition.cause == "too_many_tool_calls"


def test_reset_cancels_the_turn() -> None:
    d = Driver()
    d.to_processing()
    step = d(e.Reset)
    assert step.transition is not None
    assert (step.transition.target, step.transition.cancels) == (L, ("llm",))
    assert d(e.Reset) == Step(None, ())


def test_the_fallback_chunker_splits_after_clause_punctuation() -> None:
    chunker = PunctuationChunker()
    assert chunker.push("Pi is 3.") == []
    assert chunker.push("14, roughly. Next") == ["Pi is 3.14,", "roughly."]
    assert chunker.flush() == ["Next"]
    assert chunker.flush() == []


def test_a_voice_barge_in_that_ends_during_the_fade_goes_straight_to_processing() -> None:
    d = Driver()
    d.to_processing()
    d(e.LlmToken, job=d.last(c.StartLlm).job, text="Hello there. ")
    d(
        e.TtsChunkReady,
        job=d.last(c.Synthesize).job,
        chunk_index=0,
        text="Hello there.",
        n_samples=1000,
        sample_rate=1000,
    )
    stream = d.last(c.PlayChunk).job
    d(e.PlaybackStarted, job=stream)
    assert names(d(e.VoiceOnsetDuringPlayback, speech_start_s=1.5)) == ["DuckPlayback"]
    step = d(e.BargeInDecided, real=True, transcript="no")
    assert step.transition is not None and step.transition.cause == "barge_in_voice"
    assert d(e.SpeechEnded, speech_end_s=2.0).transition is None
    step = d(e.PlaybackStopped, job=stream, played_samples=1000)
    assert step.transition is not None
    assert (step.transition.source, step.transition.target, step.transition.turn_id) == (INT, P, 2)
    assert names(step)[2:] == ["StartRecording", "StopRecording", "Transcribe", "StartTimer"]
    assert step.commands[2].from_s == 1.5  # type: ignore[union-attr]
    assert step.commands[3].until_s == 2.0  # type: ignore[union-attr]


def test_completed_spans_keep_the_newest_and_a_counter_tells_which_are_new() -> None:
    d = Driver()

    def silent_turn() -> None:
        d(e.PttPressed)
        d(e.PttReleased)
        d(e.AsrFinal, job=d.last(c.Transcribe).job, text="", no_speech=True)

    published: list[int] = []
    seen = 0

    def publish() -> None:  # what the runtime controller does after each step
        nonlocal seen
        published.extend(span.turn_id for span in d.m.spans_since(seen))
        seen = d.m.spans_completed

    for _ in range(3):
        silent_turn()
        publish()
        publish()  # nothing new: spans_since(seen) is empty, not everything kept
    assert published == [1, 2, 3] and d.m.spans_completed == 3
    for _ in range(SPANS_KEPT + 6):
        silent_turn()
    total = SPANS_KEPT + 9
    assert d.m.spans_completed == total
    spans = d.m.completed_spans
    assert len(spans) == SPANS_KEPT
    assert [s.turn_id for s in spans] == list(range(total - SPANS_KEPT + 1, total + 1))
    # A consumer that fell behind by more than SPANS_KEPT gets the newest SPANS_KEPT.
    publish()
    assert published[3:] == [s.turn_id for s in spans]
    silent_turn()
    publish()
    assert published[-1] == total + 1 and d.m.completed_spans[-1].turn_id == total + 1
    assert d.m.spans_since(0) == d.m.completed_spans
    assert d.m.spans_since(d.m.spans_completed) == ()


def test_a_tool_with_its_own_limit_is_waited_for_that_long_the_others_for_the_policys() -> None:
    limits = {"srv__slow": 65.0}  # the app's dict: it grows as your own tools join
    d = Driver(policy=TurnPolicy(tool_timeout_s=10.0), tool_limits_s=limits)
    d.to_processing()
    d(e.LlmToolCall, job=d.last(c.StartLlm).job, call=ToolCall("get_time", {}, "c1"))
    timers = [x for x in d.commands if isinstance(x, c.StartTimer) and x.stage is Stage.TOOL]
    assert [x.seconds for x in timers] == [10.0]
    limits["srv__late"] = 7.0  # listed after the machine was built
    d2 = Driver(tool_limits_s=limits)
    for name, seconds in (("srv__slow", 65.0), ("srv__late", 7.0)):
        d2.to_processing()
        d2(e.LlmToolCall, job=d2.last(c.StartLlm).job, call=ToolCall(name, {}, "c"))
        timer = [x for x in d2.commands if isinstance(x, c.StartTimer)
                 and x.stage is Stage.TOOL][-1]
        assert timer.seconds == seconds
        d2(e.Reset)
