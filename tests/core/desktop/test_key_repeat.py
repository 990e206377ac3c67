"""Auto-repeat filtering over raw (kind, keycode, time) events: one press, one release."""

from __future__ import annotations

from desktop_agent.core.desktop.key_repeat import KeyEdge, RepeatFilter

F9 = 75
CTRL = 37


def press(t: int, code: int = F9) -> KeyEdge:
    return KeyEdge("press", code, t)


def release(t: int, code: int = F9) -> KeyEdge:
    return KeyEdge("release", code, t)


def run(events: list[KeyEdge], flush_after: bool = True) -> list[KeyEdge]:
    keys = RepeatFilter()
    out = [edge for event in events for edge in keys.feed(event)]
    return out + keys.flush() if flush_after else out


def held(start: int, end: int, first_repeat_ms: int = 660, every_ms: int = 40) -> list[KeyEdge]:
    """What the X server sends for one hold: a press, release+press pairs, a release."""
    events = [press(start)]
    t = start + first_repeat_ms
    while t < end:
        events += [release(t), press(t)]
        t += every_ms
    return [*events, release(end)]


def test_a_held_key_gives_one_press_and_one_release() -> None:
    raw = held(1000, 2500)  # 1.5 s at Xvfb's defaults (660 ms delay, 25 a second)
    assert len(raw) == 44
    assert run(raw) == [press(1000), release(2500)]


def test_two_holds_give_two_pairs() -> None:
    assert run(held(0, 800) + held(900, 1000)) == [press(0), release(800), press(900),
                                                   release(1000)]


def test_a_release_waits_for_the_next_event_or_a_flush() -> None:
    keys = RepeatFilter()
    assert keys.feed(press(10)) == [press(10)]
    assert keys.feed(release(500)) == [] and keys.holding_release
    assert keys.is_down(F9)  # until decided, the key counts as still down
    assert keys.flush() == [release(500)]
    assert not keys.holding_release and not keys.is_down(F9)
    assert keys.flush() == []


def test_a_press_at_another_time_after_a_release_is_a_new_hold() -> None:
    # A quick tap-tap: the second press is 1 ms later, so the release was real.
    assert run([press(0), release(100), press(101), release(200)]) == [
        press(0), release(100), press(101), release(200)]


def test_the_pair_must_be_the_same_key() -> None:
    keys = RepeatFilter()
    keys.feed(press(0))
    keys.feed(press(0, CTRL))
    assert keys.feed(release(50)) == []
    assert keys.feed(press(50, CTRL)) == [release(50)]  # another key: F9's release is real
    assert keys.is_down(CTRL)


def test_presses_without_releases_are_repeats() -> None:
    # Detectable auto-repeat: the server sends only presses while the key is held.
    assert run([press(0), press(600), press(640), release(700)]) == [press(0), release(700)]


def test_a_release_of_a_key_never_seen_down_is_dropped() -> None:
    assert run([release(5), press(10), release(20)]) == [press(10), release(20)]


def test_without_a_flush_the_last_release_is_still_held_back() -> None:
    assert run(held(0, 1000), flush_after=False) == [press(0)]


def test_release_all_ends_a_hold_in_progress_and_a_held_back_release() -> None:
    keys = RepeatFilter()
    keys.feed(press(0))
    assert keys.release_all(900) == [release(900)]
    assert keys.release_all(901) == []
    keys.feed(press(1000))
    keys.feed(release(1100))
    assert keys.release_all(1200) == [release(1100)]  # the real release, not a second one
