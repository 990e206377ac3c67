"""The turn telemetry log: times only, and bounded on disk."""

from __future__ import annotations

import json
from pathlib import Path

from desktop_agent.compose.runtime import jsonl_span_sink
from desktop_agent.core.cancel import TurnId
from desktop_agent.core.turns.telemetry import TurnSpan


def test_the_span_log_holds_times_only_and_stays_bounded(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "turns.jsonl"
    sink = jsonl_span_sink(path, max_bytes=2_000)
    for turn in range(1, 400):
        span = TurnSpan(TurnId(turn))
        span.mark("endpoint", 10.0 * turn)
        span.mark("first_audio", 10.0 * turn + 0.7)
        sink(span)
    files = sorted(p.name for p in path.parent.iterdir())
    assert files == ["turns.jsonl", "turns.jsonl.1"]
    assert all(p.stat().st_size < 2_000 + 200 for p in path.parent.iterdir())
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert rows[-1]["turn_id"] == 399
    assert set(rows[-1]) == {"turn_id", "marks", "since_endpoint_ms"}  # no words in it
