"""EchoGate and EchoCoherence: residual echo is not speech; a voice above it is."""

from __future__ import annotations

import numpy as np

from desktop_agent.audio.echo_gate import EchoCoherence, EchoGate


def _db(power_db: float) -> float:
    return 10 ** (power_db / 10)


def test_learns_the_residual_and_lets_a_louder_voice_through() -> None:
    gate = EchoGate()
    assert not gate.is_echo(_db(-40))  # the speaker is silent: nothing to confuse
    for _ in range(50):
        gate.far_block(0.01, _db(-20))
        assert gate.is_echo(_db(-20 - 25))  # residual 25 dB under the speaker
    assert gate.ratio_db < -20
    gate.far_block(0.01, _db(-20))
    assert not gate.is_echo(_db(-30))  # a voice 15 dB above the residual
    assert gate.is_echo(_db(-43))


def test_unconverged_canceller_leaks_everything_and_is_still_echo() -> None:
    gate = EchoGate()
    gate.far_block(0.01, _db(-20))
    assert gate.is_echo(_db(-24))  # 4 dB under the speaker: the filter has learned nothing yet


def test_while_the_reference_settles_the_gate_judges_as_if_nothing_were_removed() -> None:
    gate = EchoGate()
    for _ in range(50):
        gate.far_block(0.01, _db(-20))
        gate.is_echo(_db(-45))
    learnt = gate.ratio_db
    assert learnt < -20
    # Just after an underrun the canceller's filter sits a few ms off: it leaves far more.
    assert not gate.is_echo(_db(-30))  # what passes once the reference is back in place
    assert gate.is_echo(_db(-30), settling=True)  # ... is echo until then
    assert not gate.is_echo(_db(-12), settling=True)  # a voice well above the speaker is not
    for _ in range(20):
        gate.is_echo(_db(-22), settling=True)
    assert gate.ratio_db == learnt  # the misplaced residual taught it nothing


def test_echo_tail_outlasts_the_speaker_briefly() -> None:
    gate = EchoGate()
    gate.far_block(0.01, _db(-20))
    for _ in range(20):
        gate.far_block(0.01, 0.0)
    assert gate.is_echo(_db(-24))  # 0.2 s after: the echo may still arrive
    for _ in range(10):
        gate.far_block(0.01, 0.0)
    assert not gate.is_echo(_db(-24))  # 0.3 s after: that is the user


def _speechy(seconds: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(seconds * 16_000)
    envelope = np.abs(np.sin(np.linspace(0, 9 * np.pi, n))) + 0.1  # syllables
    return (rng.standard_normal(n) * envelope * 0.1).astype(np.float32)


def _coherence_after(near: np.ndarray, far: np.ndarray) -> EchoCoherence:
    coherence = EchoCoherence()
    for i in range(0, len(near), 160):
        coherence.push(near[i:i + 160], far[i:i + 160])
    return coherence


def test_a_mic_that_is_a_delayed_copy_of_the_speaker_is_echo() -> None:
    far = _speechy(1.0, 1)
    for delay in (0, 480, 4000):  # 0, 30 and 250 ms after the reference
        near = np.concatenate([np.zeros(delay, np.float32), far[:len(far) - delay]]) * 0.7
        coherence = _coherence_after(near, far)
        assert coherence.rho(coherence.end) > 0.95, delay
        assert coherence.is_echo(coherence.end)


def test_a_voice_over_the_echo_is_not_echo() -> None:
    far, voice = _speechy(1.0, 1), _speechy(1.0, 2)
    echo = np.concatenate([np.zeros(480, np.float32), far[:-480]])
    coherence = _coherence_after(echo + voice, far)  # the user as loud as the echo
    assert coherence.rho(coherence.end) < 0.8
    assert not coherence.is_echo(coherence.end)
    alone = _coherence_after(voice, far)  # the user alone, the speaker playing
    assert alone.rho(alone.end) < 0.3
    # An echo 400 ms late is beyond any room: the rule does not claim it.
    late = np.concatenate([np.zeros(6400, np.float32), far[:-6400]])
    assert not _coherence_after(late, far).is_echo(16_000)


def test_silence_is_not_judged() -> None:
    coherence = _coherence_after(np.zeros(8000, np.float32), _speechy(0.5, 1))
    assert coherence.rho(coherence.end) == 0.0


def test_a_frame_right_after_the_user_needs_less_margin() -> None:
    gate = EchoGate()
    for _ in range(50):
        gate.far_block(0.01, _db(-20))
        gate.is_echo(_db(-45))  # learns a residual 25 dB under the speaker
    gate.far_block(0.01, _db(-20))
    assert gate.is_echo(_db(-41))  # 4 dB above the residual: echo, on its own
    assert not gate.is_echo(_db(-41), holding=True)  # but it continues a word that passed
