"""The turn benchmark's own arithmetic: where speech ends in a clip, and the report."""

from __future__ import annotations

import numpy as np

from desktop_agent.devtools.bench_turns import speech_end_index, summarize


def test_speech_end_is_found_by_energy_not_by_the_clip_length() -> None:
    t = np.arange(16_000) / 16_000
    voice = 0.3 * np.sin(2 * np.pi * 220 * t).astype(np.float32)
    hiss = 0.001 * np.random.default_rng(1).standard_normal(8_000).astype(np.float32)
    clip = np.concatenate([voice, hiss])
    assert speech_end_index(clip) == 16_000
    assert speech_end_index(np.zeros(0, np.float32)) == 0


def test_report_keeps_its_keys_and_says_what_each_stage_adds() -> None:
    stream = [{"asr_final": 100.0, "llm_first_token": 300.0, "first_chunk": 500.0,
               "first_audio": 520.0, "from_speech_end": 700.0},
              {"asr_final": 200.0, "llm_first_token": 400.0, "first_chunk": 700.0,
               "first_audio": 720.0, "from_speech_end": 900.0}]
    serial = [{**row, "first_audio": row["first_audio"] * 2} for row in stream]
    report = summarize(stream, serial)
    for key in ("n_turns", "p50_first_audio_ms", "p95_first_audio_ms",
                "serial_p50_first_audio_ms", "ratio_p50", "p50_from_speech_end_ms"):
        assert key in report
    assert report["n_turns"] == 2
    assert report["p50_first_audio_ms"] == 620.0
    assert report["p50_from_speech_end_ms"] == 800.0
    assert report["ratio_p50"] == 0.5
    assert report["p50_added_by_llm_first_token_ms"] == 200.0
    assert report["p50_added_by_first_chunk_ms"] == 250.0
