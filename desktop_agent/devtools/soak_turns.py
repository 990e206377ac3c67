"""The soak's turns: what each one does (its fault, spoken or typed, its question, from the
seed), and its record when it is over (how it ended, how long it took, stuck or overrun).

A turn is *stuck* when it is not back in LISTENING within its deadline, counted from the
end of the user's input: the audio synthesised for it, plus the stage timeouts its path
may wait on (ASR when spoken, the first LLM token, a tool, a hung voice, the apology), plus
the outage for a device loss, plus ``MARGIN_S``. A reply *overruns* when it was in
ASSISTANT_SPEAKING longer than its audio plus ``SPEAK_MARGIN_S`` (plus the TTS timeout when
the voice was made to hang). ``soak_run`` runs the turns.
"""

from __future__ import annotations

import random
from typing import Any, Final

from desktop_agent.devtools.soak_faults import ENGINE_FAULTS

FAULTS: Final = ("none", *ENGINE_FAULTS, "barge_in_ptt", "barge_in_voice", "device_loss")
"""Every kind of turn; the first ``len(FAULTS)`` turns hold each once (shuffled)."""
MARGIN_S: Final = 12.0
SPEAK_MARGIN_S: Final = 3.0

SHORT = ("What is the capital of France?", "How many legs does a spider have?",
         "Name a primary colour.", "What is the boiling point of water?",
         "Who wrote Romeo and Juliet?", "Is a tomato a fruit?")
LONG = ("Tell me about the moon in a few sentences.", "Explain how a car engine works.")
TOOL = ("What time is it?", "What is twelve times seven?")
BARGE = "Wait, stop. What is the capital of Spain?"


def plan(turns: int, seed: int) -> list[tuple[str, bool, str]]:
    """(fault, spoken, question) per turn, from ``seed``: every fault once, then at random."""
    rng = random.Random(seed)
    kinds = list(FAULTS)
    rng.shuffle(kinds)
    weights = [6 if k == "none" else 1 for k in FAULTS]
    while len(kinds) < turns:
        kinds.append(rng.choices(FAULTS, weights)[0])
    out = []
    for i, kind in enumerate(kinds[:turns]):
        rng = random.Random(seed * 1_000_003 + i)  # turn i is the same in a longer soak
        if kind.startswith("tool"):
            question = rng.choice(TOOL)
        elif kind.startswith("barge") or kind in ("device_loss", "llm_stall"):
            question = rng.choice(LONG)
        else:
            question = rng.choice(SHORT + TOOL)
        spoken = kind in ("barge_in_voice", "device_loss") or rng.random() < 0.4
        out.append((kind, spoken, question))
    return out


def turn_record(i: int, kind: str, spoken: bool, question: str, trans: list[tuple[float, Any]],
                times: tuple[float, float, float], audio_s: float, outage: float, back: bool,
                policy: Any, fillers: int, stall_s: float) -> dict[str, Any]:
    """One turn's JSON line: how it ended, how long it took, and whether it was stuck.

    ``times``: when the turn started, when the user's input ended, when it was LISTENING.
    """
    started, input_end, ended = times
    path = [f"{t.target.name}:{t.cause}" for _at, t in trans]
    errored = any(t.target.name == "ERROR" for _at, t in trans)
    deadline = audio_s + MARGIN_S + policy.llm_first_token_timeout_s
    if spoken:
        deadline += policy.asr_timeout_s
    if kind.startswith("tool") or question in TOOL:
        deadline += policy.tool_timeout_s
    if kind.startswith("tts") or errored:
        deadline += policy.tts_timeout_s + policy.apology_timeout_s
    if kind == "llm_stall":
        deadline += stall_s
    if kind == "barge_in_voice":
        deadline += policy.asr_timeout_s + policy.llm_first_token_timeout_s  # the new turn
    deadline += outage + (10.0 if kind == "device_loss" else 0.0)
    speaking, entered = 0.0, None
    for at, t in trans:
        if t.target.name == "ASSISTANT_SPEAKING":
            entered = at
        elif t.source.name == "ASSISTANT_SPEAKING" and entered is not None:
            speaking += at - entered
            entered = None
    # While a filler plays, the reply is still waiting for the model or a tool (their
    # timeouts bound it); a hung voice or a stalled model is bound by its own timeout.
    allowed = audio_s + SPEAK_MARGIN_S + outage
    allowed += fillers * (policy.llm_first_token_timeout_s + policy.tool_timeout_s)
    allowed += policy.tts_timeout_s if kind.startswith("tts") else 0.0
    allowed += stall_s if kind == "llm_stall" else 0.0
    took = ended - input_end
    return {"turn": i, "fault": kind, "spoken": spoken,
            "ended_by": path[-1].split(":", 1)[1] if path else "nothing",
            "path": path, "took_s": round(took, 2), "deadline_s": round(deadline, 1),
            "stuck": (not back) or took > deadline, "speaking_s": round(speaking, 2),
            "audio_s": round(audio_s, 2), "overrun": speaking > allowed,
            "input_s": round(input_end - started, 2), "outage_s": round(outage, 2),
            "fillers": fillers}

