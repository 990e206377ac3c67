"""Waiting on the app in end-to-end tests: a timeout says where the app stood."""

from __future__ import annotations

import time
from typing import Any


def reply_state(c: Any) -> str:
    """What the machine's reply still waits for (LLM run, synthesis, playback)."""
    reply = getattr(getattr(c.machine, "_ctx", None), "reply", None)
    if reply is None:
        return "none"
    return (f"llm_job={reply.llm_job} llm_done={reply.llm_done} synth={len(reply.synth)} "
            f"ready={len(reply.ready)} tools={len(reply.tools)} queued={reply.queued_samples} "
            f"played={reply.played_samples} idle={reply.playback_idle} ducked={reply.ducked}")


def wait_or_explain(qtbot: Any, c: Any, what: Any, timeout_s: float) -> None:
    """``qtbot.waitUntil(what)``; on timeout, an AssertionError with the app's state."""
    try:
        qtbot.waitUntil(what, timeout=int(timeout_s * 1000))
    except Exception as exc:
        recent = [(int(t.turn_id), t.source.name, t.target.name, t.cause, round(t.at_s, 2))
                  for t in list(c.transitions)[-10:]]
        asr = c.link.engines.asr
        raise AssertionError(
            f"timed out after {timeout_s} s in {c.machine.state.name} at "
            f"{time.monotonic():.2f}; tracker active={c.barge_tracker.active}, "
            f"player paused={c.backend.player.paused}, asr submitted={asr.submitted} "
            f"finished={asr.finished}, last transitions={recent}, "
            f"verdicts={list(c.barge_tracker.verdicts)[-4:]}, reply={reply_state(c)}") from exc
