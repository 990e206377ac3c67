"""desktop_agent: a fully local, offline desktop voice assistant."""

from __future__ import annotations

from desktop_agent.adapters.heap_trim import limit_arenas as _limit_arenas

# Before any thread allocates: glibc gives each thread that allocates before the limit an
# arena of its own (numpy's and the engines' thread pools start at import), and
# ``malloc_trim`` cannot give back the top of those arenas (adapters/heap_trim.py).
_limit_arenas()

__all__ = [
    "adapters",
    "audio",
    "cli",
    "compose",
    "core",
    "devtools",
    "gui",
    "runtime",
]


__version__ = "0.1.0"
