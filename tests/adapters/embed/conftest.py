"""The real sentence-embedding model, loaded once for the tests of this folder."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.errors import ModelError
from tests.needs import unavailable


@pytest.fixture(scope="session")
def embedder() -> Any:
    """The default embedding model through the real resolver and adapter (skip or fail if
    it is not installed: tests/needs.py)."""
    from desktop_agent.adapters.embed.embed_minilm import load_embedder

    try:
        engine = load_embedder()
        engine.load()
        return engine
    except ModelError as exc:
        unavailable("the sentence-embedding model", f"[{exc.code}] {exc.message} {exc.fix}")
