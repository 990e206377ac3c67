"""models prepare --from DIR: model files brought in by hand (the bundle has no pip)."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from desktop_agent.adapters.models.model_import import import_models
from desktop_agent.adapters.models.model_resolver import ModelResolver
from desktop_agent.core.errors import ModelError
from desktop_agent.core.manifest import parse_manifest

PART_A = b"GGUF" + b"a" * 1000
PART_B = b"b" * 777
VOICE, VOICE_JSON = b"onnx-bytes", b'{"audio": {"sample_rate": 22050}}'


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


MANIFEST = f"""
[models.tiny-llm]
role = "llm"
kind = "gguf"
default = true
packages = ["fake-part1==1.0", "fake-part2==1.0"]
files = ["fake_part1/data/p1.bin", "fake_part2/data/p2.bin"]
assemble = "concat"
output = "tiny.gguf"
licence = "MIT"
size_bytes = {len(PART_A + PART_B)}
[models.tiny-llm.sha256]
"tiny.gguf" = "{_sha(PART_A + PART_B)}"

[models.tiny-voice]
role = "tts"
kind = "piper"
default = true
packages = ["fake-voice==1.0"]
files = ["fake_voice/v.onnx", "fake_voice/v.onnx.json"]
licence = "CC0"
size_bytes = {len(VOICE + VOICE_JSON)}
[models.tiny-voice.sha256]
"v.onnx" = "{_sha(VOICE)}"
"v.onnx.json" = "{_sha(VOICE_JSON)}"

[models.big-optional]
role = "llm"
kind = "gguf"
default = false
packages = ["fake-big==1.0"]
files = ["fake_big/big.gguf"]
licence = "MIT"
size_bytes = 4
[models.big-optional.sha256]
"big.gguf" = "{_sha(b'GGUF')}"
"""
FILES = {"fake_part1/data/p1.bin": PART_A, "fake_part2/data/p2.bin": PART_B,
         "fake_voice/v.onnx": VOICE, "fake_voice/v.onnx.json": VOICE_JSON,
         "fake_big/big.gguf": b"GGUF"}


def _resolver(tmp_path: Path) -> ModelResolver:
    # No installed packages, no bundled models: only what the import brings.
    return ModelResolver(parse_manifest(MANIFEST), tmp_path / "data", lambda _m: None,
                         bundled_dir=tmp_path / "no-bundle")


def _site(folder: Path) -> Path:
    for rel, data in FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return folder


def _check_ready(resolver: ModelResolver, tmp_path: Path) -> None:
    llm = resolver.resolve("", "llm")
    assert llm.source == "user_data" and llm.verified
    assert llm.path == tmp_path / "data" / "models" / "tiny-llm" / "tiny.gguf"
    assert llm.path.read_bytes() == PART_A + PART_B
    voice = resolver.resolve("", "tts")
    assert voice.path.read_bytes() == VOICE and voice.source == "user_data"
    stamps = json.loads((tmp_path / "data" / "verified.json").read_text())
    assert stamps[str(llm.path)]["sha256"] == _sha(PART_A + PART_B)  # hashed once, on import
    leftovers = [p.name for p in (tmp_path / "data" / "models").rglob(".*")]
    assert leftovers == []


def test_a_site_packages_folder_is_imported_defaults_only(tmp_path: Path) -> None:
    resolver = _resolver(tmp_path)
    result = import_models(_site(tmp_path / "site"), resolver)
    assert [(r.model_id, r.outcome, r.where) for r in result] == [
        ("tiny-llm", "imported", "packages"), ("tiny-voice", "imported", "packages")]
    _check_ready(resolver, tmp_path)
    assert not (tmp_path / "data" / "models" / "big-optional").exists()
    again = import_models(tmp_path / "site", resolver)
    assert {r.outcome for r in again} == {"present"}


def test_wheels_are_read_without_installing_them(tmp_path: Path) -> None:
    wheels = tmp_path / "downloads"
    wheels.mkdir()
    for pkg, prefix in (("fake_part1", "fake_part1/"), ("fake_part2", "fake_part2/"),
                        ("fake_voice", "fake_voice/")):
        with zipfile.ZipFile(wheels / f"{pkg}-1.0-py3-none-any.whl", "w") as whl:
            for rel, data in FILES.items():
                if rel.startswith(prefix):
                    whl.writestr(rel, data)
            whl.writestr(f"{pkg}-1.0.dist-info/METADATA", "Name: x\n")
    (wheels / "broken.whl").write_bytes(b"not a zip")
    resolver = _resolver(tmp_path)
    result = import_models(wheels, resolver)
    assert [(r.outcome, r.where) for r in result] == [("imported", "wheels")] * 2
    _check_ready(resolver, tmp_path)


def test_a_models_folder_copied_from_another_computer(tmp_path: Path) -> None:
    other = tmp_path / "usb" / "models"
    (other / "tiny-llm").mkdir(parents=True)
    (other / "tiny-llm" / "tiny.gguf").write_bytes(PART_A + PART_B)
    (other / "tiny-voice").mkdir()
    (other / "tiny-voice" / "v.onnx").write_bytes(VOICE)
    (other / "tiny-voice" / "v.onnx.json").write_bytes(VOICE_JSON)
    resolver = _resolver(tmp_path)
    result = import_models(tmp_path / "usb", resolver)
    assert [(r.outcome, r.where) for r in result] == [("imported", "models folder")] * 2
    _check_ready(resolver, tmp_path)


def test_a_damaged_file_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    (site / "fake_part2" / "data" / "p2.bin").write_bytes(b"x" * 777)
    resolver = _resolver(tmp_path)
    with pytest.raises(ModelError) as err:
        import_models(site, resolver)
    assert err.value.code == "model_checksum"
    assert "fake-part1==1.0 fake-part2==1.0" in err.value.fix
    assert list((tmp_path / "data" / "models" / "tiny-llm").iterdir()) == []


def test_nothing_found_and_a_missing_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    resolver = _resolver(tmp_path)
    assert {r.outcome for r in import_models(tmp_path / "empty", resolver)} == {"not_found"}
    with pytest.raises(ModelError) as err:
        import_models(tmp_path / "nowhere", resolver)
    assert err.value.code == "models_source_missing"


def test_models_carried_by_a_bundle_are_checked_at_first_use(tmp_path: Path) -> None:
    bundled = tmp_path / "bundle" / "models"
    (bundled / "tiny-voice").mkdir(parents=True)
    (bundled / "tiny-voice" / "v.onnx").write_bytes(VOICE)
    (bundled / "tiny-voice" / "v.onnx.json").write_bytes(b"tampered")
    resolver = ModelResolver(parse_manifest(MANIFEST), tmp_path / "data", lambda _m: None,
                             bundled_dir=bundled)
    with pytest.raises(ModelError) as err:
        resolver.resolve("", "tts")
    assert err.value.code == "model_checksum"
    (bundled / "tiny-voice" / "v.onnx.json").write_bytes(VOICE_JSON)
    voice = resolver.resolve("", "tts")
    assert voice.source == "bundle" and voice.verified
    assert voice.path == bundled / "tiny-voice" / "v.onnx"
