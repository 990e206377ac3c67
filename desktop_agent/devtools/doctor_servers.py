"""``doctor``'s checks of the Wyoming speech servers the settings name (none when local).

Each configured server: reachable (Describe), what it offers, the configured voice (tried,
not looked up), one round trip (a short sentence spoken, for the voice), and a warning when its
address is off the local network (Wyoming is clear text, without authentication). A server
that fails is a warning, not an error: this computer's engine answers meanwhile.
"""

from __future__ import annotations

import time
from typing import Any

from desktop_agent.core.errors import AgentError, AsrError, TtsError
from desktop_agent.core.speech_server.address import is_local_address, parse_address

CLEAR_TEXT_FIX = ("Wyoming has no encryption or password: use a server on your own network, "
                  "or reach it through a tunnel (SSH, WireGuard).")


def speech_server_checks(settings: Any, check: type) -> list[Any]:
    """One ``check`` row per Wyoming server in ``settings`` (``check`` is doctor's Check)."""
    rows = []
    for role, section in (("asr", settings.asr), ("tts", settings.tts)):
        if section.backend != "wyoming":
            continue
        name = f"{role} server"
        start = time.perf_counter()
        try:
            detail = _asr(section) if role == "asr" else _tts(section)
            status, fix = "ok", ""
            address = parse_address(section.uri)
            if address is not None and not is_local_address(address):
                status, fix = "warn", CLEAR_TEXT_FIX
                detail += "; off the local network, in clear text"
        except AgentError as exc:
            status, detail, fix = "warn", f"[{exc.code}] {exc.message}", exc.fix
        rows.append(check(name, status, detail, fix,
                          round((time.perf_counter() - start) * 1000, 1)))
    return rows


def _error(kind: type[AgentError]) -> Any:
    return lambda code, message, fix: kind(code, message, fix)


def _asr(section: Any) -> str:
    from desktop_agent.adapters.speech_server.wyoming_link import describe, parse_uri

    info, seconds = describe(parse_uri(section.uri, _error(AsrError)), section.timeout_s,
                             _error(AsrError))
    models = [m.name for program in info.asr for m in program.models]
    return f"{section.uri}: models {', '.join(models) or 'none listed'}; " \
           f"Describe {seconds * 1000:.0f} ms"


def _tts(section: Any) -> str:
    from desktop_agent.adapters.speech_server.tts_wyoming import WyomingTts
    from desktop_agent.adapters.speech_server.wyoming_link import describe, parse_uri

    _, seconds = describe(parse_uri(section.uri, _error(TtsError)), section.timeout_s,
                          _error(TtsError))
    start = time.perf_counter()
    # The voice is tried, not looked up: wyoming-piper lists (as installed) voices it would
    # first have to download, and answers a request for a missing one with an error.
    try:
        spoken = list(WyomingTts(section.uri, voice=section.voice, timeout_s=section.timeout_s,
                                 warm=False).synthesize("Okay."))
    except TtsError as exc:
        if exc.code != "speech_server_error":
            raise
        raise TtsError("speech_server_no_voice", f"The voice server at {section.uri} cannot "
                       f"speak with the voice {section.voice!r} ({exc.message})",
                       "Install that voice on the server, or set [tts] voice to one it has."
                       ) from exc
    said = (time.perf_counter() - start) * 1000
    rate = spoken[0].sample_rate if spoken else 0
    return f"{section.uri}: voice {section.voice or 'default'} ({rate} Hz); Describe " \
           f"{seconds * 1000:.0f} ms, one word spoken in {said:.0f} ms"
