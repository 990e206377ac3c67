"""Conversation history: what the next prompt says happened.

Rules (the turn machine relies on them):

* An exchange (one user turn) is recorded atomically when the turn ends: the user text
  (merged over false endpoints), any tool call/result messages, and the assistant reply.
* After a barge-in the assistant message holds ONLY the heard text and is marked
  ``interrupted=True``; unheard text never reaches a later prompt.
* When nothing of the reply was heard (or the reply was empty), no assistant message is added.
  The next user message then follows a user message; ``prompt`` joins such neighbours into one
  user message so that chat templates demanding strict user/assistant alternation still work.
* A failed turn (ERROR) records nothing: the apology asks the user to say it again.
* ``prompt`` trims the oldest whole exchanges to a token budget, always keeping the system
  prompt and the current turn's messages.

A tool call is stored as an assistant message with ``tool_call`` set and empty content, followed
by the tool message (role 'tool', ``name`` = the tool) that carries the result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from desktop_agent.core.ports import ChatMessage, ToolCall

TokenCounter = Callable[[str], int]
"""Tokens a message's text costs in the prompt."""

DEFAULT_MAX_PROMPT_TOKENS: Final = 2048


def default_count_tokens(text: str) -> int:
    """A rough token count: ``len(text) // 4 + 4`` (4 for the message framing)."""
    return len(text) // 4 + 4


def tool_call_message(call: ToolCall) -> ChatMessage:
    """The assistant message that records a tool call."""
    return ChatMessage(role="assistant", content="", tool_call=call)


def tool_result_message(name: str, content: str) -> ChatMessage:
    """The tool message that carries a tool's result back to the LLM."""
    return ChatMessage(role="tool", content=content, name=name)


class History:
    """The conversation so far, with a system prompt and a token budget.

    Runs on: GUI thread (owned by the turn machine). Not thread-safe.
    """

    def __init__(
        self,
        system_prompt: str,
        *,
        max_prompt_tokens: int = DEFAULT_MAX_PROMPT_TOKENS,
        count_tokens: TokenCounter = default_count_tokens,
    ) -> None:
        """Create an empty history.

        Args:
            system_prompt: Always the first message of every prompt.
            max_prompt_tokens: Budget for a whole prompt (system + history + current turn).
            count_tokens: Tokens of one message's content (inject the model's tokenizer).
        """
        self._system = ChatMessage(role="system", content=system_prompt)
        self._max_tokens = max_prompt_tokens
        self._count = count_tokens
        self._exchanges: list[tuple[ChatMessage, ...]] = []

    @property
    def system(self) -> ChatMessage:
        """The system prompt message."""
        return self._system

    @property
    def messages(self) -> tuple[ChatMessage, ...]:
        """Every stored message (system prompt first), untrimmed."""
        return (self._system, *(m for ex in self._exchanges for m in ex))

    @property
    def exchanges(self) -> int:
        """Number of recorded exchanges (user turns)."""
        return len(self._exchanges)

    def clear(self) -> None:
        """Forget the conversation (the system prompt stays)."""
        self._exchanges.clear()

    def record_turn(
        self,
        user_text: str,
        *,
        tool_messages: Sequence[ChatMessage] = (),
        assistant_text: str = "",
        interrupted: bool = False,
    ) -> None:
        """Record one finished exchange.

        Args:
            user_text: What the user said (merged over false endpoints).
            tool_messages: Tool call and result messages of this turn, in order.
            assistant_text: What the user heard of the reply ('' adds no assistant message).
            interrupted: True when a barge-in cut the reply (the message is marked so).
        """
        exchange: list[ChatMessage] = [ChatMessage(role="user", content=user_text)]
        exchange.extend(tool_messages)
        if assistant_text.strip():
            exchange.append(
                ChatMessage(role="assistant", content=assistant_text, interrupted=interrupted)
            )
        self._exchanges.append(tuple(exchange))

    def prompt(self, current: Sequence[ChatMessage] = ()) -> tuple[ChatMessage, ...]:
        """The messages for the next LLM call.

        Args:
            current: This turn's messages (its user message, tool messages); always kept.

        Returns:
            System prompt, the newest exchanges that fit the budget, then ``current``; adjacent
            user messages are joined with a space.
        """
        budget = self._max_tokens - self._cost((self._system, *current))
        kept: list[tuple[ChatMessage, ...]] = []
        for exchange in reversed(self._exchanges):
            cost = self._cost(exchange)
            if cost > budget:
                break
            budget -= cost
            kept.append(exchange)
        flat = [m for ex in reversed(kept) for m in ex]
        return (self._system, *_join_adjacent_users([*flat, *current]))

    def _cost(self, messages: Sequence[ChatMessage]) -> int:
        return sum(self._count(m.content) for m in messages)


def _join_adjacent_users(messages: list[ChatMessage]) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for message in messages:
        if out and message.role == "user" and out[-1].role == "user":
            out[-1] = ChatMessage(role="user", content=f"{out[-1].content} {message.content}")
        else:
            out.append(message)
    return out
