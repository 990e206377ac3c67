"""A settings file that is not TOML or holds wrong types: defaults, a backup, and a warning.

The warnings are what the window shows as notices at start (compose/desktop.py turns each
into an ``ErrorNotice('settings_warning', ...)``) and what ``ask``/``replay`` print.
"""

from __future__ import annotations

import logging
import string
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_agent.adapters.store.settings_store import load_settings, save_settings
from desktop_agent.core.settings import Settings


def test_a_file_that_is_not_toml_is_kept_and_defaults_are_used(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "settings.toml"
    junk = b"\x89PNG\r\n\x1a\n\x00\x00 not [toml = at all"
    path.write_bytes(junk)
    with caplog.at_level(logging.WARNING):
        loaded = load_settings(path)
    assert loaded.settings == Settings()
    assert loaded.backup_path == tmp_path / "settings.toml.bak"
    assert loaded.backup_path.read_bytes() == junk  # nothing the user wrote is lost
    assert len(loaded.warnings) == 1 and "kept as" in loaded.warnings[0]
    assert any("not valid TOML" in r.getMessage() for r in caplog.records)


def test_wrong_types_fall_back_one_by_one_and_the_rest_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[voice]\nspeaking_rate = "fast"\n'
                    '[privacy]\nkeep_history = "yes"\ntranscript_retention_days = 7\n'
                    '[ui]\nfont_scale = nan\nhigh_contrast = true\n'
                    'endpointing = 3\n', encoding="utf-8")
    loaded = load_settings(path)
    s = loaded.settings
    assert s.voice.speaking_rate == 1.0 and s.privacy.keep_history is True
    assert s.privacy.transcript_retention_days == 7 and s.ui.high_contrast is True
    assert s.ui.font_scale == 1.0 and s.endpointing == Settings().endpointing
    assert len(loaded.warnings) == 4
    assert loaded.backup_path is not None and "fast" in loaded.backup_path.read_text()


def test_a_second_bad_file_does_not_overwrite_the_first_backup(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text("first = [", encoding="utf-8")
    first = load_settings(path).backup_path
    path.write_text("second = [", encoding="utf-8")
    second = load_settings(path).backup_path
    assert first is not None and second is not None and first != second
    assert first.read_text() == "first = [" and second.read_text() == "second = ["


def test_a_folder_where_the_file_should_be(tmp_path: Path) -> None:
    (tmp_path / "settings.toml").mkdir()
    loaded = load_settings(tmp_path / "settings.toml")
    assert loaded.settings == Settings() and "Could not read" in loaded.warnings[0]


_VALUES = st.recursive(
    st.none().map(lambda _: "") | st.booleans() | st.integers(-10**20, 10**20)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(string.ascii_lowercase + "_", min_size=1, max_size=12), inner, max_size=3),
    max_leaves=8)
_SECTIONS = ["audio", "models", "voice", "interaction", "barge_in", "endpointing", "privacy",
             "ui", "knowledge", "zzz"]


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.dictionaries(st.sampled_from(_SECTIONS), st.dictionaries(
    st.sampled_from(["speaking_rate", "mode", "keep_history", "transcript_retention_days",
                     "font_scale", "min_silence_s", "max_silence_s", "asr", "input_device",
                     "folders", "x"]), _VALUES, max_size=4) | _VALUES, max_size=5))
def test_any_toml_loads_as_valid_settings_and_saves_again(tmp_path: Path,
                                                          data: dict[str, object]) -> None:
    path = tmp_path / "settings.toml"
    try:
        path.write_text(tomli_w.dumps(data), encoding="utf-8")
    except (TypeError, ValueError):
        return  # not expressible as TOML (tomli_w refuses it); other tests cover junk
    loaded = load_settings(path)
    assert isinstance(loaded.settings, Settings)
    if loaded.warnings:
        assert loaded.backup_path is not None and loaded.backup_path.exists()
    save_settings(loaded.settings, path)  # what was loaded is always valid to save
    assert load_settings(path).settings == loaded.settings


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=512))
def test_any_bytes_load(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "settings.toml"
    path.write_bytes(raw)
    assert isinstance(load_settings(path).settings, Settings)
