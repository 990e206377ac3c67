"""Which model speaks (``models.speaker_llm``), resolved offline on small fake packages."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import pytest

from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest
from desktop_agent.compose.engines import resolve_models
from desktop_agent.core.errors import ModelError, SettingsError
from desktop_agent.core.manifest import parse_manifest
from desktop_agent.core.settings import Settings

SMALL, LARGE = b"GGUF" + b"s" * 500, b"GGUF" + b"L" * 900


def _model(model_id: str, data: bytes, extra: str) -> str:
    module = model_id.replace("-", "_")
    return f"""
[models.{model_id}]
role = "llm"
kind = "gguf"
{extra}
packages = ["{model_id}==1.0"]
files = ["{module}/m.gguf"]
licence = "MIT"
size_bytes = {len(data)}
[models.{model_id}.sha256]
"m.gguf" = "{hashlib.sha256(data).hexdigest()}"
"""


MANIFEST = _model("tiny-small", SMALL, "default = true") + _model("tiny-large", LARGE,
                                                                   "speaker = true")


def _resolver(tmp_path: Path, large: bytes | None = LARGE) -> ModelResolver:
    """The fake manifest with the small model installed, and the large one if given."""
    site = {}
    for module, data in (("tiny_small", SMALL), ("tiny_large", large)):
        if data is None:
            continue
        (tmp_path / module).mkdir(parents=True)
        (tmp_path / module / "m.gguf").write_bytes(data)
        site[module] = tmp_path / module
    return ModelResolver(parse_manifest(MANIFEST), tmp_path / "data", site.get,
                         bundled_dir=tmp_path / "no-bundle")


def _settings(speaker: str, backend: str = "local") -> Settings:
    return (Settings().replace_field("models.llm", "tiny-small")
            .replace_field("models.speaker_llm", speaker).replace_field("llm.backend", backend))


def test_auto_takes_the_installed_speaking_model_beside_the_small_one(tmp_path: Path) -> None:
    found = resolve_models(_settings("auto"), ("llm",), _resolver(tmp_path))
    assert found["llm"].model_id == "tiny-small"
    assert found["speaker"].model_id == "tiny-large" and found["speaker"].verified


def test_auto_without_the_speaking_model_is_the_one_model_as_before(tmp_path: Path) -> None:
    found = resolve_models(_settings("auto"), ("llm",), _resolver(tmp_path, large=None))
    assert set(found) == {"llm"}


def test_a_broken_speaking_model_under_auto_is_left_out_with_a_warning(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        found = resolve_models(_settings("auto"), ("llm",), _resolver(tmp_path, b"GGUF bad"))
    assert set(found) == {"llm"}
    assert "speaking model is not usable, tiny-small speaks" in caplog.text


def test_off_a_server_or_the_same_model_means_no_second_model(tmp_path: Path) -> None:
    resolver = _resolver(tmp_path)
    assert set(resolve_models(_settings("off"), ("llm",), resolver)) == {"llm"}
    assert set(resolve_models(_settings("tiny-small"), ("llm",), resolver)) == {"llm"}
    from desktop_agent.compose.llm_backend import resolve_speaker

    small = resolver.resolve("tiny-small", "llm")
    assert resolve_speaker(_settings("auto", "server"), resolver, small) is None


def test_a_named_speaking_model_that_is_missing_fails_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as info:
        resolve_models(_settings("tiny-large"), ("llm",), _resolver(tmp_path, large=None))
    assert info.value.code == "model_missing" and info.value.fix


def test_the_setting_takes_auto_off_an_id_or_an_absolute_path() -> None:
    assert Settings().models.speaker_llm == "auto"
    for value in ("off", "qwen2.5-coder-1.5b-instruct", "/models/big.gguf"):
        assert Settings().replace_field("models.speaker_llm", value).models.speaker_llm == value
    with pytest.raises(SettingsError):
        Settings().replace_field("models.speaker_llm", "models/big.gguf")


def test_a_manifest_marks_one_speaker_and_never_the_default() -> None:
    with pytest.raises(ModelError, match="more than one speaker"):
        parse_manifest(MANIFEST + _model("tiny-other", b"x", "speaker = true"))
    with pytest.raises(ModelError, match="speaker = true is for an llm model"):
        parse_manifest(_model("tiny-both", b"x", "default = true\nspeaker = true"))


def test_the_project_installs_the_speaking_model_with_the_defaults() -> None:
    manifest = load_manifest()
    speaker = manifest.speaker()
    assert speaker is not None and speaker.model_id == "qwen2.5-coder-1.5b-instruct"
    assert speaker.installed_by_default and not speaker.default
    root = Path(__file__).resolve().parents[2] / "models"
    pins = {}
    for name in ("requirements-default.txt", "requirements-optional.txt"):
        lines = (root / name).read_text(encoding="utf-8").splitlines()
        pins[name] = {ln.split(" ")[0] for ln in lines if ln and not ln.startswith("#")}
    assert set(speaker.packages) <= pins["requirements-default.txt"]
    assert not set(speaker.packages) & pins["requirements-optional.txt"]


def test_doctor_warns_with_the_fix_when_the_speaking_model_is_missing(tmp_path: Path) -> None:
    from desktop_agent.devtools.doctor import _speaker_check

    resolver = _resolver(tmp_path, large=None)
    resolved = {"llm": resolver.resolve("tiny-small", "llm")}
    check = _speaker_check(_settings("auto"), resolver, resolved)
    assert check.status == "warn" and "tiny-large is not installed" in check.detail
    assert "requirements-default.txt" in check.fix and "speaker" not in resolved
    found = _speaker_check(_settings("auto"), _resolver(tmp_path / "both"), resolved)
    assert found.status == "ok" and "tiny-large speaks answers" in found.detail
    assert resolved["speaker"].model_id == "tiny-large"
    off = _speaker_check(_settings("off"), resolver, {"llm": resolved["llm"]})
    assert off.status == "ok" and "tiny-small speaks too" in off.detail
