"""PlaybackMonitor's stall watchdog: a speaker that takes no audio fails the turn."""

from __future__ import annotations

from typing import Any

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.model import Stage
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
