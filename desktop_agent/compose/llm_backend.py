"""Which chat engine the assistant gets: the local llama.cpp model, or a server.

``llm.backend = "local"`` loads ``models.llm`` with llama.cpp in this process, and beside
it the speaking model of ``models.speaker_llm`` when there is one (``CompositeLlm``: the
small model decides tools and checks replies, the larger one speaks; docs/notes/model-roles.md);
``"server"`` talks to the OpenAI-compatible server at ``llm.server_url`` (llama.cpp's
``llama-server``, vLLM) with ``adapters/llm_openai.OpenAiLlm``, and no local LLM file is
needed. The URL in the settings is the user's explicit choice, so it may name another
computer; the API key comes from the environment variable named by ``llm.api_key_env``
and is never written anywhere. Used by ``load_engines`` (``ask``, the benchmarks) and
``build_runtime`` (the app).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_agent.adapters.llm.llm_openai import OpenAiLlm
from desktop_agent.core.errors import ModelError
from desktop_agent.core.settings import Settings
from desktop_agent.core.tools.semantic import MeaningRouter

if TYPE_CHECKING:
    from desktop_agent.adapters.llm.llm_composite import CompositeLlm
    from desktop_agent.adapters.llm.llm_llama import LlamaLlm
    from desktop_agent.adapters.models.model_resolver import ModelResolver, ResolvedModel

_LOGGER = logging.getLogger(__name__)


def uses_server(settings: Settings) -> bool:
    """True when the chat model runs on a server (``llm.backend = "server"``)."""
    return settings.llm.backend == "server"


def llm_roles(settings: Settings, roles: Sequence[str]) -> tuple[str, ...]:
    """``roles`` whose models must be resolved locally: without 'llm' when a server answers."""
    return tuple(r for r in roles if r != "llm" or not uses_server(settings))


def api_key(settings: Settings, environ: Mapping[str, str] | None = None) -> str | None:
    """The server's API key from the variable named by ``llm.api_key_env`` (None: no key).

    Only the variable's name is ever logged.
    """
    name = settings.llm.api_key_env
    if not name:
        return None
    key = (os.environ if environ is None else environ).get(name, "").strip()
    if not key:
        _LOGGER.warning("turn=0 the environment variable %s is not set: the LLM server gets "
                        "no API key", name)
    return key or None


def server_llm(settings: Settings, environ: Mapping[str, str] | None = None, **kw: Any
               ) -> OpenAiLlm:
    """The server engine that ``settings`` describe (a remote URL is allowed: it was set).

    Raises:
        LlmError: ``server_url_invalid`` for a URL the settings could not have validated.
    """
    llm = settings.llm
    return OpenAiLlm(llm.server_url, llm.server_model, api_key(settings, environ),
                     allow_remote=True, **kw)


def resolve_speaker(settings: Settings, resolver: ModelResolver, llm: ResolvedModel
                    ) -> ResolvedModel | None:
    """The model that speaks beside ``llm`` (``models.speaker_llm``), or None: ``llm`` speaks.

    'auto' takes the manifest's speaker model when it is installed; not installed, or broken
    (a warning in the log), the app runs as with 'off'. A model the user named is theirs:
    a missing one raises. A server backend, or a speaker that is ``llm`` itself, gives None.

    Raises:
        ModelError: a named speaking model that cannot be found or verified.
    """
    choice = settings.models.speaker_llm
    if uses_server(settings) or choice == "off":
        return None
    if choice == "auto":
        spec = resolver.manifest.speaker()
        if spec is None or resolver.status(spec) == "missing":
            return None
        try:
            model = resolver.resolve(spec.model_id, "llm")
        except ModelError as exc:
            _LOGGER.warning("turn=0 the speaking model is not usable, %s speaks: %s",
                            llm.model_id, exc.describe())
            return None
    else:
        model = resolver.resolve(choice, "llm")
    return None if model.path == llm.path else model


def make_llm(settings: Settings, model_path: Path | None, n_threads: int, *,
             meanings: MeaningRouter | None = None, speaker_path: Path | None = None
             ) -> LlamaLlm | CompositeLlm | OpenAiLlm:
    """The chat engine: the server's, or llama.cpp on ``model_path`` with ``n_threads``.

    ``meanings`` offers tools by meaning when the keyword rules offer none
    (``compose.tool_meanings.tool_meanings``; None: the rules alone). ``speaker_path`` (a
    local backend only; ``resolve_speaker``) is loaded beside it with the same thread count
    and writes the prose (``CompositeLlm``); None: one model does everything.
    """
    if uses_server(settings):
        return server_llm(settings, meanings=meanings)
    from desktop_agent.adapters.llm.llm_llama import LlamaLlm

    if model_path is None:
        raise ValueError("a local LLM needs its resolved model file")
    decider = LlamaLlm(model_path, n_threads=n_threads, meanings=meanings)
    if speaker_path is None:
        return decider
    from desktop_agent.adapters.llm.llm_composite import CompositeLlm

    return CompositeLlm(decider, LlamaLlm(speaker_path, n_threads=n_threads))
