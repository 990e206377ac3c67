"""The volume tool's rules: which requests ask for it, the change in the user's words, the answer.

"Set the volume to thirty percent", "turn it down", "mute": the ``set_volume`` catalog entry
offers the tool by ``asks_volume``, cuts its one argument (``setting``: the change as said,
"thirty percent", "down", "mute") by ``volume_args``, and runs ``change_volume`` on whatever
``VolumeControl`` the composition root gave it (``adapters/desktop/volume_pactl.py``: the
default sink of PulseAudio or PipeWire). It runs at once (a volume change is undone by the
next one) and says the new level. Pure: stdlib only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Protocol

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.calc_words import replace_number_words
from desktop_agent.core.tools.offers import asks_about_it

STEP: Final = 10
"""Points a plain "up" or "down" moves the volume ("turn it down": 40 -> 30 percent)."""
MAX_PERCENT: Final = 100
"""The highest level set (PulseAudio allows more: that distorts, so it is never asked)."""

_VOLUME: Final = re.compile(r"\b(?:volume|sound|audio|speakers?)\b", re.IGNORECASE)
_LOUDNESS: Final = re.compile(
    r"\b(?:louder|quieter|softer|(?:un)?mute|silence\s+(?:it|the\s+(?:sound|speakers?|audio))"
    r"|turn\s+(?:it|that|this|things|the\s+(?:sound|volume|music|audio))\s+(?:up|down)"
    r"|turn\s+(?:up|down)\s+(?:the\s+)?(?:sound|volume|music|audio)|too\s+(?:loud|quiet)"
    r"|can'?t\s+hear\b[^?]*\b(?:bump|crank|turn|put)\s+(?:it|that|this)\s+up"
    r"|(?:kill|cut)\s+the\s+(?:sound|volume|audio))\b",
    re.IGNORECASE)
_NOT_VOLUME: Final = re.compile(
    r"\b(?:timer|remind|reminder|alarm|note|notes|what\s+is\s+a|how\s+do\s+(?:i|you)|why)\b",
    re.IGNORECASE)
_MUTE: Final = re.compile(r"\b(?:mute|silence)\b|\bsound\s+off\b"
                          r"|\b(?:kill|cut)\s+the\s+(?:sound|volume|audio)\b", re.IGNORECASE)
_UNMUTE: Final = re.compile(r"\bunmute\b|\bsound\s+(?:back\s+)?on\b", re.IGNORECASE)
_UP: Final = re.compile(r"\b(?:up|louder|raise|increase|higher|boost|more|too\s+quiet)\b",
                        re.IGNORECASE)
_DOWN: Final = re.compile(r"\b(?:down|quieter|softer|lower|decrease|reduce|less|too\s+loud)\b",
                          re.IGNORECASE)
_PERCENT: Final = re.compile(r"(\d{1,3})\s*(?:%|percent|per\s+cent)?", re.IGNORECASE)
_HALF: Final = re.compile(r"\bhalf(?:\s+way)?\b", re.IGNORECASE)
_FULL: Final = re.compile(r"\b(?:full|max|maximum|all\s+the\s+way\s+up)\b", re.IGNORECASE)
_TO: Final = re.compile(r"\b(?:to|at)\s+(\d{1,3})\b", re.IGNORECASE)
_NOTCHES: Final = re.compile(r"\b(\d{1,2})\s+(?:notch(?:es)?|steps?|clicks?|bars?|levels?)\b",
                            re.IGNORECASE)
_ALL_DOWN: Final = re.compile(r"\ball\s+the\s+way\s+down\b|\b(?:minimum|lowest)\b",
                              re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class VolumeState:
    """The default output's level and mute switch."""

    percent: int
    """Level in percent of the normal maximum (0-100, more if something else set it)."""
    muted: bool


@dataclass(frozen=True, slots=True)
class VolumeChange:
    """What the user asked of the volume."""

    kind: str
    """'set', 'up', 'down', 'mute' or 'unmute'."""
    percent: int | None = None
    """'set': the level; 'up'/'down': the step ('turn it up by 20'); else None."""


class VolumeControl(Protocol):
    """The default sound output (an adapter: ``adapters/desktop/volume_pactl.py``).

    Each method raises ``AgentError`` with a code and a spoken message when there is no
    sound server, no output, or no tool to reach it.
    """

    def state(self) -> VolumeState:
        """The default output's level and mute switch now."""
        ...

    def set_percent(self, percent: int) -> None:
        """Set the default output's level (0-100)."""
        ...

    def set_muted(self, muted: bool) -> None:
        """Mute or unmute the default output."""
        ...


