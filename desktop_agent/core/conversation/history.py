"""Conversation history: what the next prompt says happened.

Rules (the turn machine relies on them):

* An exchange (one user turn) is recorded atomically when the turn ends: the user text
  (merged over false endpoints), any tool call/result messages, and the assistant reply.
* After a barge-in the assistant message holds ONLY the heard text and is marked
  ``interrupted=True``; unheard text never reaches a later prompt. In a prompt, such a message
  is followed by a short system note (``prompts.INTERRUPTED_NOTE``) so that the model knows
  the user cut in and heard only that much.
* When nothing of the reply was heard (or the reply was empty), no assistant message is added.
  The next user message then follows a user message; ``prompt`` joins such neighbours into one
  user message so that chat templates demanding strict user/assistant alternation still work.
* A failed turn (ERROR) records nothing: the apology asks the user to say it again.
* ``prompt`` trims the oldest whole exchanges to a token budget, always keeping the system
  prompt and the current turn's messages. It trims in steps: once the exchanges since the
  last trim no longer fit, the oldest go until what is kept fills at most
  ``KEEP_AFTER_TRIM`` of the budget, and the prompt then starts with the same exchange for
  many turns. Dropping one exchange per turn instead would change the prompt right after the
  system prompt every turn: the LLM's cached prefix would end there, and a long conversation
  would re-evaluate the whole history before every answer (seconds on two cores; the soak
  found it: every turn after ~60 timed out under load).
* At most ``max_exchanges`` exchanges are stored (the newest): a session that runs for days
  does not grow without bound. The token budget keeps far fewer in any prompt.

A tool call is stored as an assistant message with ``tool_call`` set and empty content, followed
by the tool message (role 'tool', ``name`` = the tool) that carries the result.

Threads: a ``History`` belongs to the turn machine's owner thread (the GUI thread in the app,
the caller's thread in the headless executor); every method, ``set_token_counter`` included, is
called there, and the token counter runs there too. The model's tokenizer qualifies
(``LlamaLlm.count_tokens``: llama.cpp's tokenize only reads the vocabulary, which is immutable
once loaded, so it may run while the LLM worker thread generates), as long as that model is not
closed while its counter is installed: call ``set_token_counter(None)`` (or install the new
model's counter) before an LLM is unloaded or replaced.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from desktop_agent.core.conversation.prompts import INTERRUPTED_NOTE
from desktop_agent.core.ports import ChatMessage, ToolCall

TokenCounter = Callable[[str], int]
"""Tokens a message's text costs in the prompt."""

ExchangeSink = Callable[[tuple[ChatMessage, ...]], None]
"""Told each exchange as it is recorded (the kept history on disk: adapters/history_store)."""

DEFAULT_MAX_PROMPT_TOKENS: Final = 2048

KEEP_AFTER_TRIM: Final = 0.5
"""Share of the history budget that the exchanges kept by a trim may fill (see above)."""

MAX_EXCHANGES_KEPT: Final = 200
"""Default bound on stored exchanges (far more than any prompt budget keeps)."""

CHATML_FRAMING_TOKENS: Final = 5
"""Tokens a ChatML template (Qwen, SmolLM2) adds around each message's text:
``<|im_start|>``, the role, a newline, ``<|im_end|>`` and a newline."""


def default_count_tokens(text: str) -> int:
    """A rough token count: ``len(text) // 4 + 4`` (4 for the message framing)."""
    return len(text) // 4 + 4


def tool_call_message(call: ToolCall) -> ChatMessage:
    """The assistant message that records a tool call."""
    return ChatMessage(role="assistant", content="", tool_call=call)


def tool_result_message(name: str, content: str) -> ChatMessage:
    """The tool message that carries a tool's result back to the LLM."""
    return ChatMessage(role="tool", content=content, name=name)


def interrupted_note() -> ChatMessage:
    """The system note that follows an interrupted (heard-only) reply in a prompt."""
    return ChatMessage(role="system", content=INTERRUPTED_NOTE)


