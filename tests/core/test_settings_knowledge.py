"""The knowledge folders setting: validation, and its round trip through the TOML store."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.adapters.store import settings_store
from desktop_agent.core.errors import SettingsError
from desktop_agent.core.setting_specs import MAX_FOLDERS, error_key
from desktop_agent.core.settings import Settings


def test_default_is_no_folder() -> None:
    assert Settings().knowledge.folders == () == Settings().knowledge_folders


def test_folders_are_stripped_deduplicated_and_kept_as_a_tuple() -> None:
    s = Settings().replace_field("knowledge.folders", [" /home/a/docs ", "C:\\Users\\a\\Docs",
                                                       "/home/a/docs"])
    assert s.knowledge_folders == ("/home/a/docs", "C:\\Users\\a\\Docs")


@pytest.mark.parametrize(("value", "why"), [
    ("/home/a/docs", "must be a list of folder paths"),
    (["docs"], "absolute folder paths"),
    (["~/docs"], "absolute folder paths"),
    ([""], "without control characters"),
    (["/a\nb"], "without control characters"),
    ([3], "must be a list of folder paths"),
    ([f"/f{i}" for i in range(MAX_FOLDERS + 1)], f"at most {MAX_FOLDERS} folders"),
])
def test_invalid_folders_name_the_field(value: object, why: str) -> None:
    with pytest.raises(SettingsError) as info:
        Settings().replace_field("knowledge.folders", value)
    assert info.value.code == "invalid_setting" and why in info.value.message
    assert error_key(info.value) == "knowledge.folders"


def test_folders_round_trip_through_the_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    s = Settings().replace_field("knowledge.folders", ["/home/a/manuals", "/home/a/club"])
    settings_store.save_settings(s, path)
    assert 'folders = [\n    "/home/a/manuals",\n    "/home/a/club",\n]' in path.read_text()
    loaded = settings_store.load_settings(path)
    assert loaded.settings == s and loaded.warnings == ()
    assert loaded.settings.knowledge_folders == ("/home/a/manuals", "/home/a/club")
    settings_store.save_settings(Settings(), path)
    assert "folders = []" in path.read_text()
    assert settings_store.load_settings(path).settings.knowledge_folders == ()


def test_a_bad_folder_list_in_the_file_falls_back_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[voice]\nspeaking_rate = 1.2\n[knowledge]\nfolders = "docs"\n')
    loaded = settings_store.load_settings(path)
    assert loaded.settings.knowledge_folders == () and loaded.settings.voice.speaking_rate == 1.2
    assert any("knowledge.folders" in w for w in loaded.warnings)
