"""Verdict-gated speech in scripted timelines: good, refine, repair (heard / unheard),
working, the cap, a barge-in, and the opening's first audio (see scenario.py)."""

from __future__ import annotations

from desktop_agent.core.reflection.verdict import Judgement, Verdict
from desktop_agent.core.turns import commands as c
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.reports import PublishReflection
from desktop_agent.core.turns.states import State
from tests.core.turns.scenario import Script, run_scenario

L, U, P = State.LISTENING, State.USER_SPEAKING, State.PROCESSING
A, INT = State.ASSISTANT_SPEAKING, State.INTERRUPTED
CHECKABLE = TurnPolicy(reflection="checkable")
QUESTION = "what is 7 times 8"


def script_for(reply: str, *, reflect_s: float = 0.05, policy: TurnPolicy = CHECKABLE,
               question: str = QUESTION) -> Script:
    script = Script(policy=policy, reflect_s=reflect_s)
    script.user_ptt(0.5, 2.5, question)
    script.reply(reply)
    return script


def published(log: object, kind: str) -> list[PublishReflection]:
    return [p for p in log.of(PublishReflection) if p.kind == kind]  # type: ignore[attr-defined]


def test_a_right_opening_is_good_and_the_reply_ends_with_its_audio() -> None:
    log = run_scenario(script_for("Seven times eight is 56."))
    assert log.targets == [U, P, A, L]
    (reflect,) = log.of(c.Reflect)
    assert (reflect.question, reflect.utterance, reflect.round) == (
        QUESTION, "Seven times eight is 56.", 1)
    assert [v.verdict for v in published(log, "verdict")] == ["good"]
    assert published(log, "continuation") == []
    assert log.turn(1).heard_text == "Seven times eight is 56."
    assert log.machine.history.messages[-1].content == "Seven times eight is 56."


def test_reflection_off_sends_no_reflect() -> None:
    log = run_scenario(script_for("Seven times eight is 54.", policy=TurnPolicy()))
    assert log.of(c.Reflect) == []
    assert log.turn(1).heard_text == "Seven times eight is 54."


def test_the_opening_stops_the_speaker_and_refine_flows_on_without_a_correction() -> None:
    # The first sentence has no answer: the speaker is stopped after it (the rest is never
    # said) and the refinement folds the answer in with connective words.
    log = run_scenario(script_for("Let me work that one out. It is a big number."))
    assert "CancelLlm" in log.kinds()
    assert [r.utterance for r in log.of(c.Reflect)] == [
        "Let me work that one out.", "Let me work that one out. So, 7 times 8 is 56."]
    assert [v.verdict for v in published(log, "verdict")] == ["refine", "good"]
    heard = log.turn(1).heard_text
    assert heard == "Let me work that one out. So, 7 times 8 is 56."
    assert "big number" not in heard and "not right" not in heard
    assert log.targets == [U, P, A, L]


def test_a_repair_of_a_heard_error_confesses() -> None:
    # A slow reflector: the wrong opening has played in full when the verdict comes.
    log = run_scenario(script_for("Seven times eight is 54.", reflect_s=3.0))
    (cont,) = published(log, "continuation")
    assert cont.confessed and cont.text == "No, that's not right. 7 times 8 is 56."
    assert log.turn(1).heard_text == (
        "Seven times eight is 54. No, that's not right. 7 times 8 is 56.")
    assert log.machine.history.messages[-1].content == log.turn(1).heard_text
    assert [v.verdict for v in published(log, "verdict")] == ["repair", "good"]


def test_a_repair_cut_before_the_error_was_heard_goes_on_cleanly() -> None:
    # The verdict lands while "Well," plays: "Seven times eight is 54." is never heard, so
    # the continuation gives the right substance without confessing anything.
    log = run_scenario(script_for("Well, seven times eight is 54.", reflect_s=0.35))
    (cont,) = published(log, "continuation")
    assert not cont.confessed
    assert cont.text == "— well, 7 times 8 is 56."
    heard = log.turn(1).heard_text
    assert heard == "Well, — well, 7 times 8 is 56."
    assert "54" not in heard and "not right" not in heard
    assert log.of(c.FlushPlayback) or log.of(c.CancelTts)  # the cut happened


def test_the_gate_follows_the_played_position_not_the_generated_text() -> None:
    # The same words and verdict; only when the verdict lands differs, so only what was
    # heard differs, and with it the confession.
    early = run_scenario(script_for("Well, seven times eight is 54.", reflect_s=0.35))
    late = run_scenario(script_for("Well, seven times eight is 54.", reflect_s=3.0))
    assert [r.utterance for r in early.of(c.Reflect)][0] == \
        [r.utterance for r in late.of(c.Reflect)][0]
    assert [p.confessed for p in published(early, "continuation")] == [False]
    assert [p.confessed for p in published(late, "continuation")] == [True]


