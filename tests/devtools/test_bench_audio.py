"""The audio bench's pieces on tiny inputs: keys present, figures in sane ranges.

The figures themselves are printed by ``desktop-agent bench audio``, never asserted here;
these tests prove each piece measures what it says (a broken flush, a deaf capture
pipeline or a missing key fails them).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from desktop_agent.devtools import bench_audio, bench_bargein
from desktop_agent.devtools.simulate import nonspeech, speech_like

REQUIRED = ("erle_steady_db", "doubletalk_nearend_change_db", "ptt_to_silence_p95_ms",
            "onset_to_duck_p95_ms", "self_interruptions", "false_barge_in_rate",
            "interruption_recall")


def test_ptt_to_silence_is_one_block_plus_the_fade() -> None:
    speech = speech_like(2.0, 16_000, seed=5)
    r = bench_audio.ptt_to_silence(speech, 16_000, trials=12, device_rate=48_000)
    assert 0 < r["ptt_to_silence_p50_ms"] <= r["ptt_to_silence_p95_ms"]
    # The flush acts on the next 10 ms block and fades over 5 ms.
    assert r["ptt_to_silence_max_ms"] <= 10 + 5 + 1


def test_nonspeech_sounds_are_bounded_and_distinct() -> None:
    sounds = {k: nonspeech(k, seed=1, level=0.5) for k in ("cough", "clap", "knock", "breath")}
    for x in sounds.values():
        assert 0.3 < len(x) / 16_000 < 2.0 and np.max(np.abs(x)) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        nonspeech("sneeze")


@pytest.fixture(scope="module")
def voices(models: Any) -> bench_bargein.Voices:
    return bench_bargein.Voices.load()


@pytest.mark.models
def test_interruption_is_ducked_and_decided_and_a_cough_is_not(voices: Any) -> None:
    answer = voices.say(bench_bargein.ANSWERS[0]) * bench_bargein.ASSISTANT_PEAK
    say = bench_bargein.Trial("interrupt", "say", voices.say("Tell me something else.") * 0.5,
                              echo_gain=0.5)
    row = bench_bargein.run_trial(voices, say, answer)
    assert row["interrupted"] and row["self_interrupts"] == 0, row
    assert 100 < row["onset_to_duck_ms"] <= row["onset_to_decision_ms"] < 3000, row
    cough = bench_bargein.Trial("nonspeech", "cough", nonspeech("cough", level=0.5), 0.5)
    row = bench_bargein.run_trial(voices, cough, answer)
    assert not row["interrupted"], row


@pytest.mark.models
def test_echo_alone_never_interrupts(voices: Any) -> None:
    r = bench_bargein.self_interruptions(voices, minutes=0.3, conditions=1)
    assert r["self_interruptions"] == 0, r
    assert 0.25 < r["self_echo_minutes"] < 0.6


@pytest.mark.models
@pytest.mark.slow
def test_run_prints_one_json_object_with_every_key(voices: Any, capsys: Any,
                                                   monkeypatch: Any) -> None:
    def tiny(v: Any, quick: bool) -> list[Any]:
        return [bench_bargein.Trial("interrupt", "i", v.say("Hold on a second.") * 0.5, 0.5),
                bench_bargein.Trial("backchannel", "b", v.say("Okay.", 0.9, 0.93) * 0.4, 0.5),
                bench_bargein.Trial("nonspeech", "n", nonspeech("clap", level=0.5), 0.5)]

    real_measure = bench_bargein.measure
    monkeypatch.setattr(bench_bargein, "trial_set", tiny)
    monkeypatch.setattr(bench_bargein.Voices, "load", classmethod(lambda cls: voices))
    monkeypatch.setattr(bench_bargein, "measure",
                        lambda v, quick: real_measure(v, quick=quick, minutes=0.2))
    result = bench_audio.run(json_out=True, quick=True)
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(result))
    for key in REQUIRED:
        assert key in printed and printed[key] is not None, key
    assert 0.0 <= printed["false_barge_in_rate"] <= 1.0
    assert 0.0 <= printed["interruption_recall"] <= 1.0
    assert printed["erle_steady_db"] > 10 and printed["ptt_to_silence_p95_ms"] < 20


def test_an_echo_onset_still_open_when_the_user_speaks_is_the_users_barge_in() -> None:
    def barge(detected: int, decided: int | None) -> Any:
        return bench_bargein.Barge(judge=None, detected=detected, decided=decided)  # type: ignore[arg-type]

    echo = barge(1000, 2000)  # decided before the user began: the echo's own
    early = barge(2500, 4000)  # opened by echo 0.5 s early, decided on the user's words
    late = barge(3200, None)
    before, mine = bench_bargein.split_barges([echo, early, late], start=3000)
    assert before == [echo] and mine == [early, late]
