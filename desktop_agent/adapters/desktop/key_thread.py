"""The thread a global key listens on, woken by a pipe to end; callbacks that cannot kill it.

Both global keys (the X11 grab and the desktop portal) block on a connection's file
descriptor in their own thread. ``KeyThread`` gives that thread a pipe to wait on beside it:
``stop`` writes one byte, the thread's ``select`` sees ``wake_fd`` readable and returns, and
the pipe is closed only once the thread has ended (never under its feet).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any

_LOGGER = logging.getLogger(__name__)


class KeyThread:
    """One listener thread and its wake-up pipe.

    Runs on: ``start``/``stop`` on the caller's thread; ``target`` on the new thread.
    """

    def __init__(self) -> None:
        """Nothing runs until ``start``."""
        self._thread: threading.Thread | None = None
        self.wake_fd = -1
        """Readable once ``stop`` was called: the thread selects on it beside its own fd."""
        self._wake_w = -1

    @property
    def started(self) -> bool:
        """True from ``start`` until a ``stop`` that saw the thread end."""
        return self._thread is not None

    @property
    def running(self) -> bool:
        """True while the thread runs."""
        return self._thread is not None and self._thread.is_alive()

    def start(self, target: Callable[..., None], name: str, *args: Any) -> None:
        """Open the pipe and start ``target(*args)`` on a daemon thread named ``name``."""
        self.wake_fd, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float) -> bool:
        """Wake the thread and wait for it to end; True when it ended within ``timeout_s``.

        Safe to call twice, or before ``start``. From the thread itself (a callback) it only
        wakes it and returns False: it cannot wait for itself.
        """
        thread = self._thread
        if thread is None:
            return True
        try:
            os.write(self._wake_w, b"x")  # the pipe stays open until the thread has ended
        except OSError:
            pass
        if thread is threading.current_thread():
            return False
        thread.join(timeout_s)
        if thread.is_alive():
            return False
        for fd in (self.wake_fd, self._wake_w):
            os.close(fd)
        self.wake_fd = self._wake_w = -1
        self._thread = None
        return True


def call_safely(callback: Callable[..., None], *args: Any) -> None:
    """Call ``callback``; a broken callback is logged and must not end the key's thread."""
    try:
        callback(*args)
    except Exception:
        _LOGGER.exception("global key callback %r failed", callback)
