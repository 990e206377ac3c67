"""``cancel_turn`` (``desktop-agent ptt cancel``): the turn in progress is dropped."""

from __future__ import annotations

from typing import Any

from desktop_agent.core.turns.states import State
from tests.runtime.test_controller_settings import make_controller


def test_cancel_turn_drops_a_recording_and_the_release_then_does_nothing(qtbot: Any) -> None:
    c = make_controller()
    seen: list[Any] = []
    c.sig_transition.connect(seen.append)
    c.ptt_press()
    assert c.machine.state is State.USER_SPEAKING
    c.cancel_turn()
    assert c.machine.state is State.LISTENING
    assert [(t.target, t.cause) for t in seen] == [(State.USER_SPEAKING, "ptt_pressed"),
                                                    (State.LISTENING, "reset")]
    c.ptt_release()  # the window's key state comes up after the cancel: nothing to end
    assert c.machine.state is State.LISTENING and len(seen) == 2
    c.shutdown()


def test_cancel_turn_while_listening_changes_nothing(qtbot: Any) -> None:
    c = make_controller()
    seen: list[Any] = []
    c.sig_transition.connect(seen.append)
    c.cancel_turn()
    assert c.machine.state is State.LISTENING and seen == []
    c.shutdown()
