"""Speech recognition and the voice, composed: this computer's, or a Wyoming server's first.

With ``[asr] backend = "wyoming"`` (or ``[tts]``) the engine is a ``RemoteFirst*`` that asks
the server and falls back to the local engine, which is loaded too. A server that cannot be
reached at start is reported and the local engine answers until it is back; a bad address
is reported the same way. Used by the app's workers (compose/runtime.py) and by ``ask`` and
``replay`` (compose/engines.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop_agent.adapters.asr.asr_whisper import WhisperAsr
from desktop_agent.adapters.tts.tts_piper import PiperTts
from desktop_agent.core.errors import AgentError
from desktop_agent.core.settings import Settings

_LOGGER = logging.getLogger(__name__)

Notify = Callable[[AgentError], None]


def _log_only(error: AgentError) -> None:
    _LOGGER.warning("%s", error.describe())


def make_asr(settings: Settings, local_path: Path | None, threads: int,
             notify: Notify = _log_only) -> Any:
    """The ``AsrEngine`` ``settings`` choose (loads models: run on the ASR worker thread)."""
    local = WhisperAsr(local_path, cpu_threads=threads)
    if settings.asr.backend != "wyoming":
        return local
    from desktop_agent.adapters.speech_server.asr_wyoming import WyomingAsr, asr_error
    from desktop_agent.adapters.speech_server.fallback import remote_first

    try:
        remote = WyomingAsr(settings.asr.uri, timeout_s=settings.asr.timeout_s)
    except AgentError as exc:
        notify(exc)
        return local
    engine = remote_first("speech recognition", remote, local, notify, asr_error)
    _check_at_start(engine, "asr", settings.asr)
    return engine


def make_tts(settings: Settings, local_path: Path | None, threads: int,
             notify: Notify = _log_only, **piper: Any) -> Any:
    """The ``TtsEngine`` ``settings`` choose (loads models: run on the TTS worker thread)."""
    local = PiperTts(local_path, threads=threads, speaking_rate=settings.voice.speaking_rate,
                     **piper)
    if settings.tts.backend != "wyoming":
        return local
    from desktop_agent.adapters.speech_server.fallback import remote_first
    from desktop_agent.adapters.speech_server.tts_wyoming import WyomingTts, tts_error

    try:
        remote = WyomingTts(settings.tts.uri, voice=settings.tts.voice,
                            timeout_s=settings.tts.timeout_s, warm=False)
    except AgentError as exc:
        notify(exc)
        return local
    engine = remote_first("voice", remote, local, notify, tts_error)
    _check_at_start(engine, "tts", settings.tts)
    return engine


def _check_at_start(engine: Any, section: str, config: Any) -> None:
    """Check the server once (``probe_server``, as doctor does): a server down at start, or
    without the configured voice, switches to local with a notice.

    The voice's word is spoken on the app's own remote engine, which so learns the rate.
    """
    from desktop_agent.adapters.speech_server.probe import probe_server

    switch = engine.switch
    values = {"uri": config.uri, "timeout_s": config.timeout_s,
              "voice": getattr(config, "voice", "")}
    try:
        _LOGGER.info("%s", probe_server(section, values,
                                        switch.remote if section == "tts" else None))
    except AgentError as exc:
        switch.failed(exc)