def test_working_continues_and_reflects_again_at_the_segment_end() -> None:
    script = script_for("Oslo is a city in the north.", policy=TurnPolicy(reflection="on"),
                        question="tell me about oslo")
    script.verdicts = [Judgement(Verdict.WORKING), Judgement(Verdict.GOOD)]
    script.continuations = ["It is the capital of Norway."]
    log = run_scenario(script)
    assert [r.round for r in log.of(c.Reflect)] == [1, 2]
    assert log.of(c.Reflect)[1].utterance == (
        "Oslo is a city in the north. It is the capital of Norway.")
    (run,) = [s for s in log.of(c.StartLlm) if not s.tools]
    assert "GUIDANCE" not in run.messages[-1].content  # working: a plain continuation
    assert log.turn(1).heard_text == "Oslo is a city in the north. It is the capital of Norway."
    assert log.targets == [U, P, A, L]


def test_the_cap_ends_a_reflector_that_never_settles() -> None:
    script = script_for("Oslo is a city.", policy=TurnPolicy(reflection="on", max_reflections=3),
                        question="tell me about oslo")
    script.verdicts = [Judgement(Verdict.REFINE, "Say more.")] * 5
    script.continuations = ["It is in Norway.", "It is the capital.", "It has a fjord."]
    log = run_scenario(script)
    assert [r.round for r in log.of(c.Reflect)] == [1, 2, 3]
    assert len([s for s in log.of(c.StartLlm) if not s.tools]) == 3
    assert "GUIDANCE: Say more." in [s for s in log.of(c.StartLlm) if not s.tools][0] \
        .messages[-1].content
    assert log.turn(1).heard_text == (
        "Oslo is a city. It is in Norway. It is the capital. It has a fjord.")
    assert log.targets == [U, P, A, L]


def test_a_barge_in_cancels_the_whole_loop() -> None:
    script = script_for("Seven times eight is 54.", reflect_s=5.0)
    script.user_ptt(3.6, 4.5, "never mind")
    script.reply("Okay.", to="never mind")
    log = run_scenario(script)
    (reflect,) = log.of(c.Reflect)
    assert any(isinstance(x, c.CancelLlm) and x.job == reflect.job for x in log.of(c.CancelLlm))
    assert published(log, "verdict") == [] and published(log, "continuation") == []
    assert log.targets[:5] == [U, P, A, INT, U]
    first = log.turn(1).heard_text
    assert first and "Seven times eight is 54.".startswith(first.rstrip("."))
    assert log.machine.history.messages[2].content == first


def test_the_opening_plays_as_soon_as_a_plain_reply_would() -> None:
    # The opening never waits for the reflector (here a slow one, 2 s).
    for opening in ("Seven times eight is 56.", "Let me see. Seven times eight is 54."):
        plain = run_scenario(script_for(opening, policy=TurnPolicy()))
        gated = run_scenario(script_for(opening, reflect_s=2.0))
        assert gated.spans[0].marks["first_audio"] == plain.spans[0].marks["first_audio"]
        assert gated.of(c.Reflect)[0].utterance.startswith("Let me see." if "see" in opening
                                                            else "Seven")


def test_a_sentence_task_tries_again_once_then_says_it_cannot() -> None:
    # No writer: a broken word count is repaired by the model's new attempt. Greedy, a
    # second failed attempt would be the same sentence again; it is not said a third time.
    script = script_for("Cats are soft.", question="give me a sentence of exactly five words "
                        "about cats", policy=TurnPolicy(reflection="checkable",
                                                        max_reflections=3))
    script.continuations = ["Cats sleep in the warm sun all day."] * 3
    log = run_scenario(script)
    assert [v.verdict for v in published(log, "verdict")] == ["repair", "repair"]
    assert [p.text for p in published(log, "continuation")] == [
        "No, that's not right.", "Sorry, I can't get that one right."]
    assert log.turn(1).heard_text == (
        "Cats are soft. No, that's not right. Cats sleep in the warm sun all day. "
        "Sorry, I can't get that one right.")
    assert len([s for s in log.of(c.StartLlm) if not s.tools]) == 1
    assert log.targets == [U, P, A, L]


def test_a_new_attempt_that_keeps_the_constraint_is_good() -> None:
    script = script_for("Cats are soft.", question="give me a sentence of exactly five words "
                        "about cats")
    script.continuations = ["Cats sleep in the sun."]
    log = run_scenario(script)
    assert [v.verdict for v in published(log, "verdict")] == ["repair", "good"]
    assert log.turn(1).heard_text == (
        "Cats are soft. No, that's not right. Cats sleep in the sun.")


