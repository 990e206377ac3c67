"""The volume tool's rules (core.tools.volume): offer, words, the change, the answer."""

from __future__ import annotations

import pytest

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.volume import (
    STEP,
    VolumeChange,
    VolumeState,
    asks_volume,
    change_volume,
    parse_change,
    say_state,
    volume_args,
)


class FakeOutput:
    """A sound output in memory: what ``change_volume`` asks of it, and its state."""

    def __init__(self, percent: int = 40, muted: bool = False) -> None:
        self.now = VolumeState(percent, muted)

    def state(self) -> VolumeState:
        return self.now

    def set_percent(self, percent: int) -> None:
        self.now = VolumeState(percent, self.now.muted)

    def set_muted(self, muted: bool) -> None:
        self.now = VolumeState(self.now.percent, muted)


@pytest.mark.parametrize(("text", "setting"), [
    ("Set the volume to thirty percent.", "30 percent"),
    ("turn it down", "down"),
    ("Turn the volume up by twenty.", "up by 20 percent"),
    ("mute the sound", "mute"),
    ("unmute", "unmute"),
    ("turn the sound back on", "unmute"),
    ("make it louder", "up"),
    ("it's too loud", "down"),
    ("seventy-five percent volume", "75 percent"),
    ("put the volume at half", "50 percent"),
    ("volume to max", "100 percent"),
    ("set the volume to 150", "100 percent"),
    ("turn the volume up 10 percent", "up by 10 percent"),
    ("lower the volume 5 percent", "down by 5 percent"),
    ("volume up two notches", "up by 20 percent"),
    ("turn it down to twenty", "20 percent"),
    ("turn the volume all the way down", "0 percent"),
    ("could you turn it down?", "down"),
    ("would you mind turning the volume down", "down"),
])
def test_the_change_is_read_from_the_request(text: str, setting: str) -> None:
    assert asks_volume(text)
    assert volume_args(text) == {"setting": setting}


@pytest.mark.parametrize("text", [
    "set a timer for 5 minutes", "what is the volume of a sphere", "how loud is a jet engine",
    "remind me to turn the oven down at 6", "what's the time",
    "is it bad to listen to music at full volume?", "what does the mute button on a tv do",
    "is 80 percent volume safe for headphones?", "how do I turn the volume up on my phone",
])
def test_other_requests_do_not_ask_for_the_volume(text: str) -> None:
    assert not asks_volume(text)
    assert volume_args(text) is None


def test_parse_change() -> None:
    assert parse_change("30 percent") == VolumeChange("set", 30)
    assert parse_change("30%") == VolumeChange("set", 30)
    assert parse_change("down") == VolumeChange("down", STEP)
    assert parse_change("up by 20 percent") == VolumeChange("up", 20)
    assert parse_change("mute") == VolumeChange("mute")
    assert parse_change("purple") is None


def test_changes_and_the_spoken_level() -> None:
    out = FakeOutput(40)
    assert change_volume(out, "thirty percent") == "The volume is now 30 percent."
    assert change_volume(out, "down") == "The volume is now 20 percent."
    assert change_volume(out, "up by 50") == "The volume is now 70 percent."
    assert change_volume(out, "up by 50") == "The volume is now 100 percent."  # capped
    assert change_volume(out, "mute") == "The sound is muted (the volume is set to 100 percent)."
    assert change_volume(out, "up") == "The volume is now 100 percent."  # up unmutes
    out.set_muted(True)
    assert change_volume(out, "unmute") == "The volume is now 100 percent."
    assert change_volume(FakeOutput(5), "down") == "The volume is now 0 percent."
    assert change_volume(FakeOutput(60), "up 10 percent") == "The volume is now 70 percent."
    assert change_volume(FakeOutput(60), "down two notches") == "The volume is now 40 percent."
    loud = FakeOutput(150)  # set above 100 by something else: "up" never makes it quieter
    assert change_volume(loud, "up") == "The volume is now 150 percent."
    assert change_volume(loud, "down") == "The volume is now 140 percent."
    assert say_state(VolumeState(30, False)) == "The volume is now 30 percent."


def test_words_that_say_no_change_are_an_error_with_a_fix() -> None:
    with pytest.raises(AgentError) as err:
        change_volume(FakeOutput(), "purple")
    assert err.value.code == "volume_setting" and "thirty percent" in err.value.fix
