"""Scripted timelines through the reducer and the fake engines (see scenario.py)."""

from __future__ import annotations

import pytest

from desktop_agent.core.conversation.prompts import INTERRUPTED_NOTE
from desktop_agent.core.ports import ChatMessage, ToolCall
from desktop_agent.core.turns import commands as c
from desktop_agent.core.turns import events as e
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.reports import PublishUserText
from desktop_agent.core.turns.states import Stage, State
from tests.core.turns.scenario import Script, run_scenario

L, U, P = State.LISTENING, State.USER_SPEAKING, State.PROCESSING
W, A, E = State.WAITING_FOR_TOOL, State.ASSISTANT_SPEAKING, State.ERROR
INT = State.INTERRUPTED
STORY = "Once upon a time, there was a fox. It was red and clever."


def _story_cut_by_stop() -> Script:
    """A story, and at 4.0 s the user's "stop" cuts it (the first chunk is playing)."""
    script = Script()
    script.user_ptt(0.5, 1.5, "tell me a story")
    script.reply(STORY)
    script.user_ptt(4.0, 5.0, "stop")
    script.reply("Okay.", to="stop")
    return script


def test_a_plain_turn() -> None:
    script = Script()
    script.user_ptt(0.5, 2.5, "tell me a story")
    script.reply("Once upon a time, there was a fox.")
    log = run_scenario(script)
    assert log.targets == [U, P, A, L]
    assert log.causes == ["ptt_pressed", "ptt_released", "playback_started", "reply_done"]
    assert [x.text for x in log.of(c.Synthesize)] == ["Once upon a time,", "there was a fox."]
    assert log.turn(1).heard_text == "Once upon a time, there was a fox."
    assert not log.turn(1).heard.interrupted  # type: ignore[union-attr]
    assert [(m.role, m.content) for m in log.machine.history.messages[1:]] == [
        ("user", "tell me a story"),
        ("assistant", "Once upon a time, there was a fox."),
    ]
    (span,) = log.spans
    assert span.marks == pytest.approx(
        {
            "endpoint": 2.5,
            "asr_final": 2.7,
            "llm_first_token": 3.0,
            "first_chunk": 3.25,
            "first_audio": 3.27,
            "llm_done": 3.4,
        }
    )
    assert log.machine.dropped_count == 0 and log.unscripted == []


def test_false_endpoint_merges_both_segments_into_one_user_turn() -> None:
    script = Script()
    script.user_speech(1.0, 2.0, "what's the time")
    script.reply("It is noon.")
    script.user_speech(2.9, 3.8, "in Paris")
    script.reply("It is nine in Paris.", to="what's the time in Paris")
    log = run_scenario(script)
    assert log.targets == [U, P, U, P, A, L]
    assert log.causes[2] == "speech_resumed" and log.transitions[2].cancels == ("llm",)
    assert {t.turn_id for t in log.transitions} == {1}
    assert [x.text for x in log.of(PublishUserText)] == [
        "what's the time",
        "what's the time in Paris",
    ]
    assert [x.messages[-1].content for x in log.of(c.StartLlm)] == [
        "what's the time",
        "what's the time in Paris",
    ]
    assert [(m.role, m.content) for m in log.machine.history.messages[1:]] == [
        ("user", "what's the time in Paris"),
        ("assistant", "It is nine in Paris."),
    ]
    # Tokens of the cancelled run at 3.1 and 3.15 arrive (cancel lag) and are dropped.
    dropped = log.machine.dropped_events
    assert [type(x) for x in dropped] == [e.LlmToken, e.LlmToken]
    assert log.of(c.Synthesize)[0].text == "It is nine in Paris."


def test_a_hands_free_span_knows_when_the_speech_really_ended() -> None:
    script = Script()
    script.user_speech(1.0, 2.0, "what's the time")  # endpointer fires 0.6 s later
    script.reply("Nine.")
    log = run_scenario(script)
    (span,) = log.spans
    assert span.marks["speech_end"] == pytest.approx(2.0)
    assert span.marks["endpoint"] == pytest.approx(2.6)
    assert span.since_endpoint_ms("speech_end") == pytest.approx(-600.0)


