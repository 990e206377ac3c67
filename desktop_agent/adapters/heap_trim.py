"""Give freed heap memory back to the system (glibc's ``malloc_trim``).

The engines allocate and free large native buffers every turn (Whisper's features, the
voice's tensors, numpy arrays of a reply's audio, on several threads). glibc keeps what was
freed inside its arenas for reuse and only hands the top of the main heap back by itself,
so the resident size only ever rises to the highest point any turn reached, then more as
the holes fragment. ``malloc_trim(0)`` returns every free page of every arena. Measured
with ``bench soak`` (README, Reliability): most of the growth was such freed memory.

On a C library without ``malloc_trim`` (musl, macOS) there is nothing to do: ``trimmer``
returns None.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from collections.abc import Callable

_LOGGER = logging.getLogger(__name__)


def trimmer() -> Callable[[], bool] | None:
    """A function that trims the heap (True when memory was released), or None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int

    def _trim() -> bool:
        return bool(trim(0))

    return _trim
