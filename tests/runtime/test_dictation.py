"""Dictation's bookkeeping over the talk key's turns (runtime/dictation.py), without models.

The whole thing, with the real app, models and an xterm, is tests/e2e/test_dictation_real.py;
here a host in memory plays the controller, so the cases a real run rarely meets can be
made: a second start while the first dictation is still transcribed, a typist that fails.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import State, Transition
from desktop_agent.runtime.dictation import Dictation, DictationHost


class Host:
    """The controller's part dictation uses: a turn id, a state, what was pressed."""

    def __init__(self) -> None:
        self.state, self.turn, self.calls = State.LISTENING, 0, []

    def host(self) -> DictationHost:
        return DictationHost(press=self.press, release=self.release, cue=lambda c: None,
                             cancel=lambda: self.calls.append("cancel"),
                             state=lambda: self.state, turn_id=lambda: self.turn)

    def press(self) -> None:
        self.turn += 1
        self.state = State.USER_SPEAKING
        self.calls.append("press")

    def release(self) -> None:
        self.state = State.PROCESSING
        self.calls.append("release")


class Typist:
    def __init__(self, fail: Exception | None = None) -> None:
        self.fail, self.typed = fail, []

    def focused(self) -> str:
        return "42"

    def type(self, text: str) -> str:
        if self.fail is not None:
            raise self.fail
        self.typed.append(text)
        return ""


@pytest.fixture
def dictations() -> Iterator[list[Dictation]]:
    """Dictations closed at the end of the test, so none is destroyed on its typing thread."""
    made: list[Dictation] = []
    yield made
    for d in made:
        d.close()


def _finish(d: Dictation, host: Host, words: str) -> None:
    d.take_final(ev.AsrFinal(turn_id=TurnId(host.turn), job=1, text=words, no_speech=False,
                             at_s=1.0))
    host.state = State.LISTENING
    d.on_transition(Transition(TurnId(host.turn), State.PROCESSING, State.LISTENING,
                               "no_speech", 1.0))


def test_a_second_start_while_the_first_is_transcribed_keeps_the_first(
        qtbot: Any, dictations: list[Dictation]) -> None:
    host, typist = Host(), Typist()
    d = Dictation(host.host(), typist, lambda text: None)
    dictations.append(d)
    statuses: list[Any] = []
    d.sig_status.connect(statuses.append)
    assert d.start() == "Dictating." and d.stop() == "Stopped dictating."
    assert d.toggle().startswith("Still typing the last dictation")
    assert "cancel" not in host.calls and host.calls == ["press", "release"]
    _finish(d, host, "Dear Anna, thank you.")
    qtbot.waitUntil(lambda: typist.typed == ["Dear Anna, thank you."], timeout=5000)
    assert d.toggle() == "Dictating."  # once typed, a new one starts


def test_a_typist_that_fails_says_so_and_is_never_stuck(
        qtbot: Any, dictations: list[Dictation]) -> None:
    host = Host()
    d = Dictation(host.host(), Typist(RuntimeError("BadWindow")), lambda text: None)
    dictations.append(d)
    statuses: list[Any] = []
    d.sig_status.connect(statuses.append)
    d.start()
    d.stop()
    _finish(d, host, "hello there")
    qtbot.waitUntil(lambda: statuses and statuses[-1].kind == "not_typed", timeout=5000)
    assert "typing failed (RuntimeError)" in statuses[-1].text


def test_hands_free_listens_as_push_to_talk_while_a_dictation_runs(
        qtbot: Any, dictations: list[Dictation]) -> None:
    from types import SimpleNamespace

    from desktop_agent.compose.controller import _listening_mode

    host = Host()
    d = Dictation(host.host(), Typist(), lambda text: None)
    dictations.append(d)
    app: Any = SimpleNamespace(mode="hands_free", dictation=d)
    assert _listening_mode(app) == "hands_free"
    d.start()  # a pause in dictated speech must not end it, nor go to the assistant
    assert _listening_mode(app) == "push_to_talk"
    d.stop()
    assert _listening_mode(app) == "push_to_talk"  # still being transcribed
    _finish(d, host, "hello")
    assert _listening_mode(app) == "hands_free"


class SlowTypist(Typist):
    """Types once ``gate`` is set, saying when it has begun."""

    def __init__(self) -> None:
        super().__init__()
        self.begun, self.gate = threading.Event(), threading.Event()

    def type(self, text: str) -> str:
        self.begun.set()
        self.gate.wait(10)
        return super().type(text)


def test_close_waits_for_the_words_being_typed(qtbot: Any) -> None:
    """The app's shutdown (and a test's end) joins the typing thread: the Dictation is never
    destroyed on it while its last status is still queued for the GUI thread."""
    host, typist = Host(), SlowTypist()
    d = Dictation(host.host(), typist, lambda text: None)
    d.start()
    d.stop()
    _finish(d, host, "see you at nine")
    assert typist.begun.wait(10)
    typing = [t for t in threading.enumerate() if t.name == "dictation-typing"]
    assert typing and all(t.is_alive() for t in typing)
    typist.gate.set()
    d.close()
    assert typist.typed == ["see you at nine"]
    assert not any(t.is_alive() for t in typing)


def test_close_waits_for_every_dictation_still_being_typed(qtbot: Any) -> None:
    """A second dictation may start while the first is still typed: both are joined."""
    host, typist = Host(), SlowTypist()
    d = Dictation(host.host(), typist, lambda text: None)
    for words in ("a long letter", "ok"):
        d.start()
        d.stop()
        _finish(d, host, words)
    qtbot.waitUntil(lambda: sum(t.name == "dictation-typing" and t.is_alive()
                                for t in threading.enumerate()) >= 2, timeout=5000)
    assert len(d._typing) == 2
    typist.gate.set()
    d.close()
    assert sorted(typist.typed) == ["a long letter", "ok"] and d._typing == []
