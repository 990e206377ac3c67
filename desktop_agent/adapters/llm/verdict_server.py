"""The model reflector on a chat server: a verdict as JSON the server is made to emit.

``core.reflection.VerdictJudge`` on ``OpenAiLlm``: the reflector's prompt
(``core.reflection.reflector_prompts.reflector_messages``), greedy, with the verdict's schema
(``VERDICT_SCHEMA``) sent as ``response_format``, which llama.cpp's ``llama-server`` and
vLLM enforce while decoding. The answer is read as the local judge reads it
(``adapters.llm.llm_verdict.parse_verdict``): an answer without a verdict counts as 'good',
so the reflector never makes the assistant say something on a guess. A server failure
is the LLM's typed error (``server_unreachable``, ``server_timeout``, ...).
"""

from __future__ import annotations

from typing import Final

from desktop_agent.adapters.llm.llm_openai import OpenAiLlm
from desktop_agent.adapters.llm.llm_verdict import parse_verdict
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.reflection.reflector_prompts import VERDICT_SCHEMA, reflector_messages
from desktop_agent.core.reflection.verdict import Judgement, Verdict

MAX_TOKENS: Final = 80
"""Cap on '{"verdict": "repair", "guidance": "<one sentence>"}'."""


class ServerVerdictJudge:
    """``VerdictJudge`` on a server's model (the speaker's, or a bigger one elsewhere)."""

    def __init__(self, llm: OpenAiLlm, max_tokens: int = MAX_TOKENS) -> None:
        """Judge with ``llm``; answers stop at ``max_tokens``."""
        self._llm = llm
        self._max_tokens = max_tokens
        self.last_raw: str | None = None
        """The server's last answer (None: none yet, or cancelled before it)."""

    def judge(self, question: str, utterance: str, cancel: CancelToken | None) -> Judgement:
        """The verdict on ``utterance`` as an answer to ``question``. Runs on: a worker."""
        self.last_raw = None
        if cancel is not None and cancel.cancelled:
            return Judgement(Verdict.GOOD, checker="model")
        raw = self._llm.complete_json(reflector_messages(question, utterance), VERDICT_SCHEMA,
                                      cancel, self._max_tokens)
        if cancel is not None and cancel.cancelled:
            return Judgement(Verdict.GOOD, checker="model")
        self.last_raw = raw
        return parse_verdict(raw)
