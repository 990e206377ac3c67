"""EchoGate: residual echo is not speech; a voice above it is."""

from __future__ import annotations

from desktop_agent.audio.echo_gate import EchoGate


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


def test_echo_tail_outlasts_the_speaker_briefly() -> None:
    gate = EchoGate()
    gate.far_block(0.01, _db(-20))
    for _ in range(20):
        gate.far_block(0.01, 0.0)
    assert gate.is_echo(_db(-24))  # 0.2 s after: the echo may still arrive
    for _ in range(10):
        gate.far_block(0.01, 0.0)
    assert not gate.is_echo(_db(-24))  # 0.3 s after: that is the user
