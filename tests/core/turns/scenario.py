"""Scripted timelines for the turn machine: a FakeClock, fake engines, and a log to assert on.

The fakes execute the machine's commands deterministically and feed events back at scripted
times, like the real workers would (queued, late, sometimes after a cancel):

* ASR: ``AsrFinal`` ``asr_s`` after ``Transcribe``, with the text of the scripted utterances
  that overlap the recording ('' and no_speech when none).
* LLM: replies are looked up by the prompt's last message (the user text, or the tool name
  after a tool result); words stream at ``tokens_per_s`` after ``first_token_s``.
* TTS: one worker, ``tts_s`` per chunk; a chunk in progress is finished even when cancelled
  (Piper cannot stop mid-sentence), so its late ``TtsChunkReady`` reaches the machine.
  ``chars_per_s`` sets the speaking rate; word timings are exact (see ``fake_chunk``).
* Player: consumes samples in real time from ``output_latency_s`` after the first chunk,
  reports progress every ``progress_s``, fades ``fade_ms`` on a flush.
* Cancelled LLM/tool output still arrives for ``cancel_lag_s`` (a busy worker's queued signal).
* Reflector: ``Reflected`` ``reflect_s`` after ``Reflect``: the next scripted verdict, else
  the real literal checks. A continuation run (tools off) says the next ``continuations``.

Usage::

    script = Script()
    script.user_ptt(0.5, 2.5, "tell me a story")
    script.reply("Once upon a time, there was a fox.")
    log = run_scenario(script)
    assert log.targets == [...]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from desktop_agent.core.conversation.history import History
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.turns.context import normalise_for_compare
from desktop_agent.core.turns.machine import TurnStateMachine
from desktop_agent.core.turns.policy import TurnPolicy
from tests.core.turns.scenario_fakes import (
    SYSTEM_PROMPT,
    ScenarioLog,
    ScriptedReply,
    Simulator,
    TurnRecord,
    Utterance,
    fake_chunk_words,
)

__all__ = [
    "SYSTEM_PROMPT",
    "ScenarioLog",
    "Script",
    "ScriptedReply",
    "TurnRecord",
    "Utterance",
    "fake_chunk_words",
    "run_scenario",
]


@dataclass
class Script:
    """A timeline of user behaviour and engine answers (all times in seconds)."""

    sample_rate: int = 16_000
    chars_per_s: float = 16.0
    asr_s: float = 0.2
    first_token_s: float = 0.3
    tokens_per_s: float = 20.0
    tts_s: float = 0.1
    tool_s: float = 0.4
    apology_s: float = 2.0
    output_latency_s: float = 0.02
    progress_s: float = 0.1
    vad_confirm_s: float = 0.2
    endpoint_silence_s: float = 0.6
    barge_in_decision_s: float = 0.3
    cancel_lag_s: float = 0.06
    policy: TurnPolicy = field(default_factory=TurnPolicy)
    utterances: list[Utterance] = field(default_factory=list)
    replies: dict[tuple[str, str], ScriptedReply] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)
    tool_errors: set[str] = field(default_factory=set)
    """Tools whose result is an error (``ToolResult.is_error``)."""
    partials: list[tuple[float, str, bool, float]] = field(default_factory=list)
    reflect_s: float = 0.05
    """Seconds from ``Reflect`` to ``Reflected``."""
    verdicts: list[Any] = field(default_factory=list)
    """Scripted ``Judgement`` s, one per ``Reflect`` in order; when none is left, the real
    literal checks judge (core.reflection.reflect, without a model)."""
    continuations: list[str] = field(default_factory=list)
    """What the LLM says to each tools-off run (a reflection's continuation), in order."""

    def user_ptt(self, press_s: float, release_s: float, text: str) -> None:
        """The user holds push-to-talk from ``press_s`` to ``release_s`` saying ``text``."""
        self.utterances.append(Utterance(press_s, release_s, text, ptt=True))

    def user_speech(
        self, start_s: float, end_s: float, text: str, *, backchannel: bool = False
    ) -> None:
        """Hands-free speech; a ``backchannel`` during playback is judged not a barge-in."""
        self.utterances.append(Utterance(start_s, end_s, text, ptt=False, backchannel=backchannel))

    def partial(
        self, at_s: float, text: str, *, stable: bool = True, trailing_silence_s: float = 0.4
    ) -> None:
        """The recogniser reports a partial transcript of the running recording at ``at_s``."""
        self.partials.append((at_s, text, stable, trailing_silence_s))

    def reply(
        self,
        text: str = "",
        *,
        to: str | None = None,
        after_tool: str | None = None,
        tool_call: ToolCall | None = None,
        fail_code: str | None = None,
        hang: bool = False,
        units: tuple[Any, ...] = (),
    ) -> None:
        """Script the LLM's answer to the user text ``to`` (default: the last utterance).

        With ``after_tool``, the answer to a prompt that ends with that tool's result.
        """
        if after_tool is not None:
            key = ("tool", after_tool)
        else:
            user = to if to is not None else self.utterances[-1].text
            key = ("user", normalise_for_compare(user))
        self.replies[key] = ScriptedReply(text, tool_call, fail_code, hang, units)

    def tool(self, name: str, result: str, *, is_error: bool = False) -> None:
        """The fake tool ``name`` returns ``result`` (as an error with ``is_error``)."""
        self.tools[name] = result
        if is_error:
            self.tool_errors.add(name)


def run_scenario(
    script: Script,
    *,
    until_s: float | None = None,
    strict: bool = True,
    machine: TurnStateMachine | None = None,
) -> ScenarioLog:
    """Run ``script`` through a fresh machine (strict by default) and return the log."""
    m = machine or TurnStateMachine(History(SYSTEM_PROMPT), policy=script.policy, strict=strict)
    sim = Simulator(script, m)
    for u in script.utterances:
        sim.schedule_user(u)
    for at_s, text, stable, silence in script.partials:
        sim.schedule_partial(at_s, text, stable, silence)
    last = max([u.end_s for u in script.utterances] + [0.0])
    return sim.run(until_s if until_s is not None else last + 60.0)
