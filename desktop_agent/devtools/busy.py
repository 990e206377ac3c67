"""Busy processes beside a benchmark: the loaded machine the figures must hold on.

Each is a Python process spinning on one core (``while True: pass``), started before the
measured work and killed after it, whatever happens.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def busy_processes(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Run ``count`` CPU-bound processes for the duration of the ``with`` block."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(max(0, count))]
    try:
        yield spinners
    finally:
        for p in spinners:
            p.kill()
            p.wait(5)
