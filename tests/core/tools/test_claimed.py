"""The claimed-action rule (core.tools.claimed): what counts as saying an action was taken."""

from __future__ import annotations

import pytest

from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.claimed import (
    asks_action,
    claims_action,
    echoes_request,
    request_verb_phrase,
    tool_for,
    unbacked_reply,
)
from desktop_agent.core.tools.tool_def import Catalog


@pytest.mark.parametrize("clause", [
    "I'm setting the volume to thirty percent.",
    "Opening example.org",
    "Done, I've paused it.",
    "Sure! Setting the volume to 30%.",
    "Okay, I'll pause the music.",
    "I will open the browser for you.",
    "I'm going to turn it down.",
    "Let me mute that for you.",
    "I've just launched the calculator.",
    "The volume has been set to 30 percent.",
    "The music is now paused.",
    "I have gone ahead and opened your tax folder.",
    "All done!",
])
def test_a_claimed_action_is_seen(clause: str) -> None:
    assert claims_action(clause)


@pytest.mark.parametrize("clause", [
    "The capital of France is Paris.",
    "I can't set the volume from here.",
    "I'm not able to open apps.",
    "Shall I open it?",
    "Do you want me to turn it down?",
    "Let me start with the basics.",
    "Let me know if you need anything else.",
    "I think so.",
    "I'm sorry to hear that.",
    "Setting up a garden is easy.",
    "You can set the volume in the sound settings.",
    "I've written a short poem for you.",
    "Let me add that the tower was built in 1889.", "Let me put it simply:",
    "Let me set the scene.", "I'll put it this way:",
    "Saving money starts with a simple budget.", "Sending an email goes through SMTP servers.",
    "",
])
def test_an_answer_that_claims_nothing_is_not_a_claim(clause: str) -> None:
    assert not claims_action(clause)


def test_a_parroted_request_is_a_claim() -> None:
    request = "Open example dot org in the browser."
    assert echoes_request("Open example dot org in the browser.", request)
    assert claims_action("Open example dot org in the browser.", request)
    assert claims_action("open example.org in the browser", request)  # 6 of its 7 words
    assert not claims_action("Open a browser and type the address.", request)  # 3 of 7
    # the first chunk of a parroted sentence, cut before its end (the 0.5B, issue 21)
    assert claims_action("Open the example dot", request)
    assert not claims_action("Open your browser and type example dot org.", request)
    assert not echoes_request("Paris is the capital of France.", "what's the capital of France")
    # a question is not an imperative: repeating its words claims nothing
    assert not claims_action("What is the capital of France?", "what is the capital of France")


def test_a_request_parroted_after_an_acknowledgement_is_a_claim() -> None:
    # the 0.5B in a fresh-clone CI run, with no volume tool: "Sure, set the volume to thirty
    # percent." was heard whole, its first clause "Sure," claiming nothing alone
    request = "Set the volume to thirty percent."
    assert claims_action("Sure, set the volume to thirty percent.", request)
    assert claims_action("Of course! Set the volume to thirty percent.", request)
    assert claims_action("Okay, sure, set the volume to thirty percent", request)
    assert not claims_action("Sure, open the sound settings and drag the slider.", request)


def test_the_request_s_own_words_say_what_cannot_be_done() -> None:
    assert request_verb_phrase("Set the volume to thirty percent.") == \
        "set the volume to thirty percent"
    assert request_verb_phrase("Could you please open example dot org?") == \
        "open example dot org"
    assert request_verb_phrase("what's playing?") == ""
    no_volume = Catalog([t for t in BUILTIN if t.name != "set_volume"])  # before it existed
    assert unbacked_reply("Set the volume to thirty percent.", no_volume) == (
        "Sorry, I can't set the volume to thirty percent from here, so nothing has changed.")
    assert unbacked_reply("hmm, that thing") == (
        "Sorry, I can't do that from here, so nothing has changed.")


def test_when_a_tool_exists_the_reply_says_it_did_not_run() -> None:
    assert tool_for("remind me to call mum at 5 pm") == "set_reminder"
    assert tool_for("set the volume to thirty percent") != "set_timer"  # 'set' is not enough
    assert unbacked_reply("remind me to call mum at 5 pm") == (
        "Sorry, I didn't do that: the set reminder tool did not run, so nothing has changed.")
    assert unbacked_reply("Set the volume to thirty percent.") == (
        "Sorry, I didn't do that: the set volume tool did not run, so nothing has changed.")
    # an app without that tool (a headless run with only the clock) says it cannot
    assert unbacked_reply("Set the volume to thirty percent.",
                          available=frozenset({"get_current_time"})) == (
        "Sorry, I can't set the volume to thirty percent from here, so nothing has changed.")


@pytest.mark.parametrize(("request_", "asks"), [
    ("Set the volume to thirty percent.", True), ("Can you make it quieter?", True),
    ("Book a table for two at eight.", True), ("remind me to call mum at 5 pm", True),
    ("Open example dot org in the browser.", True),
    ("Write a poem about the sea", False), ("Tell me about Paris", False),
    ("what's the weather tomorrow", False),
    ("What is a good way to save money?", False), ("Explain how email is sent", False),
    ("Write a poem about turning off the lights", False),
    ("it's too loud in here", True), ("Could you open Firefox?", True),
    ("I'd like you to book a table for two", True), ("I need you to send Anna a text", True),
])
def test_only_a_request_that_could_ask_for_an_action_is_guarded(request_: str,
                                                                asks: bool) -> None:
    assert asks_action(request_) is asks
