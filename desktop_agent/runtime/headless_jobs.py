"""The engine jobs of the headless executor: what runs on each lane for one command.

Each function is one job, submitted by ``HeadlessExecutor`` (runtime/headless.py) to its
engine's ``Lane``: it runs the engine with the job's ``CancelToken`` and posts the events the
machine waits for through the ``Outbox``, as the app's workers emit them (runtime/workers.py).
A failure is posted as StageFailed with its typed error, unless the job was cancelled: then
nothing more is said (late output of a cancelled job is dropped by the machine anyway).

Runs on: the lane's thread.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from desktop_agent.audio.speech_chunk import speak_text
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.listening.endpointing import is_hallucination
from desktop_agent.core.ports import AsrEngine, LlmEngine, ToolSpec, TtsEngine
from desktop_agent.core.reflection.reflector import reflect
from desktop_agent.core.reflection.verdict import GrammarWriter, VerdictJudge, Writers
from desktop_agent.core.tools.answer import guard_llm_run
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import Stage
from desktop_agent.core.turns.tool_desk import WriteDesk, respond
from desktop_agent.runtime.headless_io import Outbox


def asr_job(out: Outbox, c: cmd.Transcribe, token: CancelToken, asr: AsrEngine,
            audio: Any) -> None:
    """Transcribe ``audio``; post AsrFinal ('' and ``no_speech`` when nothing was said)."""
    try:
        result = asr.transcribe(audio, token)
        text = result.text.strip()
        # No VAD runs headless: the audio counts as speech, so only text without
        # words, or a stock phrase Whisper itself doubts, is dropped.
        silent = not text or is_hallucination(text, result.no_speech_prob, 1.0)
        out.post(ev.AsrFinal(turn_id=c.turn_id, at_s=out.clock(), job=c.job,
                             text="" if silent else text, no_speech=silent))
    except Exception as exc:
        if not token.cancelled:
            out.fail(c.turn_id, c.job, Stage.ASR, exc)


def llm_job(out: Outbox, c: cmd.StartLlm, token: CancelToken, llm: LlmEngine,
            specs: Sequence[ToolSpec], max_tokens: int) -> None:
    """Stream a reply: LlmStarted, LlmToken..., then LlmToolCall or LlmFinished."""
    try:
        out.post(ev.LlmStarted(turn_id=c.turn_id, at_s=out.clock(), job=c.job))
        deltas: Iterator[Any] = guard_llm_run(c.messages, llm.stream_chat(
            c.messages, token, specs if c.tools else (), max_tokens))
        for delta in deltas:
            if token.cancelled:
                return
            if delta.tool_call is not None:
                out.post(ev.LlmToolCall(turn_id=c.turn_id, at_s=out.clock(), job=c.job,
                                        call=delta.tool_call))
                break  # the machine runs the tool and starts a new run with the result
            if delta.text:
                out.post(ev.LlmToken(turn_id=c.turn_id, at_s=out.clock(), job=c.job,
                                     text=delta.text, unit=delta.unit))
        if not token.cancelled:
            out.post(ev.LlmFinished(turn_id=c.turn_id, at_s=out.clock(), job=c.job))
    except Exception as exc:
        if not token.cancelled:
            out.fail(c.turn_id, c.job, Stage.LLM, exc)


def reflect_job(out: Outbox, c: cmd.Reflect, token: CancelToken,
                judge: VerdictJudge | None, writer: GrammarWriter | Writers | None = None) -> None:
    """Judge the utterance so far (``core.reflection.reflector.reflect``); post Reflected."""
    try:
        if token.cancelled:
            return
        got = reflect(c.question, c.utterance, judge, token, writer)
        if not token.cancelled:
            out.post(ev.Reflected(turn_id=c.turn_id, at_s=out.clock(), job=c.job,
                                  verdict=got.verdict.value, guidance=got.guidance,
                                  correction=got.correction, flagged_word=got.flagged_word,
                                  checker=got.checker))
    except Exception as exc:
        if not token.cancelled:
            out.fail(c.turn_id, c.job, Stage.LLM, exc)


def tool_job(out: Outbox, c: cmd.RunTool, token: CancelToken, tools: ToolRegistry,
             desk: WriteDesk | None) -> None:
    """Run, prepare or execute the call; post ToolResult (a failure too: the LLM is told)."""
    answer = respond(tools, desk, c)
    if not token.cancelled:
        out.post(ev.ToolResult(turn_id=c.turn_id, at_s=out.clock(), job=c.job,
                               call_id=c.call.call_id, content=answer.content,
                               is_error=answer.is_error, action=answer.action,
                               final=answer.final))


def tts_job(out: Outbox, c: cmd.Synthesize, token: CancelToken, tts: TtsEngine) -> None:
    """Synthesise the clause into one chunk; post TtsChunkReady with its audio."""
    try:
        chunk = speak_text(tts, c.text, token)
        if token.cancelled:
            return
        out.post(ev.TtsChunkReady(
            turn_id=c.turn_id, at_s=out.clock(), job=c.job, chunk_index=c.chunk_index,
            text=chunk.text if chunk else "", n_samples=chunk.n_samples if chunk else 0,
            sample_rate=chunk.sample_rate if chunk else tts.sample_rate,
            words=chunk.words if chunk else (),
            aligned=chunk.aligned if chunk else False, written_text=c.text), chunk=chunk)
    except Exception as exc:
        if not token.cancelled:
            out.fail(c.turn_id, c.job, Stage.TTS, exc)
