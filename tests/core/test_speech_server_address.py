"""Speech server addresses: what the settings accept, and which ones get the clear-text warning."""

from __future__ import annotations

import pytest

from desktop_agent.core.errors import SettingsError
from desktop_agent.core.settings import Settings
from desktop_agent.core.speech_server.address import (
    is_local_address,
    parse_address,
    uri_problem,
)


@pytest.mark.parametrize(("uri", "scheme", "host", "port", "path"), [
    ("tcp://127.0.0.1:10300", "tcp", "127.0.0.1", 10300, ""),
    (" tcp://homeserver.local:10200 ", "tcp", "homeserver.local", 10200, ""),
    ("tcp://[::1]:10300", "tcp", "::1", 10300, ""),
    ("unix:///run/wyoming/asr.sock", "unix", "", 0, "/run/wyoming/asr.sock"),
])
def test_addresses_are_read(uri: str, scheme: str, host: str, port: int, path: str) -> None:
    address = parse_address(uri)
    assert address is not None
    assert (address.scheme, address.host, address.port, address.path) == (scheme, host, port,
                                                                           path)


@pytest.mark.parametrize("uri", ["http://127.0.0.1:10300", "tcp://127.0.0.1", "tcp://:10300",
                                 "tcp://host:99999", "10.0.0.2:10300", "unix://"])
def test_what_is_not_an_address_is_refused(uri: str) -> None:
    assert parse_address(uri) is None and "tcp://host:port" in uri_problem(uri)


@pytest.mark.parametrize(("uri", "local"), [
    ("tcp://127.0.0.1:1", True), ("tcp://192.168.1.20:1", True), ("tcp://10.1.2.3:1", True),
    ("tcp://homeserver:1", True), ("tcp://nas.local:1", True), ("unix:///tmp/s", True),
    ("tcp://[fe80::1]:1", True), ("tcp://[::1]:1", True),
    ("tcp://8.8.8.8:1", False), ("tcp://speech.example.com:1", False),
])
def test_only_addresses_off_the_lan_get_the_clear_text_warning(uri: str, local: bool) -> None:
    address = parse_address(uri)
    assert address is not None and is_local_address(address) is local


def test_the_settings_check_the_backend_and_the_address() -> None:
    settings = Settings().replace_field("asr.backend", "wyoming")
    assert settings.asr.backend == "wyoming" and settings.asr.uri == "tcp://127.0.0.1:10300"
    assert Settings().replace_field("tts.uri", " unix:///tmp/tts.sock ").tts.uri == \
        "unix:///tmp/tts.sock"
    with pytest.raises(SettingsError, match="tcp://host:port"):
        Settings().replace_field("tts.uri", "http://10.0.0.2:10200")
    with pytest.raises(SettingsError, match="local, wyoming"):
        Settings().replace_field("asr.backend", "cloud")
