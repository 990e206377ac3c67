"""Timelines: a reply never claims an action that no tool of the turn took (core.tools.claimed)."""

from __future__ import annotations

from desktop_agent.core.ports import ToolCall
from desktop_agent.core.turns import commands as c
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.states import State
from tests.core.turns.scenario import Script, run_scenario

L, U, P = State.LISTENING, State.USER_SPEAKING, State.PROCESSING
W, A = State.WAITING_FOR_TOOL, State.ASSISTANT_SPEAKING
DID_NOT_RUN = ("Sorry, I didn't do that: the set volume tool did not run, so nothing has "
               "changed.")


def _spoken(log: object) -> list[str]:
    return [x.text for x in log.of(c.Synthesize)]  # type: ignore[attr-defined]


def test_a_request_no_tool_can_do_is_said_so() -> None:
    script = Script()
    script.user_ptt(0.5, 1.5, "Book a table for two at eight.")
    script.reply("Sure, I've booked a table for two at eight.")
    log = run_scenario(script)
    assert _spoken(log) == [
        "Sure,", "Sorry, I can't book a table for two at eight from here, so nothing has changed."]


def test_a_claimed_action_with_no_tool_is_never_spoken() -> None:
    script = Script()
    script.user_ptt(0.5, 1.5, "Set the volume to thirty percent.")
    script.reply("I'm setting the volume to thirty percent. It should sound quieter now.")
    log = run_scenario(script)
    assert log.targets == [U, P, A, L]
    assert _spoken(log) == [DID_NOT_RUN]
    run = log.of(c.StartLlm)[0].job
    assert [x.job for x in log.of(c.CancelLlm)] == [run]  # the rest of the run is not wanted
    assert log.turn(1).heard_text == DID_NOT_RUN
    assert log.machine.history.messages[-1].content == DID_NOT_RUN
    assert log.unscripted == []


def test_what_was_said_before_the_claim_stays_and_the_claim_is_replaced() -> None:
    script = Script()
    script.user_ptt(0.5, 1.5, "Open example dot org in the browser.")
    script.reply("Sure, opening example dot org for you. Enjoy!")
    log = run_scenario(script)
    assert _spoken(log) == [
        "Sure,",
        "Sorry, I didn't do that: the open location tool did not run, so nothing has changed.",
    ]
    assert log.targets == [U, P, A, L]


def test_a_parroted_request_is_not_spoken() -> None:
    script = Script()
    script.user_ptt(0.5, 1.5, "Open example dot org in the browser.")
    script.reply("Open example dot org in the browser.")  # what the 0.5B said (issue 21)
    log = run_scenario(script)
    assert _spoken(log) == [
        "Sorry, I didn't do that: the open location tool did not run, so nothing has changed."]


def test_when_a_tool_exists_the_reply_says_it_did_not_run() -> None:
    script = Script()
    script.user_ptt(0.5, 1.5, "remind me to call mum at 5 pm")
    script.reply("Done, I've set a reminder to call mum at 5 pm.")
    log = run_scenario(script)
    assert _spoken(log) == [
        "Sorry, I didn't do that: the set reminder tool did not run, so nothing has changed."]


def test_after_a_tool_answered_the_model_may_say_what_it_did() -> None:
    script = Script(policy=TurnPolicy(speak_tool_results=False))
    call = ToolCall("set_volume", {"setting": "30%"}, "c1")
    script.tool("set_volume", "The volume is now 30 percent.")
    script.user_ptt(0.5, 1.5, "Set the volume to thirty percent.")
    script.reply(tool_call=call)
    script.reply("Done, I've set the volume to 30 percent.", after_tool="set_volume")
    log = run_scenario(script)
    assert log.targets == [U, P, W, P, A, L]
    assert _spoken(log) == ["Done,", "I've set the volume to 30 percent."]


def test_a_tool_that_failed_backs_no_claim() -> None:
    script = Script(policy=TurnPolicy(speak_tool_results=False))
    call = ToolCall("set_volume", {"setting": "30%"}, "c1")
    script.tool("set_volume", "Sorry, there is no sound output to change.", is_error=True)
    script.user_ptt(0.5, 1.5, "Set the volume to thirty percent.")
    script.reply(tool_call=call)
    script.reply("I've set the volume to 30 percent.", after_tool="set_volume")
    log = run_scenario(script)
    assert _spoken(log) == ["Sorry, there is no sound output to change."]  # the tool's why


def test_an_answer_that_claims_nothing_is_spoken_as_it_came() -> None:
    script = Script()
    script.user_ptt(0.5, 1.5, "Set the volume to thirty percent.")
    script.reply("I can't change the volume, but your sound settings can.")
    log = run_scenario(script)
    assert _spoken(log) == ["I can't change the volume,", "but your sound settings can."]
    assert log.of(c.CancelLlm) == []


def test_a_request_for_no_action_may_be_answered_with_what_was_made() -> None:
    script = Script()
    script.user_ptt(0.5, 1.5, "Write a two line poem about the sea.")
    script.reply("I've created a short poem for you: the sea is wide, the sea is blue.")
    log = run_scenario(script)
    assert _spoken(log)[0] == "I've created a short poem for you:"
    assert log.of(c.CancelLlm) == []
