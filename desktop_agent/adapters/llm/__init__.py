"""Chat models: llama.cpp in process (one model, or two in their roles) or an
OpenAI-compatible server.

Also what they are asked for besides chat: claims from documents, verdicts, and text
written under a grammar (the reflector's word problems and constrained sentences).
"""

__all__ = [
    "cpu_features",
    "llm_call_grammar",
    "llm_claims",
    "llm_composite",
    "llm_grammar",
    "llm_llama",
    "llm_messages",
    "llm_openai",
    "llm_probe",
    "llm_verdict",
    "openai_http",
    "verdict_server",
]
