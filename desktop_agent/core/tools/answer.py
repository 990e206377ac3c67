"""Guarding the spoken answer that follows a tool call.

Small local models often fumble the turn after a tool result: they call the tool again,
print JSON, or echo the question. The user asked something a tool answered, so they
must hear the answer: when the model's reply is unusable, the tool's own sentence is
spoken instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from desktop_agent.core.ports import ChatMessage, LlmDelta

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


def tool_context(messages: Sequence[ChatMessage]) -> tuple[str, str] | None:
    """The question and the tool's result when a run on ``messages`` answers after a tool.

    Args:
        messages: The whole prompt of one LLM run (as ``StartLlm.messages`` carries it).

    Returns:
        ``(question, tool result)`` when the last message is a tool result (the question is
        the newest user message, '' if there is none), else None.
    """
    if not messages or messages[-1].role != "tool":
        return None
    question = next((m.content for m in reversed(messages) if m.role == "user"), "")
    return question, messages[-1].content


def guard_llm_run(messages: Sequence[ChatMessage],
                  deltas: Iterator[LlmDelta]) -> Iterator[LlmDelta]:
    """The deltas of one LLM run on ``messages``, guarded when it answers after a tool.

    The one copy of the rule every executor of ``StartLlm`` applies (the app's LLM worker
    and the headless executor): a run whose prompt ends with a tool result goes through
    ``guard_tool_answer`` with the user's question and that result as the fallback; any
    other run streams through untouched.

    Args:
        messages: The whole prompt of the run.
        deltas: What the model streams for it.

    Returns:
        The deltas to act on.
    """
    after_tool = tool_context(messages)
    if after_tool is None:
        return deltas
    question, result = after_tool
    return guard_tool_answer(deltas, question, result)
