"""A fake LLM engine: answers from a script, records every prompt."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.ports import ChatMessage, LlmDelta, ToolSpec

Script = Callable[[Sequence[ChatMessage]], list[LlmDelta]]
"""What the fake LLM says to a prompt (may raise to fail the run)."""


def say(text: str) -> list[LlmDelta]:
    """``text`` streamed word by word, as a model streams tokens."""
    return [LlmDelta(text=t) for t in re.findall(r"\S+\s*", text)]


@dataclass
class FakeLlm:
    """An LlmEngine that answers from a script and records every prompt."""

    script: Script
    prompts: list[tuple[ChatMessage, ...]] = field(default_factory=list)
    gate: threading.Event | None = None
    """When set up, each run waits for this event before answering (a slow prefill)."""

    def stream_chat(self, messages: Sequence[ChatMessage], cancel: CancelToken | None = None,
                    tools: Sequence[ToolSpec] = (), max_tokens: int = 256) -> Iterator[LlmDelta]:
        self.prompts.append(tuple(messages))
        if self.gate is not None:
            self.gate.wait(30)
        yield from self.script(messages)


def says_the_hour(reply: str) -> bool:
    """True when ``reply`` says the hour of the clock now (or a minute ago) in words.

    A reply is what was said, so a time in it is in words ('three', 'fifteen'), never digits.
    """
    import datetime as dt

    from desktop_agent.core.text.number_words import int_to_words

    words: set[str] = set()
    for moment in (dt.datetime.now(), dt.datetime.now() - dt.timedelta(minutes=1)):
        words |= {int_to_words(moment.hour % 12 or 12), int_to_words(moment.hour)}
        if moment.hour in (0, 12):
            words |= {"noon", "midnight"}
    return bool(words & set(re.findall(r"[\w'-]+", reply.lower())))
