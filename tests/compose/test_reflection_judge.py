"""The app's model reflector and grammar writer are found inside the LLM worker's engine."""

from __future__ import annotations

from typing import Any

from desktop_agent.adapters.llm.llm_grammar import LlamaGrammarWriter
from desktop_agent.adapters.llm.llm_verdict import LlamaVerdictJudge
from desktop_agent.compose.reflection import grammar_writer_for, verdict_judge_for


class _Tokenizer:
    """Stands in for llama_cpp.Llama's tokenizer: one token per byte."""

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return list(text)


class _Local:
    _llm = _Tokenizer()

    def _chat_formatter(self) -> Any:
        raise AssertionError("not called while building")

    def _cached_prefix(self, tokens: list[int]) -> int:
        return 0


class _Wrapper:
    def __init__(self, inner: Any) -> None:
        self._inner = inner


def test_the_local_model_is_found_through_wrappers() -> None:
    assert isinstance(verdict_judge_for(_Local()), LlamaVerdictJudge)
    assert isinstance(verdict_judge_for(_Wrapper(_Wrapper(_Local()))), LlamaVerdictJudge)


def test_an_engine_without_a_local_model_gets_no_judge() -> None:
    assert verdict_judge_for(object()) is None
    assert verdict_judge_for(_Wrapper(object())) is None
    assert verdict_judge_for(None) is None


def test_the_grammar_writer_is_built_on_the_local_model_only() -> None:
    assert isinstance(grammar_writer_for(_Wrapper(_Local())), LlamaGrammarWriter)
    assert grammar_writer_for(_Wrapper(object())) is None
    assert grammar_writer_for(None) is None
