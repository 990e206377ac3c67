"""Write THIRD_PARTY_LICENSES.txt: every Python package, model and system library in the bundle.

    .venv/bin/python packaging/licences.py --out dist/desktop-agent/THIRD_PARTY_LICENSES.txt \
        --bundle dist/desktop-agent

Sources, all local: the installed packages' metadata (License-Expression, License,
classifiers) and licence files (PEP 639 License-File entries and any LICENSE/COPYING/NOTICE
file the package installed), models/manifest.toml (each model's licence and source
packages), and, with --bundle, the Debian copyright file of every system library
PyInstaller copied into the bundle (found with dpkg-query -S).
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT_DIST = "desktop-agent"
_LICENCE_NAME = re.compile(r"(LICEN[CS]E|COPYING|NOTICE|THIRDPARTYNOTICES|AUTHORS)", re.I)
_REQ_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")

BUNDLE_TERMS = """\
The bundle as a whole
---------------------
desktop_agent itself is MIT-licensed. The bundle also contains piper-tts, which is
GPL-3.0-or-later and has espeak-ng (GPL-3.0-or-later) compiled into piper/espeakbridge.so,
so the bundle as a whole is distributed under the terms of the GNU GPL version 3 (or
later): whoever passes it on must offer the corresponding source (this repository at the
same commit, plus the sources of the packages listed below, all on PyPI or in Debian).
PySide6 and Qt are used under the LGPL-3.0: the bundle is one folder of ordinary shared
libraries (PySide6/ and libQt6*.so* in _internal/), so a user can replace them with their
own build of the same Qt version. The models are not code: each keeps its own licence
(below).
"""


@dataclass
class Package:
    """One installed Python distribution and its licence."""

    name: str
    version: str
    licence: str
    url: str
    texts: list[tuple[str, str]] = field(default_factory=list)
    """(file name, text) of each licence file the package installed."""


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_closure(root: str = ROOT_DIST) -> list[md.Distribution]:
    """The installed distributions ``root`` needs at run time (no extras), sorted by name."""
    seen: dict[str, md.Distribution] = {}
    todo = [root]
    while todo:
        name = _norm(todo.pop())
        if name in seen:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue  # an optional or platform-specific dependency not installed here
        seen[name] = dist
        for req in dist.requires or []:
            if "extra ==" in req.replace('"', "'").replace(" ", " "):
                continue
            marker = req.split(";", 1)[1] if ";" in req else ""
            if "extra" in marker:
                continue
            match = _REQ_NAME.match(req.strip())
            if match:
                todo.append(match.group(0))
    return sorted(seen.values(), key=lambda d: _norm(d.metadata["Name"]))


def licence_of(dist: md.Distribution) -> str:
    """The SPDX expression, or the License field, or the licence classifiers."""
    meta = dist.metadata
    expr = meta.get("License-Expression")
    if expr:
        return expr.strip()
    text = (meta.get("License") or "").strip()
    if text and "\n" not in text and len(text) < 100:
        return text
    classifiers = [c.split(" :: ")[-1] for c in meta.get_all("Classifier") or []
                   if c.startswith("License ::")]
    if classifiers:
        return " / ".join(classifiers)
    return "see the licence text below" if text else "not stated in the package metadata"


def _licence_files(dist: md.Distribution) -> Iterable[Path]:
    for entry in dist.files or []:
        if ".." in entry.parts or not _LICENCE_NAME.search(entry.name):
            continue
        if entry.suffix in {".py", ".pyc", ".pyi", ".so"}:
            continue
        path = Path(str(dist.locate_file(entry)))
        if path.is_file():
            yield path


def describe(dist: md.Distribution) -> Package:
    """Name, version, licence, home page and licence texts of one distribution."""
    meta = dist.metadata
    urls = [u.split(",", 1)[-1].strip() for u in meta.get_all("Project-URL") or []]
    url = meta.get("Home-page") or (urls[0] if urls else "")
    pkg = Package(meta["Name"], dist.version, licence_of(dist), url)
    seen: set[str] = set()
    for path in _licence_files(dist):
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        if text and text not in seen:
            seen.add(text)
            pkg.texts.append((path.name, text))
    if not pkg.texts and "\n" in (meta.get("License") or ""):
        pkg.texts.append(("License (package metadata)", meta["License"].strip()))
    return pkg


def model_lines(manifest: Path) -> list[str]:
    """One paragraph per model in the manifest: id, role, licence, source packages."""
    data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    lines = []
    for model_id, spec in data.get("models", {}).items():
        default = " (default)" if spec.get("default") else ""
        lines.append(f"{model_id}{default}: {spec.get('role', '?')} model, licence "
                     f"{spec.get('licence', 'unknown')}; from {', '.join(spec.get('packages', []))}"
                     f" ({spec.get('description', '')})")
    return lines


def debian_libraries(bundle: Path) -> list[tuple[str, str, str]]:
    """(libraries, Debian package, copyright text) for the system libraries in the bundle."""
    internal = bundle / "_internal" if (bundle / "_internal").is_dir() else bundle
    owners = _dpkg_owners(sorted(p.name for p in internal.glob("lib*.so*")))
    by_package: dict[str, list[str]] = {}
    for lib, pkg in owners.items():
        by_package.setdefault(pkg, []).append(lib)
    out = []
    for pkg, names in sorted(by_package.items()):
        copyright_file = Path("/usr/share/doc") / pkg.split(":")[0] / "copyright"
        try:
            text = copyright_file.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            text = f"(no {copyright_file} on the build machine)"
        out.append((", ".join(sorted(names)), pkg, text))
    return out


def _dpkg_owners(lib_names: list[str]) -> dict[str, str]:
    """Library file name -> the Debian package that installed it (one dpkg-query call)."""
    if not lib_names:
        return {}
    try:
        result = subprocess.run(["dpkg-query", "-S", *(f"*/{n}" for n in lib_names)],
                                capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    wanted = set(lib_names)
    owners: dict[str, str] = {}
    for line in result.stdout.splitlines():
        owner, _, path = line.partition(": ")
        name = Path(path).name
        if path.startswith(("/usr/lib", "/lib")) and name in wanted:
            owners.setdefault(name, owner.split(",")[0].strip())
    return owners


def render(packages: list[Package], models: list[str],
           libraries: list[tuple[str, str, str]]) -> str:
    """The whole file: the bundle's terms, a summary table, then every licence text."""
    rule = "=" * 78
    out = ["THIRD-PARTY LICENCES: desktop_agent bundle", rule, "", BUNDLE_TERMS,
           "Python packages", "---------------"]
    width = max((len(p.name) + len(p.version) for p in packages), default=10) + 2
    for p in packages:
        out.append(f"{(p.name + ' ' + p.version).ljust(width)} {p.licence}")
    out += ["", "Models (models/manifest.toml; not in the bundle unless built --with-models)",
            "-" * 74, *models, ""]
    if libraries:
        out += ["System libraries copied from Debian", "-" * 35]
        out += [f"{names}: Debian package {pkg}" for names, pkg, _ in libraries]
        out.append("")
    for p in packages:
        out += [rule, f"{p.name} {p.version}: {p.licence}", f"{p.url}".rstrip(), rule]
        if not p.texts:
            out.append("(the package installs no licence file; its metadata says: "
                       f"{p.licence})")
        for name, text in p.texts:
            out += [f"--- {name} ---", text, ""]
    for names, pkg, text in libraries:
        out += [rule, f"{pkg} (Debian): {names}", rule, text, ""]
    return "\n".join(out).rstrip() + "\n"


def generate(out: Path, manifest: Path, bundle: Path | None = None) -> str:
    """Write the licence file; returns its text."""
    packages = [describe(d) for d in runtime_closure()]
    libraries = debian_libraries(bundle) if bundle else []
    text = render(packages, model_lines(manifest), libraries)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return text


def main(argv: list[str] | None = None) -> int:
    """Command line: --out FILE [--bundle DIR] [--manifest FILE]."""
    repo = Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--bundle", type=Path, help="also list the bundle's system libraries")
    parser.add_argument("--manifest", type=Path, default=repo / "models" / "manifest.toml")
    args = parser.parse_args(argv)
    text = generate(args.out, args.manifest, args.bundle)
    print(f"wrote {args.out} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
