"""One check of the language model's server, for the Settings "Test" button.

A one-line question with a few tokens of answer through the same client the app uses
(``OpenAiLlm``), with the address, model and key as the settings hold them now: whether it
answers, and how fast.

Runs on: any thread but the GUI's (it waits on the network).
"""

from __future__ import annotations

import os
import time
from typing import Any

from desktop_agent.adapters.llm.llm_openai import OpenAiLlm
from desktop_agent.core.errors import LlmError
from desktop_agent.core.ports import ChatMessage

__all__ = ["probe_llm_server"]


def probe_llm_server(values: dict[str, Any], timeout_s: float = 20.0) -> str:
    """Ask the server of ``values`` (server_url, server_model, api_key_env) for a word.

    Returns one line: the server, what it said and how long it took; raises LlmError.
    """
    env = str(values.get("api_key_env", "")).strip()
    key = os.environ.get(env) if env else None
    if env and not key:
        raise LlmError("server_key_missing", f"The environment variable {env} that should hold "
                       "the server's API key is not set.", f"Set {env} before starting the "
                       "app, or clear 'API key variable'.")
    llm = OpenAiLlm(str(values["server_url"]), str(values.get("server_model", "")), key,
                    allow_remote=True, read_timeout_s=timeout_s)
    start = time.perf_counter()
    words = "".join(d.text for d in llm.stream_chat(
        [ChatMessage("user", "Reply with the single word OK.")], max_tokens=4)).strip()
    took = (time.perf_counter() - start) * 1000
    if not words:
        raise LlmError("server_said_nothing", f"The server at {llm.server.display()} answered "
                       "with no words.", "Check the model it serves (server_model).")
    return f"{llm.server.display()} answered {words[:40]!r} in {took:.0f} ms"
