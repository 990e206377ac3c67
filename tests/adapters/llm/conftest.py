"""Fixtures shared by the LLM adapter tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def vocab(models: dict[str, Any]) -> Iterator[Any]:
    """The default LLM's vocabulary alone (no weights): what llama.cpp's parser needs."""
    import llama_cpp

    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(models["llm"].path).encode(), params)
    assert model, "llama.cpp could not read the GGUF's vocabulary"
    try:
        yield llama_cpp.llama_model_get_vocab(model)
    finally:
        llama_cpp.llama_model_free(model)
