"""The import arrows point one way: gui -> runtime -> adapters/audio -> core.

Checked statically on the source (every import statement, including lazy ones inside
functions), so a wrong arrow fails the build even if that code path never runs here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "desktop_agent"
THIRD_PARTY_HEAVY = {"PySide6", "numpy", "sounddevice", "faster_whisper", "llama_cpp", "piper",
                     "onnxruntime", "onnx", "ctranslate2", "av", "platformdirs", "tomli_w",
                     "huggingface_hub"}

# layer -> desktop_agent subpackages it must not import
FORBIDDEN_INTERNAL = {
    "core": {"audio", "adapters", "runtime", "gui", "app", "cli", "headless", "doctor"},
    "audio": {"adapters", "runtime", "gui", "app", "cli", "headless"},
    "adapters": {"runtime", "gui", "app", "cli"},
    "runtime": {"gui", "app", "cli"},
    "gui": {"adapters", "app", "cli", "headless"},
}
FORBIDDEN_EXTERNAL = {
    "core": THIRD_PARTY_HEAVY,
    "audio": THIRD_PARTY_HEAVY - {"numpy"},
    "adapters": {"PySide6"},
    "runtime": {"PySide6.QtWidgets", "PySide6.QtGui"},
}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _violations(layer: str) -> list[str]:
    bad = []
    for f in sorted((PKG / layer).rglob("*.py")):
        for name in _imports(f):
            parts = name.split(".")
            if parts[0] == "desktop_agent" and len(parts) > 1:
                if parts[1] in FORBIDDEN_INTERNAL[layer]:
                    bad.append(f"{f.relative_to(PKG)} imports {name}")
            for ext in FORBIDDEN_EXTERNAL.get(layer, ()):
                if name == ext or name.startswith(ext + "."):
                    bad.append(f"{f.relative_to(PKG)} imports {name}")
    return bad


@pytest.mark.parametrize("layer", sorted(FORBIDDEN_INTERNAL))
def test_layer_imports_point_down(layer: str) -> None:
    assert _violations(layer) == []


def test_the_checker_catches_a_wrong_arrow(tmp_path: Path) -> None:
    bad = tmp_path / "x.py"
    bad.write_text("def f():\n    import numpy\n    from desktop_agent.gui import w\n")
    assert _imports(bad) == ["numpy", "desktop_agent.gui"]
