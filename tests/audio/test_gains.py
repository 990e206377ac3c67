"""The Player's fade and duck ramps (``audio/gains.py``), apart from the Player."""

from __future__ import annotations

import numpy as np

from desktop_agent.audio.gains import Duck, Fade


def test_a_fade_out_reaches_silence_in_its_length_and_back_in() -> None:
    fade = Fade(4)
    assert fade.ramp(8, 1.0) is None  # full level stays untouched
    down = fade.ramp(3, 0.0)
    assert down is not None and np.allclose(down, [0.75, 0.5, 0.25])
    assert not fade.silent and fade.samples_left() == 1
    assert np.allclose(fade.ramp(3, 0.0), [0.0, 0.0, 0.0])  # type: ignore[arg-type]
    assert fade.silent and fade.samples_left() == 0
    up = fade.ramp(2, 1.0)
    assert up is not None and np.allclose(up, [0.25, 0.5])
    fade.reset()
    assert fade.ramp(5, 1.0) is None


def test_a_duck_ramps_over_one_block_then_holds_and_clamps() -> None:
    duck = Duck()
    block = np.ones(5, dtype=np.float32)
    duck.apply(block)
    assert np.all(block == 1.0)
    duck.set(0.2)
    block = np.ones(5, dtype=np.float32)
    duck.apply(block)
    assert np.allclose(block, np.linspace(1.0, 0.2, 5))
    block = np.ones(5, dtype=np.float32)
    duck.apply(block)
    assert np.allclose(block, 0.2)
    duck.set(-3.0)
    assert duck.target == 0.0
    duck.set(7.0)
    assert duck.target == 1.0
