"""Engines, composed: resolve the chosen models and load the engines the app uses.

Used by ``desktop-agent ask`` (through the headless executor, runtime/headless.py), the
runtime's workers (thread counts, model resolution), ``doctor`` and the benchmarks.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop_agent.adapters.asr.asr_whisper import WhisperAsr
from desktop_agent.adapters.llm.llm_composite import CompositeLlm
from desktop_agent.adapters.llm.llm_llama import LlamaLlm
from desktop_agent.adapters.llm.llm_openai import OpenAiLlm
from desktop_agent.adapters.models.model_resolver import ModelResolver, ResolvedModel, load_manifest
from desktop_agent.adapters.store.tools_builtin import default_tools
from desktop_agent.adapters.tts.tts_piper import PiperTts
from desktop_agent.compose.llm_backend import llm_roles, make_llm, resolve_speaker
from desktop_agent.compose.speech_engines import make_asr, make_tts
from desktop_agent.compose.tool_meanings import tool_meanings
from desktop_agent.core.conversation.prompts import dated_system_prompt
from desktop_agent.core.settings import Settings
from desktop_agent.core.tools.registry import ToolRegistry

THREADS_ASR = 2
"""CTranslate2 threads: ASR runs while the LLM and TTS are idle, so it may take both cores."""
THREADS_LLM = 2
"""llama.cpp threads for prefill and generation."""
THREADS_TTS = 1
"""onnxruntime threads for Piper: it runs beside the LLM, so it gets one core."""


@dataclass
class Engines:
    """Loaded engines and how long each took to load."""

    asr: WhisperAsr | Any = None
    """faster-whisper, or a Wyoming server's first (compose/speech_engines.py)."""
    llm: LlamaLlm | CompositeLlm | OpenAiLlm | None = None
    """llama.cpp (two models in their roles when a speaking model is installed), or a chat
    server when ``llm.backend`` is 'server'."""
    tts: PiperTts | Any = None
    models: dict[str, ResolvedModel] = field(default_factory=dict)
    load_ms: dict[str, float] = field(default_factory=dict)
    tools: ToolRegistry = field(default_factory=default_tools)


def resolve_models(settings: Settings, roles: Sequence[str] = ("asr", "llm", "tts"),
                   resolver: ModelResolver | None = None) -> dict[str, ResolvedModel]:
    """Find (and if needed assemble) the model of each role chosen in ``settings``.

    With 'llm' among ``roles``, the speaking model beside it comes as 'speaker' when there
    is one (``llm_backend.resolve_speaker``).
    """
    resolver = resolver or ModelResolver(load_manifest())
    choice = {"asr": settings.models.asr, "llm": settings.models.llm, "tts": settings.models.tts,
              "vad": ""}
    found = {role: resolver.resolve(choice[role], role) for role in roles}
    if "llm" in found and (speaker := resolve_speaker(settings, resolver, found["llm"])):
        found["speaker"] = speaker
    return found


def load_engines(settings: Settings | None = None,
                 roles: Sequence[str] = ("asr", "llm", "tts"),
                 tools: ToolRegistry | None = None) -> Engines:
    """Resolve and load the engines for ``roles``. Raises ModelError with a fix on failure.

    The LLM is the server's when ``llm.backend`` is 'server' (no local LLM file needed);
    locally, ``models.speaker_llm``'s model is loaded beside ``models.llm`` when there is one
    (``load_ms['llm']`` then covers both loads and both warm-ups).

    ``tools`` are the tools the LLM is warmed with and offered (default: the reads that
    need no store).
    """
    settings = settings or Settings()
    engines = Engines() if tools is None else Engines(tools=tools)
    start = time.perf_counter()
    engines.models = resolve_models(settings, llm_roles(settings, roles))
    engines.load_ms["resolve"] = (time.perf_counter() - start) * 1000
    for role in roles:
        t0 = time.perf_counter()
        path = engines.models[role].path if role in engines.models else None
        if role == "asr":
            engines.asr = make_asr(settings, path, THREADS_ASR)
        elif role == "llm":
            speaker = engines.models.get("speaker")
            engines.llm = make_llm(settings, path, THREADS_LLM, meanings=tool_meanings(),
                                   speaker_path=speaker.path if speaker else None)
            engines.llm.warm(dated_system_prompt(datetime.datetime.now().astimezone()),
                             engines.tools.specs)
        elif role == "tts":
            engines.tts = make_tts(settings, path, THREADS_TTS)
        engines.load_ms[role] = (time.perf_counter() - t0) * 1000
    return engines

