"""A grounded answer's spoken units through the turn machine: admission and dispositions."""

from __future__ import annotations

import dataclasses

from desktop_agent.core.knowledge.records import Quote, SpokenUnit
from desktop_agent.core.turns import commands as c
from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.reports import PublishUnit
from desktop_agent.core.turns.states import State
from tests.core.turns.scenario import Script, run_scenario


def unit(key: str, text: str, generation: int = 1) -> SpokenUnit:
    quote = Quote(passage_id=f"manual.pdf@abc#{key}", file="/docs/manual.pdf", title="manual.pdf",
                  quote=text, page=2)
    return SpokenUnit(key=key, generation=generation, text=text, claim_keys=(f"c-{key}",),
                      evidence=(quote.passage_id,), quotes=(quote,))


U1 = unit("u1", "Top up to one and a half bar, but only when the boiler is cold.")
U2 = unit("u2", "Open the filling loop until the gauge reads one and a half bar.")
U3 = unit("u3", "Then close the valve again.")


def dispositions(log, turn_id: int = 1) -> list[tuple[str, str]]:
    return [(p.unit.key, p.disposition) for p in log.of(PublishUnit) if p.turn_id == turn_id]


def test_each_unit_is_spoken_by_clause_admitted_before_it_plays_and_heard_when_it_ends(
) -> None:
    script = Script()
    script.user_ptt(0.5, 1.5, "how do I top up the pressure")
    script.reply(units=(U1, U2))
    log = run_scenario(script)
    assert log.targets[-1] is State.LISTENING
    # Unit 1 is two clauses: the first is synthesised on its own so it can play at once.
    assert [s.text for s in log.of(c.Synthesize)] == [
        "Top up to one and a half bar,", "but only when the boiler is cold.", U2.text]
    # 'ready' once per unit (with its first clause), 'heard' once when the reply ends.
    assert dispositions(log) == [("u1", "ready"), ("u2", "ready"), ("u1", "heard"),
                                 ("u2", "heard")]
    # Unit 1 is published as ready before its chunk is queued to the speaker.
    kinds = log.kinds()
    assert kinds.index("PublishUnit") < kinds.index("PlayChunk")
    assert log.turn(1).heard_text == f"{U1.text} {U2.text}"


def test_a_barge_in_after_the_first_unit_marks_the_rest_unheard_and_plays_nothing_stale() -> None:
    script = Script(tts_s=0.05)
    script.user_ptt(0.5, 1.5, "how do I top up the pressure")
    script.reply(units=(U1, U2, U3))
    script.user_ptt(4.0, 4.6, "actually, the opened one")  # unit 1 plays from ~1.9 s for ~4 s
    script.reply("Fine.")
    log = run_scenario(script)
    final = dict(dispositions(log)[3:])
    assert final["u1"] == "partly_heard"
    assert final["u2"] in ("unheard", "canceled") and final["u3"] in ("unheard", "canceled")
    played_after_cut = [p for t, p in log.commands if isinstance(p, c.PlayChunk)
                        and p.turn_id == 1 and t >= 4.0]
    assert played_after_cut == []
    assert log.turn(1).heard.interrupted


def test_a_unit_of_another_generation_is_stale_and_never_synthesised() -> None:
    script = Script()
    script.user_ptt(0.5, 1.5, "what does E2 mean")
    old = dataclasses.replace(U2, key="u9", generation=0)
    script.reply(units=(U1, old))
    log = run_scenario(script)
    assert ("u9", "stale") in dispositions(log)
    assert " ".join(s.text for s in log.of(c.Synthesize)) == U1.text
    assert log.turn(1).heard_text == U1.text


def test_a_unit_ready_too_late_expires_and_the_turn_still_ends() -> None:
    script = Script(tts_s=0.5, policy=TurnPolicy(unit_max_age_s=0.3))
    script.user_ptt(0.5, 1.5, "what does E2 mean")
    script.reply(units=(U1,))
    log = run_scenario(script)
    assert dispositions(log) == [("u1", "expired")]
    assert log.of(c.PlayChunk) == []
    assert log.targets[-1] is State.LISTENING