def test_speech_resumed_while_the_first_segment_is_still_transcribed() -> None:
    script = Script()
    script.user_speech(1.0, 2.0, "what's the time")  # endpoint at 2.6, final at 2.8
    script.user_speech(2.45, 3.0, "in Paris")  # onset at 2.65: the first ASR is in flight
    script.reply("Nine.", to="what's the time in Paris")
    log = run_scenario(script)
    assert log.targets == [U, P, U, P, A, L]
    assert log.transitions[2].cancels == ()
    assert len(log.of(c.StartLlm)) == 1
    assert log.machine.history.messages[1].content == "what's the time in Paris"


def test_a_tool_round_trip_with_speech_during_the_wait() -> None:
    # The LLM answers from the tool's result (a policy: by default the result is spoken).
    script = Script(policy=TurnPolicy(speak_tool_results=False))
    get_time = ToolCall("get_time", {}, "c1")
    script.tool("get_time", "15:00")
    script.user_ptt(0.5, 1.5, "what time is it")
    script.reply(tool_call=get_time)
    script.user_ptt(2.2, 2.8, "in UTC")  # while the tool runs (2.0 .. 2.4)
    script.reply(tool_call=get_time, to="what time is it in UTC")
    script.reply("It is 3 pm.", after_tool="get_time")
    log = run_scenario(script)
    assert log.targets == [U, P, W, U, P, W, P, A, L]
    assert log.causes[2:7] == [
        "tool_call",
        "speech_resumed",
        "ptt_released",
        "tool_call",
        "tool_result",
    ]
    assert log.transitions[3].cancels == ("tool",)
    assert [x.job for x in log.of(c.CancelTool)] == [log.of(c.RunTool)[0].job]
    continuation = log.of(c.StartLlm)[-1].messages
    assert [(m.role, m.content) for m in continuation[1:]] == [
        ("user", "what time is it in UTC"),
        ("assistant", ""),
        ("tool", "15:00"),
    ]
    assert continuation[2].tool_call == get_time
    history = log.machine.history.messages
    assert [m.role for m in history] == ["system", "user", "assistant", "tool", "assistant"]
    assert history[-1].content == "It is 3 pm."


def test_barge_in_mid_sentence_records_exactly_what_was_heard() -> None:
    log = run_scenario(_story_cut_by_stop())
    assert log.targets == [U, P, A, INT, U, P, A, L]
    barge = log.transitions[3]
    assert (barge.cause, barge.at_s, barge.cancels, barge.turn_id) == (
        "barge_in_ptt",
        4.0,
        ("playback",),
        1,
    )
    assert (log.transitions[4].cause, log.transitions[4].turn_id) == ("floor_to_user", 2)
    # Chunk 1 started at 3.4825 s; at 4.0 s + 30 ms fade, 8760 of its samples played:
    # 'was' spans 6800..9800 (65% played), 'a' starts at 10800.
    heard = log.turn(1).heard
    assert heard is not None
    assert heard.heard_text == "Once upon a time, there was"
    assert heard.unheard_text == "a fox. It was red and clever."
    assert heard.cut_at_s == pytest.approx((19400 + 8760) / 16000)
    assert [(m.role, m.content, m.interrupted) for m in log.machine.history.messages[1:]] == [
        ("user", "tell me a story", False),
        ("assistant", "Once upon a time, there was", True),
        ("user", "stop", False),
        ("assistant", "Okay.", False),
    ]
    recording = [x for x in log.of(c.StartRecording) if x.turn_id == 2]
    assert [x.from_s for x in recording] == [4.0]
    span = log.spans[0]
    assert span.barge_in_to_silence_ms() == pytest.approx(30.0)


def test_after_a_barge_in_the_next_prompt_has_the_heard_words_and_the_note_only() -> None:
    log = run_scenario(_story_cut_by_stop())
    prompt = [x for x in log.of(c.StartLlm) if x.turn_id == 2][-1].messages
    assert [(m.role, m.content) for m in prompt[1:]] == [
        ("user", "tell me a story"),
        ("assistant", "Once upon a time, there was"),
        ("system", INTERRUPTED_NOTE),
        ("user", "stop"),
    ]
    unheard = log.turn(1).heard.unheard_text  # type: ignore[union-attr]
    assert unheard == "a fox. It was red and clever."
    assert not any("fox" in m.content for m in prompt)


