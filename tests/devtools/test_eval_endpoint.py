"""The endpoint evaluation: what counts as a false endpoint and how the wait is measured."""

from __future__ import annotations

import numpy as np
import pytest

from desktop_agent.core.listening.endpointing import TurnModelSettings
from desktop_agent.devtools.eval_endpoint import (
    FS,
    LEAD_S,
    Clip,
    _ReplayVad,
    _TimedDetector,
    run_clip,
)
from tests.fakes.vad import FakeDetector, ScriptedVad


class _Vad(ScriptedVad):
    frame_samples = 512


def _pair(first_text: str, pause_s: float = 0.7) -> Clip:
    rng = np.random.default_rng(1)
    lead = np.zeros(int(LEAD_S * FS), np.float32)
    a, b = (0.1 * rng.standard_normal((2, FS))).astype(np.float32)  # 1 s each
    gap, tail = np.zeros(int(pause_s * FS), np.float32), np.zeros(3 * FS, np.float32)
    a0 = len(lead)
    b0 = a0 + len(a) + len(gap)
    return Clip("a+b", "pair", np.concatenate([lead, a, gap, b, tail]),
                [(a0, a0 + len(a), first_text), (b0, b0 + len(b), "Press one.")])


@pytest.mark.parametrize("text,settings,probability,early,wait_s", [
    ("Thank you.", None, 0.9, True, None),  # short (0.5 s) < the 0.7 s pause: closed inside
    ("To leave the conference...", None, 0.9, False, 0.5),  # long wait: one turn
    ("Thank you.", TurnModelSettings(), 0.9, True, None),  # both agree: closed inside
    ("Thank you.", TurnModelSettings(), 0.1, False, 1.0),  # the model hears more: 1.0 s
    # Vetoed at the pause; at the end the stale "..." partial still vetoes at the probe
    # (0.224 s) and the turn ends when "... Press one." arrives (0.12 + 0.25 s, next frame).
    ("To leave the conference...", TurnModelSettings(), 0.9, False, 0.384),
])
def test_false_endpoints_and_waits(text: str, settings: TurnModelSettings | None,
                                   probability: float, early: bool,
                                   wait_s: float | None) -> None:
    detector = _TimedDetector(FakeDetector(probability))
    closed_early, wait = run_clip(_pair(text), _ReplayVad(_Vad()), detector, settings, 0.25)
    assert closed_early is early
    if wait_s is None:
        assert wait is None
    else:
        # From the last loud sample to the end of the 32 ms frame that ended the turn.
        assert wait is not None and wait_s <= wait <= wait_s + 0.035, wait
