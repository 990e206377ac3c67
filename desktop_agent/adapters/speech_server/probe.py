"""One check of a Wyoming speech server, for ``doctor`` and the Settings "Test" button.

The recogniser describes itself (its models, the round trip); the voice describes itself
and says one word with the configured voice (tried, not looked up: wyoming-piper lists, as
installed, voices it would first download, and answers a request for a missing one with an
error).

Runs on: any thread but the GUI's (it waits on the network).
"""

from __future__ import annotations

import time
from typing import Any

from desktop_agent.adapters.speech_server.tts_wyoming import WyomingTts
from desktop_agent.adapters.speech_server.wyoming_link import describe, parse_uri
from desktop_agent.core.errors import AgentError, AsrError, TtsError

__all__ = ["probe_server"]


def _error(kind: type[AgentError]) -> Any:
    return lambda code, message, fix: kind(code, message, fix)


def probe_server(section: str, values: dict[str, Any], voice: WyomingTts | None = None) -> str:
    """Check the ``section`` ('asr' or 'tts') server of ``values`` (uri, timeout_s, voice).

    Returns one line of what it offers and how fast; raises the engine's AgentError. The
    word is spoken on ``voice`` when given (the app's own engine, which so learns the
    voice's sample rate), else on a connection made for the check.
    """
    kind: type[AgentError] = AsrError if section == "asr" else TtsError
    uri, timeout_s = str(values["uri"]), float(values.get("timeout_s", 10.0))
    info, seconds = describe(parse_uri(uri, _error(kind)), timeout_s, _error(kind))
    if section == "asr":
        models = [m.name for program in info.asr for m in program.models]
        return f"{uri}: models {', '.join(models) or 'none listed'}; " \
               f"Describe {seconds * 1000:.0f} ms"
    name = str(values.get("voice", ""))
    engine = voice or WyomingTts(uri, voice=name, timeout_s=timeout_s, warm=False)
    start = time.perf_counter()
    try:
        spoken = list(engine.synthesize("Okay."))
    except TtsError as exc:
        if exc.code != "speech_server_error":
            raise
        raise TtsError("speech_server_no_voice", f"The voice server at {uri} cannot speak "
                       f"with the voice {name!r} ({exc.message})", "Install that voice on the "
                       "server, or set [tts] voice to one it has.") from exc
    said = (time.perf_counter() - start) * 1000
    rate = spoken[0].sample_rate if spoken else 0
    return f"{uri}: voice {name or 'default'} ({rate} Hz); Describe " \
           f"{seconds * 1000:.0f} ms, one word spoken in {said:.0f} ms"
