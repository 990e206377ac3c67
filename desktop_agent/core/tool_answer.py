"""Guarding the spoken answer that follows a tool call.

Small local models often fumble the turn after a tool result: they call the tool again,
print JSON, or echo the question. The user asked something a tool answered, so they
must hear the answer: when the model's reply is unusable, the tool's own sentence is
spoken instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from desktop_agent.core.ports import LlmDelta

_CHECK_CHARS: Final = 16
"""Characters of reply held back before deciding whether it is usable."""


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def is_unusable(head: str, question: str) -> bool:
    """True for a reply head that is JSON/markup or merely repeats the question."""
    text = head.strip()
    if not text:
        return True
    if text.startswith(("{", "[", "<")):
        return True
    n = _norm(text)
    return bool(n) and _norm(question).startswith(n)


def guard_tool_answer(deltas: Iterator[LlmDelta], question: str,
                      fallback: str) -> Iterator[LlmDelta]:
    """Yield the model's answer, or ``fallback`` if the answer turns out unusable.

    Holds back the first ``_CHECK_CHARS`` characters (a word or two) to decide; after
    that the text streams through. Tool calls in the answer are never followed.
    """
    held = ""
    decided = False
    for delta in deltas:
        if delta.tool_call is not None:
            if not decided:
                break
            continue
        if decided:
            yield delta
            continue
        held += delta.text
        if len(held.strip()) >= _CHECK_CHARS:
            if is_unusable(held, question):
                break
            decided = True
            yield LlmDelta(text=held)
    else:
        if decided:
            return
        if held.strip() and not is_unusable(held, question):
            yield LlmDelta(text=held)
            return
    if not decided:
        yield LlmDelta(text=fallback)
