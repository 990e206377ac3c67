"""The listening cues: short, soft, rising for a start and falling for a stop."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_agent.audio.chime import listening_cue


def _pitch(samples: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(samples.astype(np.float64)))
    return float(np.fft.rfftfreq(len(samples), 1 / rate)[int(np.argmax(spectrum))])


@pytest.mark.parametrize(("kind", "rising"), [("start", True), ("stop", False)])
def test_a_start_rises_and_a_stop_falls(kind: str, rising: bool) -> None:
    rate = 48_000
    cue = listening_cue(kind, rate)  # type: ignore[arg-type]
    assert cue.dtype == np.int16 and len(cue) == int(0.1 * rate)
    first, second = _pitch(cue[: len(cue) // 2], rate), _pitch(cue[len(cue) // 2:], rate)
    assert (second > first) is rising
    assert {round(first, -1), round(second, -1)} == {880.0, 1320.0}
    assert 0.11 * 32767 < np.abs(cue).max() <= 0.12 * 32767
    assert abs(int(cue[0])) < 50 and abs(int(cue[-1])) < 50  # no click at either end
