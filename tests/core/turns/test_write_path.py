"""The write path: the model proposes, the app reads back, only a confirmation executes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.confirm import Answer, classify
from desktop_agent.core.turns import commands as c
from desktop_agent.core.turns.reply import NOT_CAUGHT
from desktop_agent.core.turns.reports import PublishAction
from desktop_agent.core.turns.states import ToolMode

from .write_rig import Rig


def note(text: str) -> ToolCall:
    return ToolCall("add_note", {"text": text})


def llm(user: str) -> str | ToolCall:
    """The fake model: 'note X' proposes a note, 'timer X' a timer, else a sentence."""
    if user.startswith("note"):
        return note(user[5:])
    if user.startswith("timer "):
        return ToolCall("set_timer", {"duration": user[6:]})
    if user == "what time is it":
        return ToolCall("get_current_time", {})
    return "A plain answer."


def modes(rig: Rig) -> list[ToolMode]:
    return [x.mode for x in rig.log if isinstance(x, c.RunTool)]


def pending_kinds(rig: Rig) -> list[tuple[str, str]]:
    return [(x.kind, x.outcome) for x in rig.log if isinstance(x, PublishAction)]


def test_a_write_is_read_back_from_the_action_and_runs_only_after_yes() -> None:
    rig = Rig(llm)
    said = rig.say("note buy milk")
    assert said == "Add a note: buy milk. Shall I?"
    assert modes(rig) == [ToolMode.PREPARE] and not rig.executed
    assert pending_kinds(rig) == [("pending", "")]
    assert rig.machine.pending_action(rig.t) is not None
    said = rig.say("Yes.")
    assert [dict(x.action.args) for x in rig.executed] == [{"text": "buy milk"}]
    assert said == "Done: add_note {'text': 'buy milk'}."
    assert rig.executed[0].key.startswith("test:")
    assert pending_kinds(rig) == [("pending", ""), ("executed", "")]
    assert rig.last(PublishAction).result == said
    assert rig.machine.pending_action(rig.t) is None
    # A repeated "yes" is an ordinary word now: it executes nothing.
    rig.say("yes")
    assert len(rig.executed) == 1


def test_no_cancels_and_unclear_asks_once_more_then_drops() -> None:
    rig = Rig(llm)
    rig.say("note call mum")
    assert rig.say("no") == "Okay, I won't."
    rig.say("note call dad")
    assert rig.say("hmm what") == "Say yes to add it, or no."
    assert rig.say("maybe") == "I'll leave it, then."
    assert rig.say("yes") == "A plain answer."  # nothing pending any more
    assert not rig.executed
    assert [k for k in pending_kinds(rig) if k[0] == "cleared"] == [
        ("cleared", "cancelled"), ("cleared", "dropped")]


def test_a_late_yes_does_nothing_and_says_so() -> None:
    rig = Rig(llm)
    rig.say("note buy milk")
    rig.advance(31.0)
    said = rig.say("yes")
    assert "expired" in said and not rig.executed
    assert ("cleared", "expired") in pending_kinds(rig)
    assert rig.say("yes") == "A plain answer."  # told once; then "yes" is a word again


def test_a_change_is_read_back_again_and_the_new_action_runs() -> None:
    rig = Rig(llm)
    rig.say("timer 5 minutes")
    said = rig.say("Make it 10 minutes.")
    assert said == "Set a timer for 10 minutes?"
    revise = [x for x in rig.log if isinstance(x, c.RunTool) and x.mode is ToolMode.REVISE]
    assert revise[0].text == "Make it 10 minutes." and revise[0].action is not None
    rig.say("yes")
    assert [dict(x.action.args) for x in rig.executed] == [{"duration": "10 minutes"}]


def test_a_new_request_replaces_the_pending_action_and_says_so() -> None:
    rig = Rig(llm)
    rig.say("note one")
    said = rig.say("note two")
    assert said.startswith("That replaces the earlier request.")
    assert ("cleared", "replaced") in pending_kinds(rig)
    rig.say("yes")
    assert [dict(x.action.args) for x in rig.executed] == [{"text": "two"}]


def test_speech_that_is_not_an_answer_has_no_authority() -> None:
    rig = Rig(llm)
    rig.say("note delete all notes")
    assert rig.say("tell me about the weather today") == "A plain answer."
    assert not rig.executed and rig.machine.pending_action(rig.t) is not None
    rig.say("yes")
    assert len(rig.executed) == 1


def test_the_card_buttons_answer_without_asr_or_llm() -> None:
    rig = Rig(llm)
    rig.say("note buy milk")
    starts = len([x for x in rig.log if isinstance(x, c.StartLlm)])
    said = rig.press(confirm=True)
    assert said.startswith("Done") and len(rig.executed) == 1
    assert len([x for x in rig.log if isinstance(x, c.StartLlm)]) == starts
    assert rig.machine.history.messages[-2].content == "[pressed Confirm]"
    assert rig.press(confirm=True) == "There's nothing waiting to be confirmed."
    assert len(rig.executed) == 1
    rig.say("note eggs")
    assert rig.press(confirm=False) == "Okay, I won't."
    assert len(rig.executed) == 1


def test_a_bad_write_call_goes_back_to_the_model_not_to_the_user() -> None:
    rig = Rig(llm)
    said = rig.say("note")
    assert said == "Sorry about that."
    prompt = rig.last(c.StartLlm).messages
    assert prompt[-1].role == "tool" and "needs the text" in prompt[-1].content
    assert rig.machine.pending_action(rig.t) is None and not rig.executed


def test_a_read_tool_result_is_spoken_as_is() -> None:
    rig = Rig(llm)
    assert rig.say("what time is it") == "get_current_time says hello."
    assert modes(rig) == [ToolMode.RUN]


def test_nothing_speakable_from_the_model_is_never_silence() -> None:
    rig = Rig(lambda _user: "  ")
    assert rig.say("eight of spades") == NOT_CAUGHT


@pytest.mark.parametrize(("text", "answer"), [
    ("Yes.", Answer.YES), ("yeah, go ahead", Answer.OTHER), ("Okay!", Answer.YES),
    ("yes please", Answer.YES), ("No thanks.", Answer.NO), ("never mind", Answer.NO),
    ("thanks", Answer.UNCLEAR), ("um", Answer.UNCLEAR), ("what?", Answer.UNCLEAR),
    ("make it 6 pm", Answer.OTHER), ("yes, but at 6", Answer.OTHER),
    ("delete all notes", Answer.OTHER), ("what's the weather like today", Answer.OTHER),
    ("yes no", Answer.UNCLEAR), ("note two", Answer.OTHER), ("", Answer.UNCLEAR),
])
def test_classify(text: str, answer: Answer) -> None:
    assert classify(text) is answer


# --- the property: no write without an unexpired confirmation of exactly that action ---------

_STEPS = st.lists(st.one_of(
    st.tuples(st.just("say"), st.sampled_from([
        "yes", "no", "okay", "hmm", "note milk", "note eggs", "timer 5 minutes",
        "make it 10 minutes", "tell me a joke", "what time is it", "yes please", "cancel",
        "what", "maybe"])),
    st.tuples(st.just("advance"), st.floats(min_value=0.0, max_value=40.0)),
    st.tuples(st.just("press"), st.booleans()),
), max_size=25)


@settings(max_examples=200, deadline=None)
@given(_STEPS)
def test_no_write_ever_runs_without_a_live_confirmation_of_exactly_that_action(
        steps: list[tuple[str, Any]]) -> None:
    rig = Rig(llm)
    for kind, arg in steps:
        before = rig.machine.pending_action(rig.t)
        n = len(rig.executed)
        if kind == "advance":
            rig.advance(arg)
            continue
        if kind == "press":
            rig.press(arg)
            confirmed = arg
        else:
            rig.say(arg)
            confirmed = classify(arg) is Answer.YES
        new = rig.executed[n:]
        assert len(new) <= 1
        if new:
            # Executed only on a confirmation, of the action that was pending and unexpired
            # at that moment, exactly as stored and read back.
            assert confirmed and before is not None
            assert new[0].action == before.action and new[0].key == before.key
    keys = [x.key for x in rig.executed]
    assert len(keys) == len(set(keys))
