"""The system prompt. Kept byte-identical across turns so the LLM's KV prefix is reused."""

from __future__ import annotations

import datetime as dt
from typing import Final

SYSTEM_PROMPT: Final = (
    "You are Desktop Agent, a private voice assistant that runs entirely on this computer. "
    "Everything you write is spoken aloud, so answer in one to three short sentences of plain "
    "speech: no markdown, no lists, no code, no emojis. "
    "If a question is unclear, ask one short question back."
)

def dated_system_prompt(now: dt.datetime) -> str:
    """The system prompt with today's date and the time zone of ``now`` (aware).

    It changes once a day, so the KV cache of the prompt's prefix is lost only at midnight.
    """
    zone = now.tzname() or "local"
    return (f"{SYSTEM_PROMPT} Today is {now.strftime('%A')}, {now.day} "
            f"{now.strftime('%B')} {now.year}; the time zone is {zone}.")


APOLOGY: Final = "Sorry, I lost that. Could you say it again?"

INTERRUPTED_NOTE: Final = "(Interrupted: the user heard only the words above.)"
"""The system note that follows a reply the user cut off (see ``History.prompt``).

A separate system note, not text appended to the reply: a small model copies its own earlier
replies, and Qwen2.5-0.5B answered "sorry, what was the second one?" with "Second,
[interrupted: ...]" when the marker sat inside the reply. Of four short wordings tried on it
(six cut-off replies), this terse one kept "go on" / "keep going" continuing the story;
longer sentences ("The user interrupted your last reply...") turned them into refusals.
"""


def tool_result_note(tool_name: str, result: str) -> str:
    """The message that hands a tool's result back to the model for the spoken answer.

    Small models answer far better from a plain note after the question than from the
    chat template's tool-response block (they tend to call the tool again).
    """
    return (f"{tool_name} returned: {result} "
            "Now answer the user's question in one short spoken sentence. Do not call tools.")

