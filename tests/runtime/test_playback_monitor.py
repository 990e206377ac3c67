"""PlaybackMonitor's stall watchdog: a speaker that takes no audio fails the turn."""

from __future__ import annotations

from typing import Any

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import Stage
from desktop_agent.runtime.playback_monitor import STALL_S, PlaybackMonitor, _Stream


class StuckPlayer:
    paused = False


def _rig(qtbot: Any) -> tuple[PlaybackMonitor, StuckPlayer, list[Any], _Stream]:
    player, fed = StuckPlayer(), []
    monitor = PlaybackMonitor(player, fed.append)
    stream = _Stream(TurnId(2), 7, CancelToken(TurnId(2)), TurnId(1))
    return monitor, player, fed, stream


def test_a_speaker_that_stops_taking_audio_fails_the_turn(qtbot: Any) -> None:
    monitor, _, fed, s = _rig(qtbot)
    monitor._watch_stall(s, 1000, 10.0, 2.0)
    monitor._watch_stall(s, 1600, 10.5, 1.9)  # still playing
    monitor._watch_stall(s, 1600, 10.5 + STALL_S - 0.1, 1.9)
    assert fed == []
    monitor._watch_stall(s, 1600, 10.5 + STALL_S + 0.1, 1.9)
    assert len(fed) == 1 and isinstance(fed[0], ev.StageFailed)
    assert fed[0].stage is Stage.PLAYBACK and fed[0].code == "playback_stalled"
    monitor._watch_stall(s, 1600, 20.0, 1.9)
    assert len(fed) == 1  # once


def test_a_pause_or_an_empty_queue_is_not_a_stall(qtbot: Any) -> None:
    monitor, player, fed, s = _rig(qtbot)
    monitor._watch_stall(s, 1000, 10.0, 1.0)
    player.paused = True  # a barge-in being judged
    monitor._watch_stall(s, 1000, 10.0 + 2 * STALL_S, 1.0)
    player.paused = False  # all of it played: waiting for a slow LLM
    monitor._watch_stall(s, 1000, 10.0 + 4 * STALL_S, 0.0)
    monitor._watch_stall(s, 1000, 10.0 + 4 * STALL_S + 1.0, 1.0)
    s.drained = True  # an old stream: audio queued for a newer one is not its business
    monitor._watch_stall(s, 1000, 10.0 + 8 * STALL_S, 1.0)
    assert fed == []


class LaggingPlayer:
    """Each key plays out but reports a few samples fewer than it took (resampler rounding)."""

    paused = False
    queued_s = 0.0

    def __init__(self) -> None:
        from desktop_agent.audio.playback_turns import TurnPlayback

        self._make = TurnPlayback
        self.keys: dict[TurnId, list[int]] = {}

    def take(self, key: TurnId, n: int) -> None:
        self.keys.setdefault(key, [0, 0])[0] += n

    def finish(self, key: TurnId) -> None:
        self.keys[key][1] = self.keys[key][0] - 261

    def status(self, key: TurnId) -> Any:
        if key not in self.keys:
            return None
        enq, played = self.keys[key]
        return self._make(key, 22050, enq, played, 1.0, None,
                          "finished" if played else "playing")

    def end_turn(self, key: TurnId) -> None:
        pass


def test_a_reply_fed_on_two_keys_finishes_with_all_it_queued(qtbot: Any) -> None:
    player, fed = LaggingPlayer(), []
    monitor = PlaybackMonitor(player, fed.append)  # type: ignore[arg-type]
    token = CancelToken(TurnId(3))
    monitor.add(TurnId(3), 9, 1000, token)
    first = monitor.key(9)
    player.take(first, 1000)
    monitor._poll()  # drained: the key is ended (a slow LLM)
    player.finish(first)
    monitor._poll()
    monitor.add(TurnId(3), 9, 500, token)  # a late chunk: a new key
    second = monitor.key(9)
    assert second != first
    player.take(second, 500)
    monitor._poll()
    player.finish(second)
    monitor._poll()
    finished = [e for e in fed if isinstance(e, ev.PlaybackFinished)]
    assert finished and finished[-1].played_samples == 1500
