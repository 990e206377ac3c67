"""Settings: where the language model runs (llm.backend, server URL, model, API key variable)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.adapters.store.settings_store import load_settings, save_settings
from desktop_agent.core.errors import SettingsError
from desktop_agent.core.settings import Settings, check_values
from desktop_agent.runtime.live_settings import restart_notice


def test_the_default_is_the_local_model_and_a_loopback_server_url() -> None:
    llm = Settings().llm
    assert (llm.backend, llm.server_url, llm.server_model, llm.api_key_env) == (
        "local", "http://127.0.0.1:8080/v1", "", "")


@pytest.mark.parametrize(("key", "value", "why"), [
    ("llm.backend", "cloud", "must be one of local, server"),
    ("llm.server_url", "gpu.lan:8000", "http://"),
    ("llm.server_url", "http://me:pw@gpu.lan/v1", "password"),
    ("llm.server_url", 8080, "must be text"),
    ("llm.api_key_env", "MY KEY", "environment variable"),
    ("llm.api_key_env", "1ABC", "environment variable"),
    ("llm.server_model", "qwen\n7b", "control characters"),
])
def test_invalid_values_are_refused_naming_the_field(key: str, value: object, why: str) -> None:
    with pytest.raises(SettingsError) as info:
        Settings().replace_field(key, value)
    assert info.value.code == "invalid_setting"
    assert info.value.message.startswith(key) and why in info.value.message


def test_values_are_stripped_and_kept() -> None:
    s = Settings().replace_field("llm.server_url", " https://gpu.lan:8000/v1 ")
    s = s.replace_field("llm.api_key_env", " VLLM_API_KEY ").replace_field("llm.backend", "server")
    assert s.llm.server_url == "https://gpu.lan:8000/v1" and s.llm.api_key_env == "VLLM_API_KEY"
    assert Settings().replace_field("llm.api_key_env", "").llm.api_key_env == ""


def test_check_values_reports_each_bad_llm_field() -> None:
    result, reasons = check_values({"llm.server_url": "nope", "llm.backend": "server",
                                    "llm.api_key_env": "A-B"})
    assert result is None and set(reasons) == {"llm.server_url", "llm.api_key_env"}


def test_the_llm_section_round_trips_through_the_settings_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    chosen = Settings().replace_field("llm.backend", "server").replace_field(
        "llm.server_url", "http://10.0.0.5:8000/v1").replace_field(
        "llm.server_model", "Qwen/Qwen2.5-7B-Instruct").replace_field(
        "llm.api_key_env", "VLLM_API_KEY")
    save_settings(chosen, path)
    text = path.read_text()
    assert "[llm]" in text and 'api_key_env = "VLLM_API_KEY"' in text
    loaded = load_settings(path)
    assert loaded.settings == chosen and loaded.warnings == ()


def test_a_bad_url_in_the_file_falls_back_to_the_default_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[llm]\nbackend = "server"\nserver_url = "file:///etc/passwd"\n')
    loaded = load_settings(path)
    assert loaded.settings.llm.backend == "server"
    assert loaded.settings.llm.server_url == "http://127.0.0.1:8080/v1"
    assert any("llm.server_url" in w for w in loaded.warnings)
    assert loaded.backup_path is not None and loaded.backup_path.exists()


def test_changing_the_server_applies_after_a_restart() -> None:
    old = Settings()
    notice = restart_notice(old, old.replace_field("llm.backend", "server"))
    assert notice is not None and "language model server" in notice.message
    assert restart_notice(old, old) is None
