"""The speaker's sleep while idle, against a stand-in for PortAudio's stream (the real
stream on the virtual card: tests/audio/test_pulse.py)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from desktop_agent.adapters.audio.audio_io import SpeakerOutput
from desktop_agent.audio.player import Player
from desktop_agent.core.cancel import TurnId
from desktop_agent.core.errors import DeviceError


class _Stream:
    """What SpeakerOutput calls on a sounddevice stream, recorded."""

    def __init__(self, fail_start: bool = False) -> None:
        self.active = True
        self.calls: list[str] = []
        self.fail_start = fail_start

    def start(self) -> None:
        self.calls.append("start")
        if self.fail_start:
            raise RuntimeError("Device unavailable")
        self.active = True

    def abort(self, ignore_errors: bool = True) -> None:
        self.calls.append("abort")
        self.active = False

    def close(self, ignore_errors: bool = True) -> None:
        self.calls.append("close")


def _speaker(sleep_after_s: float, stream: _Stream | None = None) -> tuple[Player, SpeakerOutput]:
    player = Player(48_000)
    speaker = SpeakerOutput(player, None, sleep_after_s=sleep_after_s)
    speaker._stream, speaker._started = stream or _Stream(), True
    player.on_enqueue = speaker.wake
    return player, speaker


def _queue(player: Player, turn: int = 1) -> None:
    assert player.enqueue(TurnId(turn), np.zeros(2400, np.int16), 24_000, timeout_s=0)


def test_an_idle_speaker_sleeps_without_a_device_error_and_queued_audio_wakes_it() -> None:
    player, speaker = _speaker(3.0)
    now = time.monotonic()
    assert not speaker.sleep_if_idle(now + 1.0)  # not idle long enough
    assert speaker.sleep_if_idle(now + 3.5)
    stream = speaker._stream
    assert speaker.asleep and stream.calls == ["abort"]
    speaker._on_finished()  # PortAudio reports the end of a stream put to sleep
    speaker.check()  # ... and neither is a device error
    _queue(player)
    assert not speaker.asleep and speaker.wakes == 1 and stream.calls == ["abort", "start"]
    assert not speaker.sleep_if_idle(time.monotonic() + 10.0)  # audio queued: never


def test_a_paused_reply_keeps_the_speaker_running() -> None:
    player, speaker = _speaker(0.0)
    player.pause()
    assert not speaker.sleep_if_idle(time.monotonic() + 10.0)
    player.resume()
    assert speaker.sleep_if_idle(time.monotonic() + 10.0)


def test_the_end_of_a_reply_wakes_a_sleeping_speaker_for_its_last_samples() -> None:
    player, speaker = _speaker(0.0)
    _queue(player)
    player.render(4800)  # played; the resampler's tail is still to come
    assert speaker.sleep_if_idle(time.monotonic() + 10.0)
    player.end_turn(TurnId(1))
    assert not speaker.asleep and speaker.wakes == 1


def test_a_reopened_speaker_gets_its_full_idle_time_again() -> None:
    _, speaker = _speaker(3.0)
    old = time.monotonic() - 10.0
    speaker._busy_at = old
    speaker.close()  # as reopen() does, before the new stream opens
    speaker._stream, speaker._started = _Stream(), True
    assert not speaker.sleep_if_idle(time.monotonic() + 1.0)


def test_a_stream_that_cannot_start_again_is_a_device_error_for_the_capture_thread() -> None:
    player, speaker = _speaker(0.0, _Stream(fail_start=True))
    assert speaker.sleep_if_idle(time.monotonic() + 1.0)
    _queue(player)  # the producer is never the one to see the error
    with pytest.raises(DeviceError) as err:
        speaker.check()
    assert err.value.code == "audio_device_lost" and "did not start again" in err.value.message


def test_a_woken_speaker_stays_awake_until_the_audio_that_woke_it_is_queued() -> None:
    """The producer wakes the stream before it resamples and queues; a long chunk took
    longer to resample than a short idle timeout, and the capture thread's idle check put
    the stream back to sleep with the audio still to come (it then never played)."""
    player, speaker = _speaker(0.0)
    assert speaker.sleep_if_idle(time.monotonic() + 1.0)
    slept_meanwhile: list[bool] = []

    def wake_then_idle_check() -> None:  # the capture thread's check, between the two
        speaker.wake()
        slept_meanwhile.append(speaker.sleep_if_idle(time.monotonic() + 10.0))

    player.on_enqueue = wake_then_idle_check
    _queue(player)
    player.end_turn(TurnId(1))  # its resampler tail: the same window
    assert slept_meanwhile == [False, False] and not speaker.asleep and speaker.wakes == 1
    player.render(4800 + 100)
    assert speaker.sleep_if_idle(time.monotonic() + 10.0)  # played out: idle again