def test_a_stale_tts_chunk_after_barge_in_is_never_played() -> None:
    script = Script(tts_s=0.5)
    script.user_ptt(0.5, 1.5, "tell me a story")
    script.reply(STORY)
    script.user_ptt(3.0, 3.5, "stop")  # chunk 1 is being synthesised (2.65 .. 3.15)
    log = run_scenario(script)
    # "stop" gets no reply from the model: the assistant says it did not catch that.
    assert log.targets == [U, P, A, INT, U, P, A, L]
    barge = log.transitions[3]
    assert barge.cancels == ("playback", "tts")
    cancel = log.of(c.CancelTts)
    assert [x.jobs for x in cancel] == [tuple(x.job for x in log.of(c.Synthesize)[1:3])]
    stale = [x for x in log.machine.dropped_events if isinstance(x, e.TtsChunkReady)]
    assert [(x.turn_id, x.chunk_index, x.at_s) for x in stale] == [(1, 1, pytest.approx(3.15))]
    assert [x.chunk_index for x in log.of(c.PlayChunk) if x.turn_id == 1] == [0]
    heard = log.turn(1).heard
    assert heard is not None
    assert heard.heard_text == "Once"
    assert heard.unheard_text == "upon a time, there was a fox. It was red and clever."


def test_an_llm_failure_apologises_and_listens_again() -> None:
    script = Script()
    script.user_ptt(0.5, 1.5, "hello")
    script.reply(fail_code="llm_error")
    script.user_ptt(5.0, 6.0, "hello again")
    script.reply("Hi!")
    log = run_scenario(script)
    assert log.targets == [U, P, E, L, U, P, A, L]
    assert log.causes[2:4] == ["llm_failed", "apology_done"]
    assert [(x.turn_id, x.text) for x in log.of(c.SpeakApology)] == [
        (1, "Sorry, I lost that. Could you say it again?")
    ]
    assert [t.turn_id for t in log.transitions[4:]] == [2, 2, 2, 2]
    assert [m.content for m in log.machine.history.messages[1:]] == ["hello again", "Hi!"]


def test_a_stage_timeout_fails_the_turn() -> None:
    script = Script(policy=TurnPolicy(llm_first_token_timeout_s=3.0, filler_after_s=0))
    script.user_ptt(0.5, 1.5, "hello")
    script.reply(hang=True)
    log = run_scenario(script)
    assert log.targets == [U, P, E, L]
    error = log.transitions[2]
    assert (error.cause, error.at_s, error.cancels) == ("llm_timeout", pytest.approx(4.7), ("llm",))
    assert [(x.stage, x.seconds) for x in log.of(c.StartTimer)][:2] == [
        (Stage.ASR, 10.0),
        (Stage.LLM, 3.0),
    ]
    assert log.machine.history.exchanges == 0


def test_hands_free_backchannel_ducks_then_resumes() -> None:
    script = Script()
    script.user_speech(0.5, 1.5, "tell me a story")
    script.reply(STORY)
    script.user_speech(3.5, 3.8, "mm-hmm", backchannel=True)
    log = run_scenario(script)
    assert log.targets == [U, P, A, L]
    kinds = [k for k in log.kinds() if k in ("DuckPlayback", "ResumePlayback", "FlushPlayback")]
    assert kinds == ["DuckPlayback", "ResumePlayback"]
    assert log.turn(1).heard_text == STORY


def test_hands_free_real_barge_in_records_from_the_onset() -> None:
    script = Script()
    script.user_speech(0.5, 1.5, "tell me a story")
    script.reply(STORY)
    script.user_speech(3.5, 4.2, "wait stop")
    script.reply("Sure.", to="wait stop")
    log = run_scenario(script)
    assert log.targets == [U, P, A, INT, U, P, A, L]
    assert log.causes[3] == "barge_in_voice" and log.transitions[3].at_s == pytest.approx(4.0)
    assert [k for k in log.kinds() if k.endswith("Playback")][:2] == [
        "DuckPlayback",
        "FlushPlayback",
    ]
    assert [x.from_s for x in log.of(c.StartRecording)] == [0.5, 3.5]
    assert log.turn(2).user_text == "wait stop"


def test_speculative_start_is_kept_when_the_final_matches() -> None:
    script = Script()
    script.user_ptt(0.5, 2.0, "What is the weather?")
    script.partial(1.8, "what is the weather", trailing_silence_s=0.4)
    script.reply("It is sunny.")
    log = run_scenario(script)
    assert log.targets == [U, P, A, L]
    assert [x.speculative for x in log.of(c.StartLlm)] == [True]
    assert log.of(c.CancelLlm) == []
    span = log.spans[0]
    assert span.since_endpoint_ms("llm_first_token") == pytest.approx(200.0)  # not 500
    assert log.turn(1).heard_text == "It is sunny."


