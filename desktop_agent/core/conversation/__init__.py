"""The conversation (pure, stdlib only).

History (what the next prompt says happened), heard-so-far, the system prompt, the
OpenAI chat wire format and the LLM seen through the user's documents.
"""

__all__ = [
    "heard",
    "history",
    "knowledge_llm",
    "openai_chat",
    "prompts",
]
