"""What goes into the PyInstaller bundle: used by desktop_agent.spec, checked by tests.

desktop_agent imports only PySide6.QtCore, QtGui, QtWidgets and QtNetwork (the control
socket's QLocalServer; tests/bundle checks the source), so every other Qt binding is
excluded, with the Qt plugins that would drag in QML, Quick, PDF, SQL, printing, network
information and TLS backends or GTK, and Qt's translations (the app's text is
English only; Qt's own dialogs fall back to English).
"""

from __future__ import annotations

import re
from pathlib import Path

QT_USED = ("QtCore", "QtGui", "QtNetwork", "QtWidgets")
"""The PySide6 modules desktop_agent imports."""

QT_EXCLUDES = [f"PySide6.{m}" for m in (
    "Qt3DAnimation", "Qt3DCore", "Qt3DExtras", "Qt3DInput", "Qt3DLogic", "Qt3DRender",
    "QtBluetooth", "QtCharts", "QtConcurrent", "QtDBus", "QtDataVisualization", "QtDesigner",
    "QtGraphs", "QtHelp", "QtHttpServer", "QtLocation", "QtMultimedia", "QtMultimediaWidgets",
    "QtNetworkAuth", "QtNfc", "QtOpenGL", "QtOpenGLWidgets", "QtPdf",
    "QtPdfWidgets", "QtPositioning", "QtPrintSupport", "QtQml", "QtQuick", "QtQuick3D",
    "QtQuickControls2", "QtQuickTest", "QtQuickWidgets", "QtRemoteObjects", "QtScxml",
    "QtSensors", "QtSerialBus", "QtSerialPort", "QtSpatialAudio", "QtSql", "QtStateMachine",
    "QtSvg", "QtSvgWidgets", "QtTest", "QtTextToSpeech", "QtUiTools", "QtWebChannel",
    "QtWebEngineCore", "QtWebEngineQuick", "QtWebEngineWidgets", "QtWebSockets", "QtWebView",
    "QtXml",
)]

PY_EXCLUDES = [
    "tkinter", "_tkinter", "IPython", "matplotlib", "pandas", "torch", "tensorflow",
    "transformers", "pytest", "_pytest", "hypothesis", "mypy", "ruff", "pytestqt",
    "pipecat", "llama_cpp.server", "fastapi", "uvicorn", "flask", "PyInstaller",
    "hf_xet",  # huggingface_hub's upload/download accelerator: the app never downloads
]

_QT_PLUGINS = "PySide6/Qt/plugins/"
_KEEP_PLUGINS = {
    # a window on X11 and on Wayland; offscreen for tests and screenshots; minimal for tools
    "platforms": {"libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqminimal.so"},
    "imageformats": {"libqsvg.so", "libqico.so", "libqjpeg.so", "libqgif.so"},
    "iconengines": None,  # None: keep the whole folder
    "platforminputcontexts": None,  # compose key, IBus: typed input in every language
    "platformthemes": {"libqxdgdesktopportal.so"},  # not libqgtk3 (it would pull in GTK)
    "xcbglintegrations": None,
    "wayland-decoration-client": None,
    "wayland-graphics-integration-client": None,
    "wayland-shell-integration": None,
}
_DROP_LIBS = re.compile(r"libQt6(Qml|Quick|Pdf|Sql|Designer|Help|Network|Test|UiTools|Lottie"
                        r"|Labs|WaylandCompositor|PrintSupport)"
                        # part of glibc (libc6), like libm: a bundled copy needs this glibc
                        r"|^libmvec\.so")


def keep_binary(dest: str) -> bool:
    """Whether a collected binary (its path inside the bundle) belongs in the bundle."""
    dest = dest.replace("\\", "/")
    if dest.startswith(_QT_PLUGINS):
        folder, _, name = dest[len(_QT_PLUGINS):].partition("/")
        if folder not in _KEEP_PLUGINS:
            return False
        names = _KEEP_PLUGINS[folder]
        return names is None or name in names
    return not _DROP_LIBS.search(Path(dest).name)


def keep_data(dest: str) -> bool:
    """Whether a collected data file belongs in the bundle: no Qt translations, no QML."""
    dest = dest.replace("\\", "/")
    if dest.startswith(("PySide6/Qt/translations/", "PySide6/Qt/qml/")):
        return False
    if dest.startswith(_QT_PLUGINS):
        return keep_binary(dest)
    return True


def default_model_files() -> list[tuple[str, Path]]:
    """(model id, file) for every model installed by default (the defaults and the speaker),
    resolved and verified on this machine.

    Used for the --with-models bundle: the files go to ``models/<id>/`` inside the bundle,
    where adapters/models/model_resolver.py looks after the user data dir.
    """
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest

    manifest = load_manifest()
    resolver = ModelResolver(manifest)
    out: list[tuple[str, Path]] = []
    for spec in manifest.models.values():
        if spec.installed_by_default:
            model = resolver.resolve(spec.model_id, spec.role)
            out += [(spec.model_id, f) for f in model.files]
    return out
