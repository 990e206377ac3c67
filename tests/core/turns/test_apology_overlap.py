"""Hands-free: speech said over the spoken apology of a failed turn.

A speech onset in ERROR (the apology is playing) cuts the apology and starts the user's turn,
as a push-to-talk press does: the capture segmenter is already inside that speech and would
never report its start again, so ignoring it would lose the words. The onset is judged by
the capture pipeline's VAD with echo cancellation on the apology's own sound.
"""

from __future__ import annotations

import pytest

from desktop_agent.core.turns.reports import PublishUserText
from desktop_agent.core.turns.states import State
from tests.core.turns.scenario import Script, run_scenario

U, P, A, L, E = (State.USER_SPEAKING, State.PROCESSING, State.ASSISTANT_SPEAKING,
                 State.LISTENING, State.ERROR)


def _failed_then(script: Script) -> Script:
    script.user_speech(0.5, 1.5, "what is the weather")
    script.reply(fail_code="llm_error")  # ERROR near 2.4 s; the apology plays for 2 s
    return script


def test_push_to_talk_over_the_apology_starts_a_turn() -> None:
    script = _failed_then(Script())
    script.user_ptt(3.0, 4.5, "try again please")
    script.reply("Sunny.")
    log = run_scenario(script)
    assert log.targets == [U, P, E, U, P, A, L]
    assert log.turn(2).user_text == "try again please"


@pytest.mark.parametrize("end_s", [4.0, 6.0])  # ends during the apology / after it
def test_hands_free_speech_over_the_apology_is_not_lost(end_s: float) -> None:
    script = _failed_then(Script())
    script.user_speech(3.0, end_s, "try again please")
    script.reply("Sunny.")
    log = run_scenario(script)
    assert [x.text for x in log.of(PublishUserText)][-1:] == ["try again please"]
    assert log.targets[-4:] == [U, P, A, L]
    assert [m.content for m in log.machine.history.messages[1:]] == ["try again please",
                                                                    "Sunny."]
