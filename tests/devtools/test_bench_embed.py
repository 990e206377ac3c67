"""bench embed's arithmetic on a fake engine and a fake clock (the real run prints figures)."""

from __future__ import annotations

from typing import Any

from desktop_agent.devtools.bench_embed import SENTENCES, measure, summarize


def test_summarize_median_p95_max() -> None:
    figures = summarize([float(x) for x in range(1, 101)])  # 1..100 ms
    assert figures == {"n": 100, "median": 50.5, "p95": 95.0, "max": 100.0}
    assert summarize([]) == {"n": 0, "median": 0.0, "p95": 0.0, "max": 0.0}


class _Clock:
    """Each call to the engine advances time by 2 ms a text (+1 ms a call)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_measure_times_load_single_and_batched() -> None:
    clock = _Clock()
    built: list[int] = []

    class Engine:
        def embed(self, texts: list[str]) -> Any:
            clock.now += (1 + 2 * len(texts)) / 1000
            return None

    def make(threads: int) -> Engine:
        built.append(threads)
        clock.now += 0.5  # loading takes 500 ms
        return Engine()

    out = measure(make, sentences=["a", "b", "c", "d"], threads=2, rounds=2, clock=clock)
    assert built == [2] and out["threads"] == 2
    assert out["load_ms"] == 503.0  # load + the warm-up call of one text
    assert out["one_at_a_time_ms"] == {"n": 8, "median": 3.0, "p95": 3.0, "max": 3.0}
    assert out["batched_ms_per_sentence"] == 2.25  # (1 + 2 * 4) ms / 4


def test_the_sentences_are_a_hundred_distinct_everyday_ones() -> None:
    assert len(SENTENCES) == 100 and len(set(SENTENCES)) == 100
    assert all(s.strip() == s and s for s in SENTENCES)
