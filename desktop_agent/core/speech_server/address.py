"""Addresses of speech servers on another computer (Wyoming): read them, and tell a LAN one.

Pure: the settings check the text here, the Wyoming adapters connect to what it gives.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["SPEECH_BACKENDS", "URI_FIX", "ServerAddress", "is_local_address", "parse_address",
           "uri_problem"]

SPEECH_BACKENDS = ("local", "wyoming")
"""Where speech recognition or the voice runs: this computer, or a Wyoming server."""
URI_FIX = "Write it as tcp://host:port (e.g. tcp://192.168.1.20:10300) or unix:///path/to.sock."


@dataclass(frozen=True, slots=True)
class ServerAddress:
    """Where a Wyoming server listens: ``tcp://host:port`` or ``unix:///path``."""

    uri: str
    scheme: str
    host: str = ""
    port: int = 0
    path: str = ""


def parse_address(uri: str) -> ServerAddress | None:
    """The address ``uri`` names, or None when it is not a tcp:// or unix:// address."""
    text = uri.strip()
    parts = urlsplit(text)
    if parts.scheme == "tcp":
        try:
            port = parts.port
        except ValueError:
            return None
        if parts.hostname and port:
            return ServerAddress(text, "tcp", host=parts.hostname, port=port)
    elif parts.scheme == "unix" and (parts.path or parts.netloc):
        return ServerAddress(text, "unix", path=parts.netloc + parts.path)
    return None


def uri_problem(uri: str) -> str:
    """Why ``uri`` is not a speech server address ('' when it is one, or empty)."""
    if not uri.strip() or parse_address(uri) is not None:
        return ""
    return f"is not a tcp://host:port or unix:///path address (got {uri!r})"


def is_local_address(address: ServerAddress) -> bool:
    """True for a Unix socket, loopback, a private LAN address or a ``.local``/bare host name.

    Wyoming sends audio and text in the clear, unauthenticated: anything else deserves a
    warning.
    """
    if address.scheme == "unix":
        return True
    host = address.host
    if host == "localhost" or host.endswith(".local") or ("." not in host and ":" not in host):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_link_local
