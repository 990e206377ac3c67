"""A bounded single-producer single-consumer ring buffer of samples.

The producer (e.g. an audio input callback) only calls :meth:`write`; the consumer
(a worker thread) only calls :meth:`read` / :meth:`read_available`. Each side
copies with numpy and then publishes its own monotonically increasing counter;
a Python int assignment is atomic under the GIL, so neither side ever blocks on
a lock. When the buffer is full, :meth:`write` drops the newest samples and
counts them in :attr:`dropped` rather than blocking the audio callback.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt


class SampleRing:
    """A bounded SPSC ring of 1-D samples (any numpy dtype)."""

    def __init__(self, capacity: int, dtype: npt.DTypeLike = np.float32) -> None:
        """Create a ring.

        Args:
            capacity: maximum samples held.
            dtype: sample type.
        """
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity = int(capacity)
        self._data = np.zeros(self.capacity, dtype=dtype)
        self._written = 0  # total samples ever written; only the producer assigns it
        self._read = 0  # total samples ever read; only the consumer assigns it
        self.dropped = 0
        """Samples the producer could not store because the ring was full."""

    def __len__(self) -> int:
        """Samples available to read."""
        return self._written - self._read

    @property
    def total_written(self) -> int:
        """Samples ever written (the stream position of the next write)."""
        return self._written

    @property
    def total_read(self) -> int:
        """Samples ever read (the stream position of the next read)."""
        return self._read

    def write(self, samples: npt.ArrayLike) -> int:
        """Copy ``samples`` in; return how many fitted (the rest are dropped).

        Runs on: the producer thread (an audio callback is fine: no lock, no allocation
        beyond numpy's view).
        """
        x = np.asarray(samples).reshape(-1)
        free = self.capacity - (self._written - self._read)
        n = min(len(x), free)
        if n < len(x):
            self.dropped += len(x) - n
        if n > 0:
            start = self._written % self.capacity
            first = min(n, self.capacity - start)
            self._data[start : start + first] = x[:first]
            if n > first:
                self._data[: n - first] = x[first:n]
            self._written += n  # publish after the copy
        return n

    def read(self, n: int) -> npt.NDArray[np.generic]:
        """Return up to ``n`` samples (fewer if fewer are available), oldest first.

        Runs on: the consumer thread.
        """
        avail = self._written - self._read
        n = max(0, min(n, avail))
        start = self._read % self.capacity
        first = min(n, self.capacity - start)
        out = np.empty(n, dtype=self._data.dtype)
        out[:first] = self._data[start : start + first]
        if n > first:
            out[first:] = self._data[: n - first]
        self._read += n  # publish after the copy
        return out

    def read_available(self) -> npt.NDArray[np.generic]:
        """Return everything currently available.

        Runs on: the consumer thread.
        """
        return self.read(self._written - self._read)

    def wait(self, min_samples: int, timeout_s: float, rate: float | None = None,
             next_write: Callable[[], float | None] | None = None) -> bool:
        """Block until at least ``min_samples`` are readable or ``timeout_s`` passes.

        Polls: the producer is an audio callback that must never take a lock or signal a
        condition, so there is nothing to wait on. It sleeps until the producer's next
        write is expected (``next_write``: a monotonic time, or None when unknown), or else,
        with the producer's ``rate`` (samples per second), until the missing samples are
        due; then it polls every 2 ms. The same wake-up to within 2 ms, without the idle
        wake-ups: a device that delivers blocks every 40 ms gets no polls while one is on
        its way (sleeping by ``rate`` alone, one sample short of a block polled for a whole
        period).

        Runs on: the consumer thread.

        Returns:
            True if enough samples are available.
        """
        deadline = time.monotonic() + timeout_s
        while (missing := min_samples - (self._written - self._read)) > 0:
            now = time.monotonic()
            if now >= deadline:
                return False
            expected = next_write() if next_write is not None else None
            if expected is not None:
                due = expected - now
            else:
                due = missing / rate if rate else 0.0
            time.sleep(min(max(0.002, due), max(0.0, deadline - now)))
        return True

    def clear(self) -> None:
        """Discard everything readable.

        Runs on: the consumer thread.
        """
        self._read = self._written
