"""Chat models: llama.cpp in process or an OpenAI-compatible server.

Also what they are asked for besides chat: claims from documents, verdicts.
"""

__all__ = [
    "cpu_features",
    "llm_claims",
    "llm_llama",
    "llm_openai",
    "llm_verdict",
    "verdict_server",
]
