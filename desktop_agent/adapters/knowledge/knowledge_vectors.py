"""Passage vectors in the knowledge index: computed at indexing, searched in numpy.

Python's ``sqlite3`` cannot load a vector extension, so each passage's sentence vector is a
BLOB (float32, little-endian, unit length) in the ``vectors`` table beside the model id
that made it, and a search is one matrix product in numpy over all of them.

* **Incremental**, with the indexing run: a new or changed file gets new passages, and only
  passages without a vector of the current model are embedded (in batches, each committed
  on its own, the cancel token checked between them). A deleted passage takes its vector
  with it (a trigger). A changed ``model_id`` re-embeds everything, as its vectors cannot
  be compared with the old ones.
* **Search** loads the matrix once and again only when the file changed (SQLite's
  ``data_version`` and this connection's own changes), then ranks by cosine.
* Without an embedding model (``Meaning.available`` False) nothing is embedded and
  ``nearest`` finds nothing: the index is word search only, as before.

Used by ``knowledge_sqlite.SqliteKnowledgeIndex`` only.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from typing import Final

import numpy as np

from desktop_agent.adapters.knowledge.knowledge_db import transaction
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge.meaning import Meaning

_LOGGER = logging.getLogger(__name__)

EMBED_BATCH: Final = 64
"""Passages embedded (and committed) per step; a cancel waits for at most one step."""


def embed_missing(conn: sqlite3.Connection, meaning: Meaning,
                  cancel: CancelToken | None = None,
                  progress: Callable[[int, int], None] | None = None) -> int:
    """Embed every passage that has no vector of ``meaning``'s model; the count embedded.

    Vectors of another model are deleted first. Stops quietly when meaning is off (the
    engine failed: ``Meaning`` says so once) or ``cancel`` is set.
    """
    if not meaning.available:
        return 0
    model = meaning.model_id
    with transaction(conn):
        conn.execute("DELETE FROM vectors WHERE model_id != ?", (model,))
    rows = conn.execute(
        "SELECT p.id, p.text FROM passages p LEFT JOIN vectors v ON v.passage = p.id "
        "WHERE v.passage IS NULL ORDER BY p.id").fetchall()
    done = 0
    for start in range(0, len(rows), EMBED_BATCH):
        if cancel is not None and cancel.cancelled:
            break
        batch = rows[start:start + EMBED_BATCH]
        vectors = meaning.vectors([text for _, text in batch])
        if vectors is None:
            break
        blobs = [np.asarray(v, dtype="<f4").tobytes() for v in vectors]
        with transaction(conn):
            # A passage deleted meanwhile (another run) is skipped by the join.
            conn.executemany(
                "INSERT OR REPLACE INTO vectors (passage, model_id, vector) "
                "SELECT id, ?, ? FROM passages WHERE id = ?",
                [(model, blob, pid) for (pid, _), blob in zip(batch, blobs, strict=True)])
        done += len(batch)
        if progress is not None:
            progress(done, len(rows))
    return done


class VectorSearch:
    """Cosine search over the stored vectors of one model.

    Runs on: any thread (each caller passes its own connection; the matrix is shared,
    replaced whole under a lock).
    """

    def __init__(self) -> None:
        """Nothing is loaded until the first ``nearest``."""
        self._lock = threading.Lock()
        self._key: tuple[object, ...] | None = None
        self._ids = np.zeros(0, dtype=np.int64)
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def nearest(self, conn: sqlite3.Connection, model_id: str,
                query: tuple[float, ...] | list[float], limit: int) -> list[tuple[int, float]]:
        """The ``limit`` passages (``passages.id``) nearest ``query``, with their cosine."""
        ids, matrix = self._load(conn, model_id)
        if limit <= 0 or not len(ids) or matrix.shape[1] != len(query):
            return []
        scores = matrix @ np.asarray(query, dtype=np.float32)
        top = np.argsort(-scores, kind="stable")[:limit]
        return [(int(ids[i]), float(scores[i])) for i in top]

    def _load(self, conn: sqlite3.Connection, model_id: str) -> tuple[np.ndarray, np.ndarray]:
        key = (id(conn), conn.execute("PRAGMA data_version").fetchone()[0],
               conn.total_changes, model_id)
        with self._lock:
            if key == self._key:
                return self._ids, self._matrix
        rows = conn.execute("SELECT passage, vector FROM vectors WHERE model_id = ? "
                            "ORDER BY passage", (model_id,)).fetchall()
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        matrix = (np.stack([np.frombuffer(r[1], dtype="<f4") for r in rows]).astype(np.float32)
                  if rows else np.zeros((0, 0), dtype=np.float32))
        with self._lock:
            self._key, self._ids, self._matrix = key, ids, matrix
        _LOGGER.debug("turn=0 knowledge vectors loaded: %d of %s", len(ids), model_id)
        return ids, matrix
