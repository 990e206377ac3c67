"""The import arrows point one way, and no module imports itself round a circle.

    cli -> devtools -> compose -> gui -> runtime -> adapters -> audio -> core

(``devtools`` may use everything below it; nothing in the product imports ``devtools``.)
Inside a layer, code is grouped by domain (``core/tools``, ``adapters/llm``...): a domain
package is a unit, and units must not import each other round a circle either. ``core`` and
``adapters`` keep only a few modules outside their domain packages (``LOOSE_MODULES``).
Checked statically on the source (every import statement, including lazy ones inside
functions and ``TYPE_CHECKING`` blocks), so a wrong arrow fails the build even if that code
path never runs here. The checker is tested on small trees of its own below.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "desktop_agent"
TOP = "desktop_agent"

LAYERS = ("core", "audio", "adapters", "runtime", "gui", "compose", "devtools", "cli")
"""Bottom to top: a layer may import only the layers before it (and itself)."""
TOP_LEVEL_MODULES = {"__init__", "__main__"}
"""The only modules allowed directly in the package."""

LOOSE_MODULES = {
    "core": {"cancel", "clock", "errors", "manifest", "ports", "privacy", "setting_specs",
             "settings"},
    "adapters": {"heap_trim", "offline", "paths"},
}
"""The only modules allowed directly in a layer grouped by domain: a new one goes in a domain
package (core/tools, core/knowledge, adapters/llm, adapters/store, ...), or, if it is truly
shared by every domain, here."""

SIDEWAYS_FORBIDDEN = {"gui": {"adapters", "audio"}}
"""Lower layers a layer must still not touch: the GUI talks to the runtime only."""

THIRD_PARTY_HEAVY = {"PySide6", "numpy", "sounddevice", "faster_whisper", "llama_cpp", "piper",
                     "onnxruntime", "onnx", "ctranslate2", "av", "platformdirs", "tomli_w",
                     "huggingface_hub", "soxr", "scipy", "tokenizers"}
FORBIDDEN_EXTERNAL = {
    "core": THIRD_PARTY_HEAVY,
    "audio": THIRD_PARTY_HEAVY - {"numpy", "soxr"},
    "adapters": {"PySide6"},
    "runtime": {"PySide6.QtWidgets", "PySide6.QtGui"},
}


def _module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = [root.name, *rel.parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, module: str = "") -> list[str]:
    """Every module named by an import in ``path`` (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names: list[str] = []
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # "from pkg import mod" may name a submodule: keep both candidates.
            names.append(base)
            names += [f"{base}.{a.name}" for a in node.names if a.name != "*"]
    return names


def _graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's own modules it imports."""
    files = {_module_name(root, f): f for f in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        deps = {n for n in _imports(path, name) if n in files and n != name}
        graph[name] = deps
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(iter(children), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _units(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph between sibling units: a layer's top modules and its subpackages
    (``core.heard`` and ``core.turns`` are units; ``core.turns.reply`` belongs to the latter).
    A circle here (``core.heard`` -> ``core.turns.model``, ``core.turns.reply`` ->
    ``core.heard``) tangles two parts even when no single module imports itself."""
    def unit(module: str) -> str:
        return ".".join(module.split(".")[:3])

    out: dict[str, set[str]] = {}
    for module, deps in graph.items():
        out.setdefault(unit(module), set())
        out[unit(module)] |= {unit(d) for d in deps if unit(d) != unit(module)}
    for deps in list(out.values()):
        for d in deps:
            out.setdefault(d, set())
    return out


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def _violations(root: Path) -> list[str]:
    """Wrong arrows: an import of a higher layer, of a forbidden lower one, or of a heavy
    third-party package a layer must not depend on."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        module = _module_name(root, path)
        layer = _layer_of(module)
        if layer is None:
            continue
        rank = LAYERS.index(layer)
        for name in _imports(path, module):
            target = _layer_of(name) if name.startswith(root.name + ".") else None
            if target is not None and target != layer and (
                LAYERS.index(target) > rank or target in SIDEWAYS_FORBIDDEN.get(layer, ())
            ):
                bad.append(f"{module} imports {name}")
            for ext in FORBIDDEN_EXTERNAL.get(layer, ()):
                if name == ext or name.startswith(ext + "."):
                    bad.append(f"{module} imports {name}")
    return sorted(set(bad))


def _strays(root: Path) -> list[str]:
    """Modules or packages at the top level that belong to no layer."""
    out = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith((".", "__pycache__")) or entry.name == "resources":
            continue
        if entry.is_dir() and entry.name not in LAYERS and _has_source(entry):
            out.append(entry.name)
        elif entry.suffix == ".py" and entry.stem not in TOP_LEVEL_MODULES:
            out.append(entry.name)
    return out


def _has_source(folder: Path) -> bool:
    """Whether ``folder`` holds any file but bytecode (a package moved away on a pull leaves
    its ``__pycache__`` behind in a working copy; git does not track it)."""
    return any(p.is_file() and "__pycache__" not in p.parts for p in folder.rglob("*"))


def _loose(root: Path) -> list[str]:
    """Modules directly in a domain-grouped layer that are not allowed there."""
    out = []
    for layer, allowed in LOOSE_MODULES.items():
        for path in sorted((root / layer).glob("*.py")):
            if path.stem != "__init__" and path.stem not in allowed:
                out.append(f"{layer}/{path.name}")
    return out


# --- the product ---------------------------------------------------------------------------


def test_imports_point_down() -> None:
    assert _violations(PKG) == []


def test_no_import_circle() -> None:
    assert _cycles(_graph(PKG)) == []


def test_no_circle_between_subpackages() -> None:
    assert _cycles(_units(_graph(PKG))) == []


def test_the_top_level_holds_only_the_layers() -> None:
    assert _strays(PKG) == []


def test_domain_layers_keep_loose_modules_to_the_few_shared_ones() -> None:
    assert _loose(PKG) == []


def test_nothing_in_the_product_imports_devtools() -> None:
    product = [m for m, deps in _graph(PKG).items()
               if _layer_of(m) not in ("devtools", "cli")
               and any(d.startswith(f"{TOP}.devtools") for d in deps)]
    assert product == []


# --- the checker, on trees of its own --------------------------------------------------------


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / TOP
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for d in [root, *[p for p in root.rglob("*") if p.is_dir()]]:
        (d / "__init__.py").touch()
    return root


def test_the_checker_reads_lazy_and_relative_imports(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"core/x.py": "def f():\n    import numpy\n    from ..gui import w\n"})
    names = _imports(root / "core" / "x.py", f"{TOP}.core.x")
    assert names == ["numpy", f"{TOP}.gui", f"{TOP}.gui.w"]


def test_the_checker_catches_a_wrong_arrow(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "core/a.py": "from desktop_agent.runtime import b\n",
        "runtime/b.py": "import numpy\n",
        "gui/c.py": "def f():\n    from desktop_agent.adapters import d\n",
        "adapters/d.py": "from desktop_agent.core import a\n",
        "audio/e.py": "import numpy\nimport PySide6\n",
    })
    assert _violations(root) == [
        f"{TOP}.audio.e imports PySide6",
        f"{TOP}.core.a imports {TOP}.runtime",
        f"{TOP}.core.a imports {TOP}.runtime.b",
        f"{TOP}.gui.c imports {TOP}.adapters",
        f"{TOP}.gui.c imports {TOP}.adapters.d",
    ]


def test_the_checker_finds_a_circle_inside_one_layer(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "core/a.py": "from desktop_agent.core import b\n",
        "core/b.py": "def f():\n    from desktop_agent.core.c import x\n",
        "core/c.py": "from . import a\n",
        "core/d.py": "from desktop_agent.core import a\n",
    })
    assert _cycles(_graph(root)) == [[f"{TOP}.core.a", f"{TOP}.core.b", f"{TOP}.core.c"]]


def test_the_checker_finds_a_circle_between_subpackages(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "core/heard.py": "from desktop_agent.core.turns.model import R\n",
        "core/turns/model.py": "",
        "core/turns/reply.py": "from desktop_agent.core.heard import f\n",
    })
    assert _cycles(_graph(root)) == []
    assert _cycles(_units(_graph(root))) == [[f"{TOP}.core.heard", f"{TOP}.core.turns"]]