def render_for_prompt(messages: Sequence[ChatMessage]) -> tuple[ChatMessage, ...]:
    """Stored messages as the LLM sees them: a note after each interrupted reply.

    Pure. The interrupted message itself is passed on unchanged (heard text only, still
    marked ``interrupted=True``); adapters need not render the flag again.
    """
    out: list[ChatMessage] = []
    for message in messages:
        out.append(message)
        if message.role == "assistant" and message.interrupted:
            out.append(interrupted_note())
    return tuple(out)


@dataclass(slots=True)
class _Exchange:
    """One recorded exchange, as stored and as rendered for a prompt."""

    messages: tuple[ChatMessage, ...]
    rendered: tuple[ChatMessage, ...]
    cost: int | None = None
    """Tokens of ``rendered`` with the current counter (None: not counted yet)."""
    seq: int = 0
    """Position in the conversation (1 for the first exchange recorded)."""


class History:
    """The conversation so far, with a system prompt and a token budget.

    Runs on: GUI thread (owned by the turn machine; see the module docstring). Not thread-safe.
    """

    def __init__(
        self,
        system_prompt: str,
        *,
        max_prompt_tokens: int = DEFAULT_MAX_PROMPT_TOKENS,
        count_tokens: TokenCounter = default_count_tokens,
        framing_tokens: int = 0,
        max_exchanges: int = MAX_EXCHANGES_KEPT,
    ) -> None:
        """Create an empty history.

        Args:
            system_prompt: Always the first message of every prompt.
            max_prompt_tokens: Budget for a whole prompt (system + history + current turn).
            count_tokens: Tokens of one message's content (inject the model's tokenizer, or
                swap it in later with ``set_token_counter``).
            framing_tokens: Tokens added to ``count_tokens`` per message for the chat
                template's framing (0: the counter already includes it, as the default does).
            max_exchanges: Most exchanges stored; the oldest are forgotten beyond it.
        """
        if max_exchanges < 1:
            raise ValueError(f"max_exchanges must be at least 1 (got {max_exchanges})")
        self._system = ChatMessage(role="system", content=system_prompt)
        self._max_tokens = max_prompt_tokens
        self._count = count_tokens
        self._framing = framing_tokens
        self._system_cost: int | None = None
        self._exchanges: deque[_Exchange] = deque(maxlen=max_exchanges)
        self._sink: ExchangeSink | None = None
        self._recorded = 0  # exchanges recorded so far (their seq)
        self._first_seq = 0  # a prompt starts at this exchange or later (the last trim)
        self._last_reply = ""

    @property
    def system(self) -> ChatMessage:
        """The system prompt message."""
        return self._system

    def set_system(self, system_prompt: str) -> None:
        """Use ``system_prompt`` from the next prompt on (e.g. a new day's date)."""
        if system_prompt != self._system.content:
            self._system = ChatMessage(role="system", content=system_prompt)
            self._system_cost = None

    @property
    def messages(self) -> tuple[ChatMessage, ...]:
        """Every stored message (system prompt first), untrimmed and as recorded."""
        return (self._system, *(m for ex in self._exchanges for m in ex.messages))

    @property
    def exchanges(self) -> int:
        """Number of stored exchanges (user turns), at most ``max_exchanges``."""
        return len(self._exchanges)

    @property
    def max_exchanges(self) -> int:
        """Most exchanges stored (the newest)."""
        return self._exchanges.maxlen or 0

    @property
    def last_reply(self) -> str:
        """The newest reply the user heard ('' before the first, and after ``clear``).

        Runs on: any thread (one attribute read whole: "copy that" on the tool thread).
        """
        return self._last_reply

    def set_sink(self, sink: ExchangeSink | None) -> None:
        """Tell ``sink`` every exchange recorded from now on (None: nobody).

        The sink runs inside ``record_turn`` on the history's thread; it must not raise (the
        kept history on disk logs its own failures: a full disk never fails a turn).
        """
        self._sink = sink

    def clear(self) -> None:
        """Forget the conversation (the system prompt stays)."""
        self._exchanges.clear()
        self._first_seq = self._recorded + 1
        self._last_reply = ""

    def set_token_counter(self, count_tokens: TokenCounter | None, *, framing_tokens: int = 0
                          ) -> None:
        """Count prompt tokens with ``count_tokens`` from now on.

        Meant for the model's tokenizer once the LLM has loaded (it loads on a worker thread
        after the history is built), e.g.
        ``history.set_token_counter(llm.count_tokens, framing_tokens=CHATML_FRAMING_TOKENS)``.
        Cached counts are dropped, so the next ``prompt`` recounts with the new counter.

        Runs on: GUI thread (the history's owner): call it from the slot that learns the model
        loaded, never from the LLM worker thread.

        Args:
            count_tokens: Tokens of one message's text; None goes back to the rough
                ``default_count_tokens`` (do that before the model it counts with is closed).
            framing_tokens: Added per message for the chat template's framing (ignored with
                None: the default count includes its framing).
        """
        if count_tokens is None:
            self._count, self._framing = default_count_tokens, 0
        else:
            self._count, self._framing = count_tokens, framing_tokens
        self._system_cost = None
        self._first_seq = 0  # new counts: the next prompt decides afresh what fits
        for exchange in self._exchanges:
            exchange.cost = None

    def record_turn(
        self,
        user_text: str,
        *,
        tool_messages: Sequence[ChatMessage] = (),
        assistant_text: str = "",
        interrupted: bool = False,
    ) -> None:
        """Record one finished exchange (the oldest is forgotten beyond ``max_exchanges``).

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
        stored = tuple(exchange)
        if assistant_text.strip():
            self._last_reply = assistant_text
        self._recorded += 1
        self._exchanges.append(_Exchange(stored, render_for_prompt(stored), seq=self._recorded))
        if self._sink is not None:
            self._sink(stored)

    def prompt(self, current: Sequence[ChatMessage] = ()) -> tuple[ChatMessage, ...]:
        """The messages for the next LLM call.

        Args:
            current: This turn's messages (its user message, tool messages); always kept.

        Returns:
            System prompt, the exchanges since the last trim when they fit the budget (else
            a new trim: the newest that fill at most ``KEEP_AFTER_TRIM`` of it), each
            interrupted reply followed by its note, then ``current``; adjacent user messages
            are joined with a space.
        """
        if self._system_cost is None:
            self._system_cost = self._cost((self._system,))
        budget = self._max_tokens - self._system_cost - self._cost(current)
        since = [ex for ex in self._exchanges if ex.seq >= self._first_seq]
        for exchange in since:
            if exchange.cost is None:
                exchange.cost = self._cost(exchange.rendered)
        if sum(ex.cost or 0 for ex in since) > budget:  # trim: the oldest go, in one step
            room = int(budget * KEEP_AFTER_TRIM)
            kept_from = self._recorded + 1
            for exchange in reversed(since):
                if (exchange.cost or 0) > room:
                    break
                room -= exchange.cost or 0
                kept_from = exchange.seq
            self._first_seq = kept_from
            since = [ex for ex in since if ex.seq >= kept_from]
        flat = [m for ex in since for m in ex.rendered]
        return (self._system, *_join_adjacent_users([*flat, *current]))

    def _cost(self, messages: Sequence[ChatMessage]) -> int:
        return sum(self._count(m.content) + self._framing for m in messages)


def _join_adjacent_users(messages: list[ChatMessage]) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for message in messages:
        if out and message.role == "user" and out[-1].role == "user":
            out[-1] = ChatMessage(role="user", content=f"{out[-1].content} {message.content}")
        else:
            out.append(message)
    return out
