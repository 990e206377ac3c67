"""The capture trace: raw microphone audio, so opt-in only, and capped in memory and on disk."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from desktop_agent.audio.capture_trace import ENV_VAR, MAX_MARKS, CaptureTrace

BLOCK = 512


def test_nothing_is_recorded_unless_the_variable_names_a_file(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert CaptureTrace.from_env() is None
    monkeypatch.setenv(ENV_VAR, "   ")
    assert CaptureTrace.from_env() is None
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "t.npz"))
    trace = CaptureTrace.from_env()
    assert trace is not None and trace.path == tmp_path / "t.npz"


def test_audio_frames_and_marks_stop_at_the_cap(tmp_path: Path) -> None:
    trace = CaptureTrace(tmp_path / "deep" / "trace.npz", max_seconds=1.0)  # 16 000 samples
    rng = np.random.default_rng(1)
    for i in range(200):  # 6.4 s offered
        block = rng.standard_normal(BLOCK).astype(np.float32) * 0.1
        trace.block(block, None if i % 2 else block * 0.5, block * 0.9)
        trace.frame(i * BLOCK, 0.5, False, -20.0, -30.0, 3.0)
    for i in range(MAX_MARKS + 500):
        trace.mark(i, "echo_reset")
    assert trace.full
    held = sum(len(b) for b in trace.near)
    assert 16_000 <= held <= 16_000 + BLOCK  # at most one block past the cap
    frames = len(trace.frames)  # the frame of the block that filled it is not kept
    assert held // BLOCK - 1 <= frames <= held // BLOCK and len(trace.marks) == MAX_MARKS
    saved = np.load(trace.save())
    assert len(saved["near"]) == len(saved["far"]) == len(saved["cleaned"]) == held
    assert saved["frames"].shape == (frames, 6)
    assert len(saved["mark_label"]) == MAX_MARKS
    assert trace.path.stat().st_size < 4 * 3 * held + 1_000_000  # bounded by the cap
