"""SQLite files on disk: moving a damaged database (and its side files) aside."""

from __future__ import annotations

import time
from pathlib import Path


def move_aside(path: Path, now: float) -> Path | None:
    """Rename ``path`` and its ``-wal``/``-shm`` files to ``<name>.corrupt-<time>[suffix]``.

    Args:
        path: The database file (closed by the caller first).
        now: UTC epoch seconds, for the new names.

    Returns:
        Where the database file now is (None when there was none).
    """
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    moved: Path | None = None
    if path.exists():
        moved = path.with_name(f"{path.name}.corrupt-{stamp}")
        path.replace(moved)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.replace(side.with_name(f"{path.name}.corrupt-{stamp}{suffix}"))
    return moved