def test_speculative_start_is_restarted_when_the_final_differs() -> None:
    script = Script()
    script.user_ptt(0.5, 2.0, "what is the weather")
    script.partial(1.8, "what is the whether", trailing_silence_s=0.4)
    script.reply("Rainy.", to="what is the whether")
    script.reply("It is sunny.")
    log = run_scenario(script)
    assert log.targets == [U, P, A, L]
    starts = log.of(c.StartLlm)
    assert [(x.speculative, x.messages[-1].content) for x in starts] == [
        (True, "what is the whether"),
        (False, "what is the weather"),
    ]
    assert [x.job for x in log.of(c.CancelLlm)] == [starts[0].job]
    assert log.turn(1).heard_text == "It is sunny."
    assert log.machine.history.messages[-1] == ChatMessage(role="assistant", content="It is sunny.")


def test_a_speculation_that_stops_matching_is_cancelled_before_the_endpoint() -> None:
    script = Script()
    script.user_ptt(0.5, 2.5, "what is the weather")
    script.partial(1.2, "what is", trailing_silence_s=0.4)
    script.partial(2.2, "what is the weather", stable=False, trailing_silence_s=0.0)
    script.reply("It is sunny.")
    log = run_scenario(script)
    starts = log.of(c.StartLlm)
    assert [(x.speculative, x.messages[-1].content) for x in starts] == [
        (True, "what is"),
        (False, "what is the weather"),
    ]
    assert [(t, x.job) for t, x in log.commands if isinstance(x, c.CancelLlm)] == [
        (2.2, starts[0].job)
    ]


def test_a_slow_first_token_gets_a_filler_that_is_not_recorded() -> None:
    script = Script(first_token_s=1.5)
    script.user_ptt(0.5, 1.5, "what is the capital of france")
    script.reply("Paris.")
    log = run_scenario(script)
    assert log.targets == [U, P, A, L]
    said = [x.text for x in log.of(c.Synthesize)]
    assert said == ["One moment.", "Paris."]
    span = log.machine.completed_spans[-1]
    assert span.marks["filler"] == pytest.approx(span.marks["asr_final"] + 0.7, abs=0.01)
    assert log.turn(1).heard.heard_text == "Paris."  # type: ignore[union-attr]
    assert log.machine.history.messages[-1].content == "Paris."


def test_a_barge_in_cuts_the_filler_and_the_reply_behind_it() -> None:
    script = Script(first_token_s=3.0)
    script.user_ptt(0.5, 1.5, "tell me a story")
    script.reply(STORY)
    script.user_ptt(3.0, 3.5, "stop")  # while "One moment." plays, before the first token
    log = run_scenario(script)
    assert log.targets[:4] == [U, P, A, INT]
    assert log.turn(1).heard.heard_text == ""  # type: ignore[union-attr]
    assert not any("fox" in m.content for m in log.machine.history.messages)


def test_while_a_tool_answer_plays_the_next_prompt_is_known_as_if_heard_whole() -> None:
    """The runtime evaluates it in the idle LLM while the answer plays: after a tool's own
    sentence, which no model wrote, the exchange is new to both models."""
    script = Script()
    script.tool("get_time", "It is 3 pm.")
    script.user_ptt(0.5, 1.5, "what time is it")
    script.reply(tool_call=ToolCall("get_time", {}, "c1"))
    log = run_scenario(script)
    assert log.targets[-2:] == [A, L]
    speaking_from = next(t.at_s for t in log.transitions if t.target is A)
    ended_at = log.transitions[-1].at_s
    (first_at, turn, start), *_ = log.heard_whole
    assert turn == 1 and speaking_from <= first_at < ended_at  # known while it plays
    assert start == log.machine.history.prompt(())  # what the next turn's prompt starts with
    assert [m.role for m in start] == ["system", "user", "assistant", "tool", "assistant"]


def test_a_reply_cut_short_is_recorded_as_heard_not_as_anticipated() -> None:
    log = run_scenario(_story_cut_by_stop())
    anticipated = [p for _, turn, p in log.heard_whole if turn == 1]
    assert anticipated and "red and clever" in anticipated[0][-1].content  # all of it
    history = log.machine.history.messages
    assert history[2].content == "Once upon a time, there was"  # what was heard
