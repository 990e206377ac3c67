"""Tools by meaning, composed: the sentence-embedding model and the catalog's examples.

``tool_meanings()`` builds the ``core.tools.semantic.MeaningRouter`` the LLM engines take
(``make_llm``): the default embedding model (``adapters/embed``) and the vectors of every
catalog example, kept on disk under the model id and a hash of the examples
(``adapters/embed/vector_cache.py``), so only the first start after a change embeds them.
Without the embedding model (files missing or corrupt, a library missing) the app runs on
the keyword rules alone: one warning in the log says so and how to fix it, never a
traceback. Runs on: the LLM worker thread, while the engines load.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from desktop_agent.core.errors import ModelError
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.semantic import (
    MeaningRouter,
    MeaningSettings,
    examples_digest,
    labelled_examples,
)
from desktop_agent.core.tools.tool_def import Catalog

_LOGGER = logging.getLogger(__name__)


def vectors_dir() -> Path:
    """Where the examples' vectors are kept (the user data dir's ``vectors``)."""
    from desktop_agent.adapters.paths import data_dir

    return data_dir() / "vectors"


def tool_meanings(catalog: Catalog = BUILTIN, *, embedder: Any = None,
                  cache: Path | None = None, settings: MeaningSettings | None = None
                  ) -> MeaningRouter | None:
    """The tools-by-meaning router, or None when there is no embedding model (logged).

    Args:
        catalog: whose examples are matched.
        embedder: a ``core.ports.Embedder`` (default: the manifest's model, one thread).
        cache: folder for the examples' vectors (default ``vectors_dir()``).
        settings: the thresholds (default ``MeaningSettings()``).
    """
    start = time.perf_counter()
    try:
        if embedder is None:
            from desktop_agent.adapters.embed.embed_minilm import load_embedder

            embedder = load_embedder()
        load = getattr(embedder, "load", None)  # not in the port: MiniLM loads lazily
        if load is not None:
            load()  # now, not at the first request (~0.3 s)
        from desktop_agent.adapters.embed.vector_cache import cached_vectors

        labels, texts = labelled_examples(catalog)
        key = "tool-examples-" + examples_digest(embedder.model_id, labels, texts)[:24]
        rows = cached_vectors(embedder, texts, key, cache or vectors_dir())
        router = MeaningRouter.from_catalog(embedder, catalog, settings, vectors=rows)
    except (ModelError, ImportError) as exc:
        code = getattr(exc, "code", type(exc).__name__)
        fix = getattr(exc, "fix", "")
        _LOGGER.warning("turn=0 tools by meaning are off, tool requests are read by the keyword "
                        "rules only: %s %s %s", code, getattr(exc, "message", exc), fix)
        return None
    _LOGGER.info("turn=0 tools by meaning: %d examples, ready in %.0f ms", len(router.meanings),
                 (time.perf_counter() - start) * 1000)
    return router