def _digits(text: str) -> str:
    return replace_number_words(text.replace("-", " "))


def asks_volume(text: str) -> bool:
    """Router rule: could ``text`` ask to change the sound volume?

    A question about the volume ("is 80 percent safe for headphones?") does not: it is
    answered, not done.
    """
    if _NOT_VOLUME.search(text) or asks_about_it(text):
        return False
    return bool(_LOUDNESS.search(text) or (_VOLUME.search(text) and (
        _UP.search(text) or _DOWN.search(text) or _MUTE.search(text) or _UNMUTE.search(text)
        or _HALF.search(text) or _FULL.search(text)
        or re.search(r"\b(?:set|put|make|change)\b", text, re.IGNORECASE)
        or _PERCENT.search(_digits(text)))))


def parse_change(setting: str) -> VolumeChange | None:
    """The change ``setting`` (the user's words, or the model's copy of them) asks for.

    A level is set by "to"/"at" N or a bare number ("volume 30"); a number with up or down
    is a step ("turn it up 10 percent", "down by 5", "up two notches": 2 x ``STEP``).
    """
    text = _digits(setting)
    if _UNMUTE.search(text):
        return VolumeChange("unmute")
    if _MUTE.search(text):
        return VolumeChange("mute")
    direction = "down" if _DOWN.search(text) else "up" if _UP.search(text) else None
    if _ALL_DOWN.search(text):
        return VolumeChange("set", 0)
    if (to := _TO.search(text)) is not None:
        return VolumeChange("set", min(MAX_PERCENT, int(to.group(1))))
    if direction is not None and (notches := _NOTCHES.search(text)) is not None:
        return VolumeChange(direction, int(notches.group(1)) * STEP)
    number = _PERCENT.search(text)
    if number is not None:
        if direction is not None:
            return VolumeChange(direction, int(number.group(1)))
        return VolumeChange("set", min(MAX_PERCENT, int(number.group(1))))
    if _HALF.search(text):
        return VolumeChange("set", 50)
    if _FULL.search(text):
        return VolumeChange("set", MAX_PERCENT)
    if direction is not None:
        return VolumeChange(direction, STEP)
    return None


def volume_args(text: str) -> dict[str, Any] | None:
    """Words rule: ``{'setting': ...}`` with the change as the user said it, or None."""
    if not asks_volume(text):
        return None
    change = parse_change(text)
    if change is None:
        return None
    if change.kind in ("mute", "unmute"):
        return {"setting": change.kind}
    if change.kind == "set":
        return {"setting": f"{change.percent} percent"}
    digits = _digits(text)
    if _PERCENT.search(digits) or _NOTCHES.search(digits):
        return {"setting": f"{change.kind} by {change.percent} percent"}
    return {"setting": change.kind}


def say_state(state: VolumeState) -> str:
    """The spoken answer: 'The volume is now 30 percent.' (and whether it is muted)."""
    if state.muted:
        return f"The sound is muted (the volume is set to {state.percent} percent)."
    return f"The volume is now {state.percent} percent."


def change_volume(control: VolumeControl, setting: str) -> str:
    """Apply the change ``setting`` asks for to ``control``; the new level, spoken.

    Raises:
        AgentError: ``volume_setting`` when the words say no change; the control's own
            errors (no sound server, no output) as they are.
    """
    change = parse_change(setting)
    if change is None:
        raise AgentError("volume_setting", f"I don't know how to set the volume to {setting!r}.",
                         "say a level such as 'thirty percent', or 'up', 'down' or 'mute'")
    if change.kind == "mute":
        control.set_muted(True)
    elif change.kind == "unmute":
        control.set_muted(False)
    else:
        now = control.state()
        step = change.percent if change.percent is not None else STEP
        if change.kind == "up":  # never quieter: a level above 100 stays where it is
            target = max(now.percent, min(MAX_PERCENT, now.percent + step))
        else:
            target = {"set": step, "down": now.percent - step}[change.kind]
        control.set_percent(max(0, target))
        if now.muted and change.kind != "down":
            control.set_muted(False)  # "turn it up" means hear it
    return say_state(control.state())
