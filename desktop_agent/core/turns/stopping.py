"""Stopping work of the turn: cancel what is in flight, stop an LLM run, fail the turn.

Functions over the shared ``TurnCore`` (base.py), used by every handler that stops something:
a false endpoint, a barge-in, a reset, a failure, the confirmation card.
"""

from __future__ import annotations

import logging

from desktop_agent.core.turns.base import TurnCore
from desktop_agent.core.turns.commands import (
    CancelAsr,
    CancelLlm,
    CancelTool,
    CancelTts,
    FlushPlayback,
    SpeakApology,
)
from desktop_agent.core.turns.context import Reply
from desktop_agent.core.turns.states import Stage, State

_LOGGER = logging.getLogger(__name__)


def cancel_work(core: TurnCore, *, keep_stream: bool = False,
                keep_asr: bool = False) -> tuple[str, ...]:
    """Cancel everything in flight for the turn, in barge-in order; say what was cancelled.

    Order: playback first (silence is what the user waits for), then TTS, LLM, tools,
    recording and ASR, then the timers. The reply's bookkeeping (queued chunks, pending
    synthesis texts) is kept so that what was heard can still be worked out.

    Args:
        core: The machine's core.
        keep_stream: Keep the playback stream live to receive its PlaybackStopped.
        keep_asr: Keep transcriptions in flight (and their timers): after a false endpoint
            the earlier segment's transcript is still wanted.
    """
    ctx, tid, cancels = core.ctx, core.turn_id, []
    reply = ctx.reply
    if reply is not None and reply.stream_job is not None and core.is_live(reply.stream_job):
        core.emit(FlushPlayback(turn_id=tid, job=reply.stream_job, fade_ms=core.policy.fade_ms))
        cancels.append("playback")
        if not keep_stream:
            core.end_job(reply.stream_job)
    synth = [job for job in reply.synth if core.is_live(job)] if reply is not None else []
    if synth:
        core.emit(CancelTts(turn_id=tid, jobs=tuple(synth)))
        for job in synth:
            core.end_job(job)
        cancels.append("tts")
    llm_jobs = [reply.llm_job] if reply is not None and reply.llm_job is not None else []
    if reply is not None and reply.reflect is not None and reply.reflect.job is not None:
        llm_jobs.append(reply.reflect.job)  # a barge-in cancels the whole reflection loop
        reply.reflect.job = None
    if ctx.speculation is not None:
        llm_jobs.append(ctx.speculation.job)
        ctx.speculation = None
    for job in llm_jobs:
        core.emit(CancelLlm(turn_id=tid, job=job))
        core.end_job(job)
    if llm_jobs:
        cancels.append("llm")
    if reply is not None:
        reply.llm_job = None
        for job in reply.tools:
            core.emit(CancelTool(turn_id=tid, job=job))
            core.end_job(job)
        if reply.tools:
            cancels.append("tool")
        reply.tools.clear()
    asr_jobs = [] if keep_asr else list(ctx.asr_segment)
    if ctx.recording_job is not None:
        asr_jobs.insert(0, ctx.recording_job)
    for job in asr_jobs:
        core.emit(CancelAsr(turn_id=tid, job=job))
        core.end_job(job)
    if asr_jobs:
        cancels.append("asr")
    ctx.recording_job = None
    kept_timers = set(ctx.asr_timers.values()) if keep_asr else set()
    if not keep_asr:
        ctx.asr_segment.clear()
        ctx.asr_timers.clear()
    for job in list(ctx.timers):
        if job not in kept_timers:
            core.cancel_timer(job)
    ctx.llm_timer = ctx.tts_timer = ctx.flush_timer = ctx.filler_timer = None
    ctx.tool_timers.clear()
    return tuple(cancels)


def stop_llm_run(core: TurnCore, reply: Reply) -> None:
    """Cancel the LLM run of ``reply`` now streaming (its later output is dropped)."""
    if reply.llm_job is not None:
        core.emit(CancelLlm(turn_id=core.turn_id, job=reply.llm_job))
        core.end_job(reply.llm_job)
        reply.llm_job = None
        core.cancel_timer(core.ctx.llm_timer)
        core.ctx.llm_timer = None


def enter_error(core: TurnCore, at_s: float, cause: str, code: str, *,
                force: bool = False) -> bool:
    """Stop everything, apologise, and go to ERROR. Nothing of the turn is recorded.

    Args:
        core: The machine's core.
        at_s: Clock time of the failure.
        cause: The transition's cause.
        code: The failure's code (logged).
        force: Take the edge without the table (after an undeclared edge was refused).

    Returns:
        False when the edge to ERROR itself was refused (the caller stops).
    """
    _LOGGER.warning("turn %d: failed in %s: %s", core.turn_id, core.state.name, code)
    cancels = cancel_work(core)
    core.finish_span()
    core.clean_context()
    core.emit(SpeakApology(turn_id=core.turn_id, text=core.policy.apology_text))
    core.ctx.apology_timer = core.start_timer(Stage.APOLOGY, core.policy.apology_timeout_s)
    if force:
        core.record(State.ERROR, cause, at_s, cancels)
        return True
    return core.go(State.ERROR, cause, at_s, cancels)
