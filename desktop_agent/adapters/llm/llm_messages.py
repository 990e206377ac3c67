"""The chat messages a llama.cpp chat template is given: tool results as plain notes.

Small models answer reliably from a plain note after the question, while the chat
template's tool-response block makes them call the tool again (measured on Qwen2.5-0.5B).
Every prompt of ``LlamaLlm`` (prefill, prose, decision) is rendered from ``chat_payload``,
so the three agree token for token and the KV cache serves all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop_agent.core.conversation.prompts import tool_result_note
from desktop_agent.core.ports import ChatMessage


def chat_payload(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """``messages`` as the chat template's dicts, each tool call + result as one note."""
    return [_to_openai(m) for m in _tool_results_as_notes(messages)]


def _tool_results_as_notes(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """Render each tool call + result pair as one system note after the question."""
    out: list[ChatMessage] = []
    for msg in messages:
        if msg.role == "assistant" and msg.tool_call is not None and not msg.content:
            continue
        if msg.role == "tool":
            out.append(ChatMessage("system", tool_result_note(msg.name or "tool", msg.content)))
            continue
        out.append(msg)
    return out


def _to_openai(msg: ChatMessage) -> dict[str, Any]:
    if msg.role == "tool":
        return {"role": "tool", "content": msg.content, "name": msg.name or "tool"}
    if msg.tool_call is not None:
        call = msg.tool_call
        return {"role": "assistant", "content": msg.content, "tool_calls": [{
            "id": call.call_id or "call_1", "type": "function",
            "function": {"name": call.name, "arguments": dict(call.arguments)}}]}
    return {"role": msg.role, "content": msg.content}
