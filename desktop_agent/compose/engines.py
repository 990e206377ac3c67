"""Headless composition: load the engines the GUI uses and run one streaming turn.

Used by ``desktop-agent ask``, ``doctor`` and the benchmarks. The LLM streams on the
calling thread; a TTS thread synthesises each clause as soon as the chunker releases
it, exactly as the runtime's workers do, so the timings mean the same thing.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop_agent.adapters.asr_whisper import WhisperAsr
from desktop_agent.adapters.llm_llama import LlamaLlm
from desktop_agent.adapters.model_resolver import ModelResolver, ResolvedModel, load_manifest
from desktop_agent.adapters.tools_builtin import default_tools
from desktop_agent.adapters.tts_piper import PiperTts
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AgentError, TtsError
from desktop_agent.core.history import tool_call_message, tool_result_message
from desktop_agent.core.ports import ChatMessage, SpeechChunk
from desktop_agent.core.prompts import SYSTEM_PROMPT
from desktop_agent.core.settings import Settings
from desktop_agent.core.text.chunker import first_clause_chunker
from desktop_agent.core.text.normalize import normalize_for_speech
from desktop_agent.core.tool_answer import guard_tool_answer
from desktop_agent.core.tools import ToolRegistry

_LOGGER = logging.getLogger(__name__)

THREADS_ASR = 2
"""CTranslate2 threads: ASR runs while the LLM and TTS are idle, so it may take both cores."""
THREADS_LLM = 2
"""llama.cpp threads for prefill and generation."""
THREADS_TTS = 1
"""onnxruntime threads for Piper: it runs beside the LLM, so it gets one core."""


@dataclass
class Engines:
    """Loaded engines and how long each took to load."""

    asr: WhisperAsr | None = None
    llm: LlamaLlm | None = None
    tts: PiperTts | None = None
    models: dict[str, ResolvedModel] = field(default_factory=dict)
    load_ms: dict[str, float] = field(default_factory=dict)
    tools: ToolRegistry = field(default_factory=default_tools)


def resolve_models(settings: Settings, roles: Sequence[str] = ("asr", "llm", "tts"),
                   resolver: ModelResolver | None = None) -> dict[str, ResolvedModel]:
    """Find (and if needed assemble) the model of each role chosen in ``settings``."""
    resolver = resolver or ModelResolver(load_manifest())
    choice = {"asr": settings.models.asr, "llm": settings.models.llm, "tts": settings.models.tts,
              "vad": ""}
    return {role: resolver.resolve(choice[role], role) for role in roles}


def load_engines(settings: Settings | None = None,
                 roles: Sequence[str] = ("asr", "llm", "tts")) -> Engines:
    """Resolve and load the engines for ``roles``. Raises ModelError with a fix on failure."""
    settings = settings or Settings()
    engines = Engines()
    start = time.perf_counter()
    engines.models = resolve_models(settings, roles)
    engines.load_ms["resolve"] = (time.perf_counter() - start) * 1000
    for role in roles:
        t0 = time.perf_counter()
        path = engines.models[role].path
        if role == "asr":
            engines.asr = WhisperAsr(path, cpu_threads=THREADS_ASR)
        elif role == "llm":
            engines.llm = LlamaLlm(path, n_threads=THREADS_LLM)
            engines.llm.warm(SYSTEM_PROMPT, engines.tools.specs)
        elif role == "tts":
            engines.tts = PiperTts(path, threads=THREADS_TTS,
                                   speaking_rate=settings.voice.speaking_rate)
        engines.load_ms[role] = (time.perf_counter() - t0) * 1000
    return engines


@dataclass
class TurnResult:
    """Everything one headless turn produced."""

    transcript: str
    reply: str
    chunks: list[SpeechChunk]
    timings_ms: dict[str, float]
    tool_calls: list[str] = field(default_factory=list)

    def reply_audio(self) -> Any:
        """All reply audio, int16 at the voice's rate."""
        import numpy as np

        if not self.chunks:
            return np.zeros(0, dtype=np.int16)
        return np.concatenate([c.audio for c in self.chunks])


