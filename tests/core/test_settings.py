"""Settings: validation, dict round trip, field replacement, and the TOML store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_agent.adapters.store import settings_store
from desktop_agent.core.errors import SettingsError
from desktop_agent.core.setting_specs import SETTING_SPECS, error_key
from desktop_agent.core.settings import Settings, check_values


def test_defaults() -> None:
    s = Settings()
    assert s.models.asr == "whisper-tiny-en"
    assert s.interaction.mode == "push_to_talk" and s.interaction.ptt_key == "Space"
    assert s.endpointing.min_silence_s <= s.endpointing.max_silence_s
    assert s.privacy.transcript_retention_days == 30


def test_every_field_has_a_spec_and_the_dict_round_trips() -> None:
    data = Settings().to_dict()
    keys = {f"{section}.{name}" for section, fields in data.items() for name in fields}
    assert keys == {spec.key for spec in SETTING_SPECS}
    assert Settings.from_dict(data) == Settings()
    changed = Settings().replace_field("voice.speaking_rate", 1.5)
    assert Settings.from_dict(changed.to_dict()) == changed


def test_replace_field_returns_new_frozen_settings() -> None:
    s = Settings()
    t = s.replace_field("barge_in.sensitivity", 0.8)
    assert s.barge_in.sensitivity == 0.5 and t.barge_in.sensitivity == 0.8
    assert t.get("barge_in.sensitivity") == 0.8
    with pytest.raises(AttributeError):
        t.barge_in.sensitivity = 0.1  # type: ignore[misc]
    assert isinstance(s.replace_field("voice.speaking_rate", 2).voice.speaking_rate, float)


@pytest.mark.parametrize(
    ("key", "value", "why"),
    [
        ("voice.speaking_rate", 2.5, "between 0.5 and 2"),
        ("voice.speaking_rate", "fast", "must be a number"),
        ("voice.speaking_rate", float("nan"), "NaN"),
        ("barge_in.sensitivity", -0.1, "between 0 and 1"),
        ("barge_in.min_interrupt_speech_s", 9.0, "between 0 and 5"),
        ("ui.font_scale", 0.5, "between 0.75 and 2"),
        ("ui.high_contrast", 1, "true or false"),
        ("audio.echo_cancellation", "yes", "true or false"),
        ("interaction.mode", "always_on", "one of push_to_talk, hands_free"),
        ("interaction.ptt_key", "Ctrl Space", "single key name"),
        ("interaction.ptt_key", "", "single key name"),
        ("models.llm", "", "must not be empty"),
        ("models.llm", "models/my.gguf", "absolute path"),
        ("models.tts", "~/voice.onnx", "absolute path"),
        ("models.asr", "whisper tiny", "not a valid model id"),
        ("privacy.transcript_retention_days", 1.5, "whole number"),
        ("privacy.transcript_retention_days", -1, "between 0 and 3650"),
        ("audio.input_device", "mic\nname", "control characters"),
        ("endpointing.min_silence_s", 3.0, "must not exceed endpointing.max_silence_s"),
        ("shortcuts.global_push_to_talk", "Space", "taken from every program you type in"),
        ("shortcuts.global_push_to_talk", "Ctrl+Foo", "There is no key called 'Foo'"),
        ("shortcuts.global_push_to_talk", "Ctrl+Alt", "only modifiers"),
        ("shortcuts.global_push_to_talk", 9, "must be text"),
    ],
)
def test_invalid_values_name_the_field_and_why(key: str, value: object, why: str) -> None:
    with pytest.raises(SettingsError) as info:
        Settings().replace_field(key, value)
    assert info.value.code == "invalid_setting"
    assert info.value.message.startswith(key)
    assert why in info.value.message
    assert error_key(info.value) == key


def test_valid_edge_values() -> None:
    s = Settings()
    assert s.replace_field("models.llm", "/opt/m/model.gguf").models.llm == "/opt/m/model.gguf"
    assert s.replace_field("models.llm", "C:\\models\\m.gguf").models.llm == "C:\\models\\m.gguf"
    days = "privacy.transcript_retention_days"
    assert s.replace_field(days, 0).get(days) == 0
    assert s.replace_field(days, 7.0).get(days) == 7
    assert s.replace_field("interaction.ptt_key", "F8").interaction.ptt_key == "F8"
    assert s.replace_field("audio.input_device", "  USB ").audio.input_device == "USB"


def test_unknown_key() -> None:
    with pytest.raises(SettingsError) as info:
        Settings().replace_field("voice.pitch", 1.0)
    assert info.value.code == "unknown_setting"


def test_from_dict_reports_unknown_keys_and_parse_is_lenient() -> None:
    data = {"voice": {"speaking_rate": 1.2, "pitch": 3}, "extras": {}, "ui": {"font_scale": 9}}
    with pytest.raises(SettingsError) as info:
        Settings.from_dict({"voice": {"pitch": 3}, "extras": {}})
    assert info.value.code == "unknown_setting"
    assert "extras" in info.value.message and "voice.pitch" in info.value.message
    parsed = Settings.parse(data)
    assert parsed.unknown_keys == ("extras", "voice.pitch")
    assert parsed.settings.voice.speaking_rate == 1.2  # valid values kept
    assert parsed.settings.ui.font_scale == 1.0  # the invalid one fell back to its default
    assert [error_key(e) for e in parsed.rejected] == ["ui.font_scale"]
    assert Settings.parse({"voice": "loud"}).rejected[0].code == "invalid_setting"


def test_check_values_maps_reasons_to_fields() -> None:
    flat = {spec.key: Settings().get(spec.key) for spec in SETTING_SPECS}
    ok, reasons = check_values(flat)
    assert ok == Settings() and reasons == {}
    flat |= {"endpointing.min_silence_s": 2.5, "models.llm": "rel/x.gguf"}
    bad, reasons = check_values(flat)
    assert bad is None
    assert set(reasons) == {"endpointing.min_silence_s", "models.llm"}


# -- the TOML store --------------------------------------------------------------------


def test_store_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "settings.toml"
    s = Settings().replace_field("models.llm", "/x/y.gguf").replace_field("ui.high_contrast", True)
    assert settings_store.save_settings(s, path) == path
    assert [p.name for p in path.parent.iterdir()] == ["settings.toml"]  # no temp file left
    loaded = settings_store.load_settings(path)
    assert loaded.settings == s and loaded.warnings == () and loaded.backup_path is None


def test_store_missing_file_gives_defaults(tmp_path: Path) -> None:
    loaded = settings_store.load_settings(tmp_path / "none.toml")
    assert loaded.settings == Settings() and loaded.warnings == ()


def test_store_corrupt_file_is_kept_and_defaults_used(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text("[voice\nspeaking_rate = = 3\n")
    loaded = settings_store.load_settings(path)
    assert loaded.settings == Settings()
    assert loaded.backup_path == tmp_path / "settings.toml.bak"
    assert loaded.backup_path.read_text() == path.read_text()
    assert "not valid TOML" in loaded.warnings[0]
    again = settings_store.load_settings(path)  # an earlier backup is not overwritten
    assert again.backup_path == tmp_path / "settings.toml.bak1"


def test_store_binary_garbage(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    loaded = settings_store.load_settings(path)
    assert loaded.settings == Settings() and loaded.backup_path is not None


def test_store_invalid_value_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[voice]\nspeaking_rate = 7.0\n[interaction]\nmode = "hands_free"\n'
                    "[future]\nthing = 1\n")
    loaded = settings_store.load_settings(path)
    assert loaded.settings.interaction.mode == "hands_free"
    assert loaded.settings.voice.speaking_rate == 1.0
    assert len(loaded.warnings) == 2 and loaded.backup_path is not None
    assert any("voice.speaking_rate" in w for w in loaded.warnings)


@pytest.mark.skip_ok  # CI runs as root: no install makes a mode-0 file unreadable to root
@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores permissions")
def test_store_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text("")
    path.chmod(0)
    loaded = settings_store.load_settings(path)
    assert loaded.settings == Settings() and "Could not read" in loaded.warnings[0]


def test_store_write_failure_is_a_settings_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SettingsError) as info:
        settings_store.save_settings(Settings(), blocker / "settings.toml")
    assert info.value.code == "settings_write_failed"


def test_default_path_is_in_user_config_dir() -> None:
    path = settings_store.default_settings_path()
    assert path.name == "settings.toml" and "desktop_agent" in str(path)
