"""HeapKeeper trims after a turn has settled; adapters.heap_trim really gives memory back."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

from desktop_agent.core.turns.states import State
from desktop_agent.runtime.heap_keeper import HeapKeeper


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_trims_once_the_turn_has_settled_and_not_inside_it(qtbot: Any) -> None:
    calls: list[int] = []
    clock = _Clock()
    keeper = HeapKeeper(lambda: bool(calls.append(1)), settle_ms=50, min_gap_s=10.0,
                        clock=clock)
    keeper.on_state(State.LISTENING)
    keeper.on_state(State.USER_SPEAKING)  # the next turn began before the turn settled
    qtbot.wait(150)
    assert keeper.trims == 0
    keeper.on_state(State.LISTENING)
    qtbot.waitUntil(lambda: keeper.trims == 1, timeout=5_000)
    keeper.join()
    assert calls == [1]
    clock.now += 1.0  # a second turn soon after: within the gap, no trim
    keeper.on_state(State.PROCESSING)
    keeper.on_state(State.LISTENING)
    qtbot.wait(150)
    assert keeper.trims == 1
    clock.now += 10.0
    keeper.on_state(State.PROCESSING)
    keeper.on_state(State.LISTENING)
    qtbot.waitUntil(lambda: keeper.trims == 2, timeout=5_000)
    keeper.join()
    assert calls == [1, 1]


def test_a_turn_that_ends_within_the_gap_gets_its_trim_once_the_gap_has_passed(
        qtbot: Any) -> None:
    keeper = HeapKeeper(lambda: True, settle_ms=20, min_gap_s=0.4)
    keeper.on_state(State.LISTENING)
    qtbot.waitUntil(lambda: keeper.trims == 1, timeout=5_000)
    keeper.on_state(State.PROCESSING)  # a short turn
    keeper.on_state(State.LISTENING)
    qtbot.wait(100)
    assert keeper.trims == 1  # within the gap: not yet
    qtbot.waitUntil(lambda: keeper.trims == 2, timeout=5_000)  # but once it has passed
    keeper.on_state(State.PROCESSING)
    keeper.on_state(State.LISTENING)
    keeper.on_state(State.USER_SPEAKING)  # the next turn began: the deferred trim waits too
    qtbot.wait(700)
    assert keeper.trims == 2
    keeper.join()


def test_a_failing_trim_is_only_logged(qtbot: Any) -> None:
    def boom() -> bool:
        raise OSError("no")

    keeper = HeapKeeper(boom, settle_ms=10)
    keeper.on_state(State.LISTENING)
    qtbot.waitUntil(lambda: keeper.trims == 1, timeout=5_000)
    keeper.join()


def test_malloc_trim_returns_freed_heap_to_the_system() -> None:
    """Freed small blocks stay resident until trimmed (a fresh process: clean figures)."""
    code = textwrap.dedent("""
        from pathlib import Path
        from desktop_agent.adapters.heap_trim import trimmer

        def rss():
            for line in Path("/proc/self/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024

        trim = trimmer()
        assert trim is not None, "glibc without malloc_trim?"
        blocks = [bytearray(64 * 1024) for _ in range(3000)]  # under the mmap threshold
        pin = bytearray(64 * 1024)  # keeps the heap's top in use: no automatic trim
        full = rss()
        del blocks
        freed = rss()
        trim()
        print(full, freed, rss())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    full, freed, trimmed = map(int, out)
    assert full - trimmed > 120, (full, freed, trimmed)  # ~190 MiB allocated
    assert freed - trimmed > 120, (full, freed, trimmed)  # freeing alone gave little back


def _arenas_after_threads(first: str) -> int:
    """Arenas glibc reports (malloc_stats) after ``first`` ran, then four threads allocated."""
    code = textwrap.dedent(f"""
        {first}
        import ctypes, threading
        def work():
            blocks = [bytearray(4096) for _ in range(200)]
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        ctypes.CDLL("libc.so.6").malloc_stats()
    """)
    err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stderr
    return err.count("Arena ")


def test_importing_the_app_keeps_every_thread_in_the_main_arena() -> None:
    # The top of a thread's own arena is never trimmed by malloc_trim, so the limit must
    # hold before any thread allocates: the package sets it when it is imported.
    assert _arenas_after_threads("") > 1  # each new thread got its own
    assert _arenas_after_threads("import desktop_agent") == 1
    assert _arenas_after_threads(
        "import desktop_agent.adapters.heap_trim as h; assert h.limit_arenas()") == 1
