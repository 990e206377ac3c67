"""Sentence vectors kept on disk under a key, so fixed texts are embedded once per install.

The tool examples (``core.tools.semantic``) are a few hundred fixed sentences: embedding
them costs about a second of one core at every start, reading them back a millisecond. The
key is ``core.tools.semantic.examples_digest`` (the model id and every labelled example),
so a changed example or another model is a new file, never a stale vector.

Error contract: nothing raises for the cache itself. A missing, unreadable or wrong-shaped
file is embedded again and rewritten (atomically: a temporary file renamed over it); a
directory that cannot be written only costs the next start the same second again (logged
once at debug). The embedder's own ``ModelError`` passes through.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

_LOGGER = logging.getLogger(__name__)


def cached_vectors(embedder: Any, texts: Sequence[str], key: str, folder: Path
                   ) -> np.ndarray:
    """``embedder.embed(texts)``, read from ``folder/<key>.npy`` when it is there.

    Args:
        embedder: a ``core.ports.Embedder``.
        texts: the fixed texts, in order.
        key: names the file; must change whenever the texts or the model do.
        folder: where the file lives (created when missing).

    Returns:
        float32 ``[len(texts), embedder.dimensions]``.
    """
    path = folder / f"{key}.npy"
    shape = (len(texts), int(embedder.dimensions))
    try:
        rows = np.load(path, allow_pickle=False)
        if rows.shape == shape and rows.dtype == np.float32 and np.isfinite(rows).all():
            return rows
        _LOGGER.info("turn=0 re-embedding %s: shape %s, expected %s", path.name, rows.shape,
                     shape)
    except FileNotFoundError:
        pass
    except (OSError, ValueError, EOFError) as exc:  # a truncated or foreign file
        _LOGGER.info("turn=0 re-embedding %s: %s", path.name, exc)
    rows = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    tmp: str | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".npy.tmp")
        with os.fdopen(fd, "wb") as f:
            np.save(f, rows, allow_pickle=False)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        _LOGGER.debug("turn=0 cannot keep the vectors in %s: %s", folder, exc)
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return rows
