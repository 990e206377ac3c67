"""The global push-to-talk setting: default, checks, canonical text, its TOML round trip."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.adapters.store import settings_store
from desktop_agent.core.desktop.shortcut import parse_shortcut
from desktop_agent.core.errors import SettingsError
from desktop_agent.core.setting_specs import SPECS_BY_KEY, error_key
from desktop_agent.core.settings import Settings, check_values

KEY = "shortcuts.global_push_to_talk"


def test_the_default_is_a_chord_that_parses() -> None:
    assert Settings().shortcuts.global_push_to_talk == "Ctrl+Alt+Space"
    assert parse_shortcut(Settings().get(KEY)).modifiers == ("Control", "Alt")
    assert SPECS_BY_KEY[KEY].kind == "shortcut"


def test_a_value_is_kept_in_its_canonical_text() -> None:
    assert Settings().replace_field(KEY, " super+f9 ").get(KEY) == "Super+F9"
    assert Settings().replace_field(KEY, "F9").get(KEY) == "F9"


def test_empty_means_no_global_key() -> None:
    assert Settings().replace_field(KEY, "").get(KEY) == ""
    assert Settings().replace_field(KEY, "   ").get(KEY) == ""


def test_a_refused_value_says_what_to_use_instead() -> None:
    # More refusals, each naming the field: test_settings.py's table of invalid values.
    with pytest.raises(SettingsError) as info:
        Settings().replace_field(KEY, "space")
    assert info.value.message == (
        f"{KEY} is refused: Space would be taken from every program you type in. Instead, "
        "add Ctrl, Alt or Super to it (e.g. Ctrl+Alt+Space), or use a function key such as F9.")
    assert error_key(info.value) == KEY


def test_check_values_reports_the_field_for_the_dialog() -> None:
    ok, reasons = check_values({KEY: "A"})
    assert ok is None and list(reasons) == [KEY]


def test_the_setting_round_trips_through_the_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    settings_store.save_settings(Settings().replace_field(KEY, "super+f9"), path)
    assert '[shortcuts]\nglobal_push_to_talk = "Super+F9"' in path.read_text()
    assert settings_store.load_settings(path).settings.get(KEY) == "Super+F9"
    path.write_text('[shortcuts]\nglobal_push_to_talk = "Space"\n')
    loaded = settings_store.load_settings(path)
    assert loaded.settings.get(KEY) == "Ctrl+Alt+Space"  # the refused value fell back
    assert any(KEY in w for w in loaded.warnings)
    path.write_text('[shortcuts]\nglobal_push_to_talk = ""\n')
    assert settings_store.load_settings(path).settings.get(KEY) == ""
