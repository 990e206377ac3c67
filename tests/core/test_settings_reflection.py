"""The reflection setting: default, validation, its TOML round trip, the machine's mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.adapters.store import settings_store
from desktop_agent.core.conversation.history import History
from desktop_agent.core.errors import SettingsError
from desktop_agent.core.setting_specs import error_key
from desktop_agent.core.settings import Settings
from desktop_agent.core.turns.machine import TurnStateMachine


def test_the_default_reflects_checkable_questions() -> None:
    assert Settings().interaction.reflection == "checkable"


def test_an_unknown_mode_names_the_field() -> None:
    with pytest.raises(SettingsError) as info:
        Settings().replace_field("interaction.reflection", "sometimes")
    assert error_key(info.value) == "interaction.reflection"
    assert "checkable, on, off" in info.value.message


def test_reflection_round_trips_through_the_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    settings_store.save_settings(Settings().replace_field("interaction.reflection", "on"), path)
    assert 'reflection = "on"' in path.read_text()
    assert settings_store.load_settings(path).settings.interaction.reflection == "on"
    path.write_text('[interaction]\nreflection = "loud"\n')
    loaded = settings_store.load_settings(path)
    assert loaded.settings.interaction.reflection == "checkable"
    assert any("interaction.reflection" in w for w in loaded.warnings)


def test_the_machine_takes_a_new_mode_for_the_next_reply() -> None:
    machine = TurnStateMachine(History("s"))
    assert machine.policy.reflection == "off"
    machine.set_reflection("checkable")
    assert machine.policy.reflection == "checkable"
