"""``doctor``'s checks of the Wyoming speech servers the settings name (none when local).

Each configured server: reachable (Describe), what it offers, the configured voice (tried,
not looked up), one round trip (a short sentence spoken, for the voice), and a warning when its
address is off the local network (Wyoming is clear text, without authentication). A server
that fails is a warning, not an error: this computer's engine answers meanwhile.
"""

from __future__ import annotations

import time
from typing import Any

from desktop_agent.adapters.speech_server.probe import probe_server
from desktop_agent.core.errors import AgentError
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
            detail = probe_server(role, {"uri": section.uri, "timeout_s": section.timeout_s,
                                         "voice": getattr(section, "voice", "")})
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