def test_the_checker_finds_a_circle_between_domains_of_a_layer(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "core/ports.py": "from desktop_agent.core.knowledge.records import Unit\n",
        "core/knowledge/records.py": "",
        "core/knowledge/llm.py": "from desktop_agent.core.tools.router import route\n",
        "core/tools/router.py": "from desktop_agent.core.ports import ToolSpec\n",
    })
    assert _cycles(_graph(root)) == []
    assert _cycles(_units(_graph(root))) == [
        [f"{TOP}.core.knowledge", f"{TOP}.core.ports", f"{TOP}.core.tools"]]


def test_the_checker_finds_loose_modules(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"core/ports.py": "", "core/helpers.py": "", "core/tools/x.py": "",
                            "adapters/paths.py": "", "adapters/llm_x.py": ""})
    assert _loose(root) == ["core/helpers.py", "adapters/llm_x.py"]


def test_the_checker_finds_strays(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"cli/x.py": "", "app.py": "", "bench/x.py": "", "core/y.py": "",
                            "cli.py": "", "data/x.json": ""})
    (root / "old" / "__pycache__").mkdir(parents=True)  # a package moved away on a pull
    (root / "old" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"")
    assert _strays(root) == ["app.py", "bench", "cli.py", "data"]  # not "old"


@pytest.mark.parametrize("layer", LAYERS)
def test_every_layer_exists(layer: str) -> None:
    assert (PKG / layer / "__init__.py").is_file()
