"""What the bundle keeps of Qt: only what desktop_agent imports (checked against the source)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "packaging"))

import bundle_config  # noqa: E402  (packaging/ is not a package)
from bundle_config import QT_EXCLUDES, QT_USED, keep_binary, keep_data  # noqa: E402


def test_the_app_imports_exactly_the_qt_modules_the_bundle_keeps() -> None:
    used = set()
    for path in (REPO / "desktop_agent").rglob("*.py"):
        used |= set(re.findall(r"PySide6\.(Qt\w+)", path.read_text(encoding="utf-8")))
    assert used == set(QT_USED)
    assert not {f"PySide6.{m}" for m in QT_USED} & set(QT_EXCLUDES)


def test_qt_plugins_kept_are_the_ones_a_desktop_window_needs() -> None:
    plugins = "PySide6/Qt/plugins/"
    for kept in ("platforms/libqxcb.so", "platforms/libqwayland.so",
                 "platforms/libqoffscreen.so", "imageformats/libqsvg.so",
                 "iconengines/libqsvgicon.so", "platforminputcontexts/libibus.so",
                 "wayland-shell-integration/libxdg-shell.so"):
        assert keep_binary(plugins + kept), kept
    for dropped in ("platforms/libqeglfs.so", "platforms/libqvnc.so",
                    "platformthemes/libqgtk3.so", "imageformats/libqpdf.so",
                    "sqldrivers/libqsqlite.so", "qmltooling/libqmldbg_debugger.so",
                    "printsupport/libcupsprintersupport.so"):
        assert not keep_binary(plugins + dropped), dropped


def test_unused_qt_libraries_translations_and_glibc_parts_are_dropped() -> None:
    assert keep_binary("PySide6/Qt/lib/libQt6Widgets.so.6")
    assert keep_binary("PySide6/Qt/lib/libQt6DBus.so.6")  # AT-SPI: screen readers
    assert keep_binary("libspeexdsp.so.1") and keep_binary("llama_cpp/lib/libllama.so")
    for dropped in ("PySide6/Qt/lib/libQt6Qml.so.6", "PySide6/Qt/lib/libQt6Quick.so.6",
                    "PySide6/Qt/lib/libQt6Pdf.so.6", "libQt6Network.so.6", "libmvec.so.1"):
        assert not keep_binary(dropped), dropped
    assert not keep_data("PySide6/Qt/translations/qtbase_de.qm")
    assert keep_data("piper/espeak-ng-data/phontab")
    assert keep_data("models/manifest.toml")


def test_pyinstaller_is_pinned_with_hashes() -> None:
    text = (REPO / "packaging" / "requirements-bundle.txt").read_text()
    pins = re.findall(r"^([\w-]+)==\S+ \\\n(?:\s+--hash=sha256:[0-9a-f]{64}(?: \\)?\n)+", text,
                      re.M)
    assert pins == ["pyinstaller", "pyinstaller-hooks-contrib", "altgraph"]
    assert bundle_config.__doc__
