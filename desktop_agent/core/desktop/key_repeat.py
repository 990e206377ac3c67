"""Auto-repeat filtered out of a stream of raw key events: one press, one release per hold.

While a key is held, the X server repeats it as pairs of KeyRelease + KeyPress of the same
keycode with the same server time (a 1.5 s hold of F9 under Xvfb: 46 raw events).
``RepeatFilter`` drops each such pair, and also a press of a key already down (servers with
detectable auto-repeat send presses only) and a release of a key it never saw go down.

A release cannot be judged alone: the press that would make it a repeat comes after it. So
the filter holds a release back until the next event decides, or until the caller says no
event came (``flush``): the listener calls it when nothing more is queued a short grace
(``RELEASE_GRACE_S``) after the release. The server writes a repeat's pair in one go, so
the grace only covers a read that split them.

Pure: events are ``(kind, keycode, time_ms)`` values; no clock, no X.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

KeyKind = Literal["press", "release"]

RELEASE_GRACE_S: Final = 0.05
"""Seconds the listener waits for the press that would make a held-back release a repeat."""


@dataclass(frozen=True, slots=True)
class KeyEdge:
    """A key went down or came up (raw from the server, or kept by the filter)."""

    kind: KeyKind
    keycode: int
    time_ms: int
    """The X server's timestamp of the event, in milliseconds (wraps at 2**32)."""


class RepeatFilter:
    """Turns raw key events into one press and one release per physical hold.

    Runs on: the thread that reads the events (the listener's); not thread-safe.
    """

    def __init__(self) -> None:
        """Start with no key down."""
        self._down: set[int] = set()
        self._held_back: KeyEdge | None = None

    @property
    def holding_release(self) -> bool:
        """True while a release waits for the next event (or ``flush``) to decide."""
        return self._held_back is not None

    def is_down(self, keycode: int) -> bool:
        """True between the kept press of ``keycode`` and its kept release."""
        return keycode in self._down

    def feed(self, event: KeyEdge) -> list[KeyEdge]:
        """Take one raw event; return the edges it decides (0, 1 or 2, in order)."""
        out: list[KeyEdge] = []
        held = self._held_back
        if held is not None:
            self._held_back = None
            if (event.kind == "press" and event.keycode == held.keycode
                    and event.time_ms == held.time_ms):
                return out  # release + press at one instant: auto-repeat, the key stays down
            out += self._release(held)
        if event.kind == "release":
            if event.keycode in self._down:
                self._held_back = event
            return out  # a release of a key never seen down is dropped
        if event.keycode not in self._down:  # a second press without release is a repeat
            self._down.add(event.keycode)
            out.append(event)
        return out

    def flush(self) -> list[KeyEdge]:
        """No event followed the held-back release: it is a real release."""
        held, self._held_back = self._held_back, None
        return self._release(held) if held is not None else []

    def release_all(self, time_ms: int) -> list[KeyEdge]:
        """End every hold now (the listener stops): a release for each key still down."""
        out = self.flush()
        out += [KeyEdge("release", code, time_ms) for code in sorted(self._down)]
        self._down.clear()
        return out

    def _release(self, edge: KeyEdge) -> list[KeyEdge]:
        self._down.discard(edge.keycode)
        return [edge]
