"""The issue's two examples through the headless loop on the real 0.5B (fake voice).

Asked "Set the volume to thirty percent." with no volume tool, the 0.5B answered "I'm setting
the volume to thirty percent." and "Open example dot org in the browser." was parroted back
(issue 21): the user heard an action that never happened. What is checked is the contract,
whatever the model says: no sentence the user hears claims an action, and when the model
did claim one, what is heard instead says nothing changed. With the volume tool but no sound
output, the tool's own answer is heard; with the suite's PulseAudio, the default sink is at
30 % afterwards.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.adapters.desktop.desktop_tools import add_desktop_tools
from desktop_agent.adapters.desktop.volume_pactl import PactlVolume
from desktop_agent.adapters.llm.llm_grammar import LlamaGrammarWriter
from desktop_agent.adapters.store.tools_builtin import current_time_tool
from desktop_agent.core.tools.claimed import claims_action
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.runtime.headless import HeadlessExecutor
from tests.fakes.tts import FakeTts

pytestmark = [pytest.mark.models, pytest.mark.slow]
POLICY = TurnPolicy(llm_first_token_timeout_s=120.0)


def _heard(llm: Any, tools: ToolRegistry, request: str) -> str:
    with HeadlessExecutor(llm, FakeTts(), tools, policy=POLICY,  # type: ignore[arg-type]
                          writer=LlamaGrammarWriter(llm)) as ex:
        turn = ex.ask_text(request)
    assert turn.error is None
    heard = turn.heard.heard_written if turn.heard is not None else ""
    print(f"{request!r}: {heard!r}")
    return heard


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?,;:])\s+", text) if s.strip()]


@pytest.mark.parametrize("request_", ["Set the volume to thirty percent.",
                                      "Open example dot org in the browser."])
def test_no_action_is_claimed_without_a_tool(llm: Any, request_: str) -> None:
    only_the_clock = ToolRegistry([current_time_tool(lambda: None)])  # type: ignore[arg-type]
    heard = _heard(llm, only_the_clock, request_)
    assert heard
    assert not [s for s in _sentences(heard) if claims_action(s, request_)], heard
    cannot = f"Sorry, I can't {request_[0].lower()}{request_[1:-1]} from here"
    # the model's own words, or the refusal in the request's words: never a tool's name
    assert "tool did not run" not in heard and (cannot in heard or "Sorry" not in heard[:6])


def test_with_the_tool_and_no_sound_output_its_answer_is_heard(llm: Any, tmp_path: Path,
                                                               monkeypatch: Any) -> None:
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/no-sound-server")
    tools = add_desktop_tools(ToolRegistry(), volume=PactlVolume())
    heard = _heard(llm, tools, "Set the volume to thirty percent.")
    assert heard == ("I can't reach the sound server, so the volume is unchanged. "
                     "Start PulseAudio or PipeWire (pipewire-pulse).")


def test_with_a_sound_server_the_default_sink_is_set(llm: Any, pulse_server: str) -> None:
    subprocess.run(["pactl", "set-sink-volume", "@DEFAULT_SINK@", "65%"], check=True,
                   timeout=10)
    heard = _heard(llm, add_desktop_tools(ToolRegistry()), "Set the volume to thirty percent.")
    assert heard == "The volume is now 30 percent."
    level = subprocess.run(["pactl", "get-sink-volume", "@DEFAULT_SINK@"], check=True,
                           capture_output=True, text=True, timeout=10,
                           env={**os.environ, "LC_ALL": "C"}).stdout
    assert re.findall(r"(\d+)%", level) == ["30", "30"]
