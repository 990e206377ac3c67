"""The app's model reflector and grammar writer are found inside the LLM worker's engine."""

from __future__ import annotations

from typing import Any

from desktop_agent.adapters.llm.llm_grammar import LlamaGrammarWriter
from desktop_agent.adapters.llm.llm_verdict import LlamaVerdictJudge
from desktop_agent.compose.reflection import (
    computing_model,
    grammar_writer_for,
    local_model,
    verdict_judge_for,
)
from desktop_agent.core.reflection.verdict import Writers, writer_for


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


class _Composite:
    """Stands in for ``CompositeLlm``: a decider (also its ``_inner``) and a speaker."""

    def __init__(self) -> None:
        self.decider = self._inner = _Local()
        self.speaker = _Local()


def test_beside_a_speaking_model_it_computes_and_the_small_one_writes_sentences() -> None:
    composite = _Composite()
    writers = grammar_writer_for(_Wrapper(composite))
    assert isinstance(writers, Writers)
    computations = writer_for(writers, "computations")
    sentences = writer_for(writers, "sentences")
    assert isinstance(computations, LlamaGrammarWriter)
    assert isinstance(sentences, LlamaGrammarWriter)
    assert computations._owner is composite.speaker
    assert sentences._owner is composite.decider
    assert computing_model(_Wrapper(_Wrapper(composite))) is composite.speaker
    assert isinstance(verdict_judge_for(_Wrapper(composite)), LlamaVerdictJudge)
    assert local_model(_Wrapper(composite)) is composite.decider


def test_a_single_local_model_writes_everything() -> None:
    local = _Local()
    writer = grammar_writer_for(_Wrapper(local))
    assert isinstance(writer, LlamaGrammarWriter) and writer._owner is local
    assert writer_for(writer, "computations") is writer_for(writer, "sentences") is writer
    assert computing_model(_Wrapper(local)) is local
    assert computing_model(object()) is None
