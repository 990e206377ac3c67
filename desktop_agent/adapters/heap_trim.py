"""Give freed heap memory back to the system (glibc's ``malloc_trim``).

The engines allocate and free large native buffers every turn (Whisper's features, the
voice's tensors, numpy arrays of a reply's audio, on several threads). glibc keeps what was
freed inside its arenas for reuse and only hands the top of the main heap back by itself,
so the resident size only ever rises to the highest point any turn reached, then more as
the holes fragment. ``malloc_trim(0)`` returns every free page of every arena. Measured
with ``bench soak`` (docs/notes/soak.md): most of the growth was such freed memory.

Each thread that allocates also gets an arena of its own (up to eight per core), and each
keeps its own high-water mark and its own holes; ``malloc_trim`` gives back the free pages
inside every arena but the unused top of the main one only, so what a worker freed at the
top of its own arena stayed resident (the soak's step, docs/notes/soak.md).
``limit_arenas`` keeps every thread in the main arena (glibc's ``M_ARENA_MAX``, as
``MALLOC_ARENA_MAX=1`` would). It must run before any thread allocates: a thread keeps the
arena it has, and numpy's and the engines' thread pools start when they are imported, so
the package calls it when it is imported (``desktop_agent/__init__.py``).

On a C library without ``malloc_trim``/``mallopt`` (musl, macOS) there is nothing to do:
``trimmer`` returns None and ``limit_arenas`` False.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

M_ARENA_MAX = -8
"""glibc's mallopt parameter for the most arenas (malloc.h)."""
ARENAS = 1
"""Arenas the app allows: the main one, shared by every thread, whose top ``malloc_trim``
gives back (two, the main one and one for the workers, left 30-50 MiB at the workers' top)."""


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def limit_arenas(count: int = ARENAS) -> bool:
    """Allow at most ``count`` malloc arenas from now on; True when the C library took it.

    Call it before the worker threads start: a thread that already has an arena keeps it.
    """
    libc = _libc()
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None:
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, count))


def trimmer() -> Callable[[], bool] | None:
    """A function that trims the heap (True when memory was released), or None."""
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int

    def _trim() -> bool:
        return bool(trim(0))

    return _trim
