"""packaging/licences.py: the third-party licence file, from the installed packages."""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "packaging"))

import licences  # noqa: E402  (packaging/ is not a package)

MANIFEST = REPO / "models" / "manifest.toml"


@pytest.fixture(scope="module")
def text(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("lic") / "THIRD_PARTY_LICENSES.txt"
    written = licences.generate(out, MANIFEST)
    assert out.read_text() == written
    return written


def test_the_runtime_packages_are_listed_with_their_licences(text: str) -> None:
    summary = text.split("\nModels (")[0]
    assert "piper-tts 1.8.0" in summary and "GPL-3.0-or-later" in summary
    assert "PySide6_Essentials 6.11.3" in summary and "LGPL-3.0-only" in summary
    for name in ("llama_cpp_python", "ctranslate2", "onnxruntime", "faster-whisper", "numpy",
                 "sounddevice"):
        assert f"\n{name} " in summary, name
    # The closure of the app's own requirements, not the whole venv: test tools stay out.
    assert "\npytest " not in summary and "\nruff " not in summary


def _body(text: str, header: str) -> str:
    """The licence texts under the section that starts with ``header``."""
    rule = "=" * 78 + "\n"
    return text.split(rule + header, 1)[1].split(rule, 2)[1]


def test_licence_texts_are_copied_from_the_packages(text: str) -> None:
    numpy_body = _body(text, "numpy 2.4.6: ")
    assert numpy_body.startswith("--- LICENSE.txt ---") and "Copyright (c)" in numpy_body
    assert "GNU GENERAL PUBLIC LICENSE" in _body(text, "piper-tts 1.8.0: ")[:2000]


def test_every_model_in_the_manifest_is_listed_with_its_licence(text: str) -> None:
    models = tomllib.loads(MANIFEST.read_text())["models"]
    for model_id, spec in models.items():
        assert f"{model_id}" in text and f"licence {spec['licence']}" in text, model_id


def test_the_terms_of_the_bundle_as_a_whole_come_first(text: str) -> None:
    head = text[:2000]
    assert "GNU GPL version 3" in head and "espeak-ng" in head and "LGPL-3.0" in head


def test_a_package_without_licence_files_says_so() -> None:
    pkg = licences.Package("tiny", "1.0", "MIT", "https://example.org")
    rendered = licences.render([pkg], [], [])
    assert "tiny 1.0" in rendered
    assert "(the package installs no licence file; its metadata says: MIT)" in rendered


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="not a Debian system")
def test_system_libraries_in_a_bundle_get_their_debian_copyright(tmp_path: Path) -> None:
    internal = tmp_path / "_internal"
    internal.mkdir()
    (internal / "libspeexdsp.so.1").write_bytes(b"")  # only the name is looked up
    (internal / "libnot-from-debian.so.3").write_bytes(b"")
    libraries = licences.debian_libraries(tmp_path)
    assert [(names, pkg.split(":")[0]) for names, pkg, _ in libraries] == [
        ("libspeexdsp.so.1", "libspeexdsp1")]
    assert "Copyright" in libraries[0][2]