def test_a_word_problem_answered_through_the_calculator_is_still_checked() -> None:
    # The calculator's arithmetic is exact, but the setup is the model's: "2.5 * 6" for a
    # week. The word problem's own computations judge the spoken answer all the same.
    from desktop_agent.core.ports import ToolCall

    question = "I walk 2.5 miles a day. How many miles is that in a week?"
    script = Script(policy=TurnPolicy(reflection="checkable", speak_tool_results=False),
                    reflect_s=3.0)
    calc = ToolCall("calculate", {"expression": "2.5 * 6"}, "c1")
    script.tool("calculate", "15")
    script.user_ptt(0.5, 2.5, question)
    script.reply(tool_call=calc)
    script.reply("You walk 15 miles a week.", after_tool="calculate")
    script.verdicts = [Judgement(Verdict.REPAIR, "15 is wrong: 2.5 times 7 is 17.5 miles.",
                                 "2.5 times 7 is 17.5 miles", 2, "word_problem")]
    log = run_scenario(script)
    assert [r.utterance for r in log.of(c.Reflect)][0] == "You walk 15 miles a week."
    assert log.turn(1).heard_text == (
        "You walk 15 miles a week. No, that's not right. 2.5 times 7 is 17.5 miles.")


def test_a_question_answered_by_a_read_tool_is_not_reflected() -> None:
    # The tool's result is the external check of a question that is no word problem.
    from desktop_agent.core.ports import ToolCall

    script = Script(policy=TurnPolicy(reflection="on", speak_tool_results=False))
    script.tool("get_time", "15:00")
    script.user_ptt(0.5, 1.5, "what time is it")
    script.reply(tool_call=ToolCall("get_time", {}, "c1"))
    script.reply("It is 3 pm.", after_tool="get_time")
    log = run_scenario(script)
    assert log.of(c.Reflect) == []
    assert log.turn(1).heard_text == "It is 3 pm."


def test_a_lists_first_number_does_not_end_the_opening() -> None:
    # "... these steps: 1." is no sentence: the opening runs on to the step itself.
    script = script_for("To find it, we need to follow these steps: 1. Multiply 7 by 8, "
                        "which is 56. Then we are done.")
    log = run_scenario(script)
    assert [r.utterance for r in log.of(c.Reflect)][0] == (
        "To find it, we need to follow these steps: 1. Multiply 7 by 8, which is 56.")
    after_colon = run_scenario(script_for("To put it simply, the product is: 56. And that is "
                                          "all there is to it."))
    assert [r.utterance for r in after_colon.of(c.Reflect)][0] == (
        "To put it simply, the product is: 56.")


def _calculator_script(verdicts: list[Judgement]) -> Script:
    from desktop_agent.core.ports import ToolCall

    # The call ran (its numbers are the user's), and its own sentence is the answer.
    script = Script(policy=TurnPolicy(reflection="checkable"), reflect_s=3.0)
    script.tool("calculate", "3 times 24 is 72.")
    script.user_ptt(0.5, 2.5, "I have 3 boxes of 24 and give away 5. How many are left?")
    script.reply(tool_call=ToolCall("calculate", {"expression": "3 * 24"}, "c1"))
    script.verdicts = verdicts
    return script


def test_a_word_problem_answered_by_the_calculators_own_sentence_is_judged() -> None:
    log = run_scenario(_calculator_script([Judgement(
        Verdict.REPAIR, "72 is wrong: 3 times 24 minus 5 is 67.", "3 times 24 minus 5 is 67",
        4, "word_problem")]))
    assert [r.utterance for r in log.of(c.Reflect)][0] == "3 times 24 is 72."
    assert log.turn(1).heard_text == (
        "3 times 24 is 72. No, that's not right. 3 times 24 minus 5 is 67.")
    assert log.targets[-1] is L
    good = run_scenario(_calculator_script([Judgement(Verdict.GOOD)]))
    assert good.turn(1).heard_text == "3 times 24 is 72."
    assert good.targets == [U, P, State.WAITING_FOR_TOOL, A, L]


def test_a_tools_sentence_for_no_word_problem_is_not_judged_even_when_all_reflects() -> None:
    from desktop_agent.core.ports import ToolCall

    script = Script(policy=TurnPolicy(reflection="on"), reflect_s=3.0)
    script.tool("get_time", "It's 3 pm.")
    script.user_ptt(0.5, 1.5, "what time is it")
    script.reply(tool_call=ToolCall("get_time", {}, "c1"))
    log = run_scenario(script)
    assert log.of(c.Reflect) == []
    assert log.turn(1).heard_text == "It's 3 pm."
