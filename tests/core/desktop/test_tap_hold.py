"""Tap or hold: one talk key toggles on a tap and is held talk on a long press."""

from __future__ import annotations

from desktop_agent.core.desktop.tap_hold import TAP_S, TapOrHold


def test_a_long_press_is_held_talk() -> None:
    key = TapOrHold()
    assert key.press(10.0) == "start" and key.listening
    assert key.release(10.0 + TAP_S + 0.9) == "stop" and not key.listening


def test_a_tap_starts_listening_and_the_next_tap_ends_it() -> None:
    key = TapOrHold()
    assert key.press(1.0) == "start"
    assert key.release(1.2) == "none" and key.listening  # a tap: stays on
    assert key.press(6.0) == "stop" and not key.listening  # the second tap ends the turn
    assert key.release(6.1) == "none"  # ...and its release does nothing
    assert key.press(8.0) == "start"  # the next press starts afresh


def test_the_boundary_is_tap_s() -> None:
    key = TapOrHold(tap_s=0.5)
    key.press(0.0)
    assert key.release(0.499) == "none"  # a tap
    key.press(1.0)
    key.release(1.1)
    key.press(2.0)
    assert key.release(2.5) == "stop"  # exactly tap_s is a hold


def test_stray_edges_and_reset() -> None:
    key = TapOrHold()
    assert key.release(0.0) == "none"  # a release never seen going down
    key.press(1.0)
    assert key.press(1.1) == "none"  # a second press while down
    key.release(1.2)
    assert key.listening
    key.reset()  # cancelled elsewhere
    assert not key.listening and key.press(3.0) == "start"
