"""Hands-free: speech said over the spoken apology of a failed turn.

Today the machine ignores a speech onset in ERROR (the apology is playing); the apology ends,
the machine listens again, but the capture segmenter is already inside that speech and never
reports its start again, so its end is ignored too: the user's words are lost. A push-to-talk
press in ERROR already cuts the apology and starts a turn (test below, which passes).

The fix is in core/turns/machine.py, which the integrator is editing: in
``_on_speech_started``, for ``State.ERROR`` do what ``_on_ptt_pressed`` does (emit
``StopApology``, cancel ``ctx.apology_timer``, ``_begin_user_turn(event.speech_start_s,
"speech_started", event.at_s)``) and declare ERROR -> USER_SPEAKING for 'speech_started' in
core/turns/policy.py (it is declared already, for 'ptt_pressed'). The onset is judged by the
capture pipeline's VAD with echo cancellation on the apology's own sound (runtime/
capture_router routes onsets in every state but ASSISTANT_SPEAKING straight to the machine).
"""

from __future__ import annotations

import pytest

from desktop_agent.core.turns import commands as c
from desktop_agent.core.turns.model import State
from tests.core.scenario import Script, run_scenario

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


@pytest.mark.xfail(strict=True, reason=(
    "machine.py ignores SpeechStarted in ERROR, so hands-free speech over the apology is "
    "lost; the fix (module docstring) is in machine.py, which the integrator is editing"))
@pytest.mark.parametrize("end_s", [4.0, 6.0])  # ends during the apology / after it
def test_hands_free_speech_over_the_apology_is_not_lost(end_s: float) -> None:
    script = _failed_then(Script())
    script.user_speech(3.0, end_s, "try again please")
    script.reply("Sunny.")
    log = run_scenario(script)
    assert [x.text for x in log.of(c.PublishUserText)][-1:] == ["try again please"]
    assert log.targets[-4:] == [U, P, A, L]
    assert [m.content for m in log.machine.history.messages[1:]] == ["try again please",
                                                                    "Sunny."]