def reply_stream(engines: Engines, history: Sequence[ChatMessage], user_text: str,
                 cancel: CancelToken, marks: dict[str, float], t0: float,
                 on_text: Callable[[str], None], max_tokens: int = 200,
                 on_tool: Callable[[str, bool], None] | None = None) -> list[str]:
    """Stream the LLM reply to ``user_text`` into ``on_text``, clause by clause.

    A read-only tool call is run in between (``on_tool(name, started)`` brackets it) and
    the answer after it is guarded (core.tool_answer): asking the time gets the time.
    """
    assert engines.llm is not None
    messages = [ChatMessage("system", SYSTEM_PROMPT), *history, ChatMessage("user", user_text)]
    chunker = first_clause_chunker()
    called: list[str] = []
    call = None
    for delta in engines.llm.stream_chat(messages, cancel, engines.tools.specs, max_tokens):
        marks.setdefault("llm_first_token", time.perf_counter() - t0)
        if delta.tool_call is not None:
            call = delta.tool_call
            break
        for piece in chunker.push(delta.text):
            on_text(piece)
    if call is not None and not cancel.cancelled:
        called.append(call.name)
        if on_tool:
            on_tool(call.name, True)
        try:
            result = engines.tools.run(call)
        except AgentError as exc:
            result = f"Sorry, {exc.message}"
        if on_tool:
            on_tool(call.name, False)
        messages += [tool_call_message(call), tool_result_message(call.name, result)]
        answer = engines.llm.stream_chat(messages, cancel, engines.tools.specs, max_tokens)
        for delta in guard_tool_answer(answer, user_text, result):
            for piece in chunker.push(delta.text):
                on_text(piece)
    for piece in chunker.flush():
        on_text(piece)
    marks["llm_total"] = time.perf_counter() - t0
    return called


def run_turn(engines: Engines, audio_16k: Any, history: Sequence[ChatMessage] = (),
             max_tokens: int = 200) -> TurnResult:
    """Transcribe, answer and speak one question, streaming LLM clauses into TTS.

    Times in ``timings_ms`` are from the start of the turn (the endpoint: the audio is
    complete when this is called).
    """
    assert engines.asr is not None and engines.tts is not None
    t0 = time.perf_counter()
    marks: dict[str, float] = {}
    transcript = engines.asr.transcribe(audio_16k)
    marks["asr"] = time.perf_counter() - t0
    text = transcript.text.strip()
    chunks: list[SpeechChunk] = []
    reply_parts: list[str] = []
    if not text:
        return TurnResult("", "", [], {k: v * 1000 for k, v in marks.items()})

    jobs: queue.Queue[str | None] = queue.Queue()
    cancel = CancelToken()
    failure: list[BaseException] = []

    def speak() -> None:
        tts = engines.tts
        assert tts is not None
        while (piece := jobs.get()) is not None:
            try:
                for chunk in tts.synthesize(piece, cancel):
                    marks.setdefault("tts_first_chunk", time.perf_counter() - t0)
                    chunks.append(chunk)
            except TtsError as exc:  # one bad sentence is skipped, the rest is spoken
                _LOGGER.warning("skipping a sentence: %s", exc.describe())
            except BaseException as exc:  # surfaced on the calling thread below
                failure.append(exc)
                cancel.cancel("tts failed")
                return
        marks["tts_total"] = time.perf_counter() - t0

    worker = threading.Thread(target=speak, name="tts", daemon=True)
    worker.start()

    def on_text(piece: str) -> None:
        reply_parts.append(piece)
        spoken = normalize_for_speech(piece)
        if spoken.strip():
            jobs.put(spoken)

    try:
        called = reply_stream(engines, history, text, cancel, marks, t0, on_text, max_tokens)
    finally:
        jobs.put(None)
        worker.join()
    if failure:
        raise failure[0]
    timings = {k: round(v * 1000, 1) for k, v in marks.items()}
    reply = " ".join(p.strip() for p in reply_parts if p.strip())
    return TurnResult(text, reply, chunks, timings, called)
