"""Print the oldest glibc a built bundle runs on: the newest GLIBC_x.y any of its ELF files needs.

    .venv/bin/python packaging/min_glibc.py dist/desktop-agent [--json] [--top 5]

Every ELF file (the executable, Python's extension modules, every shared library) names
the glibc symbol versions it needs (GLIBC_2.17, GLIBC_2.34, ...) in its dynamic string
table; the bundle needs the newest of them. glibc itself is never bundled (PyInstaller
excludes it), so this is the floor for the target system: Debian 12 ships 2.36, Ubuntu
22.04 2.35, RHEL 9 2.34.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

_VERSION = re.compile(rb"GLIBC_(2\.\d+(?:\.\d+)?)\x00")


def glibc_versions(path: Path) -> set[tuple[int, ...]]:
    """The GLIBC_ versions an ELF file names (empty for a file that is not ELF)."""
    try:
        with path.open("rb") as fh:
            if fh.read(4) != b"\x7fELF":
                return set()
            data = fh.read()
    except OSError:
        return set()
    return {tuple(int(x) for x in m.group(1).split(b".")) for m in _VERSION.finditer(data)}


def scan(bundle: Path) -> dict[str, tuple[int, ...]]:
    """File (relative to the bundle) -> the newest glibc version it needs."""
    out = {}
    for path in sorted(bundle.rglob("*")):
        if path.is_file() and not path.is_symlink():
            versions = glibc_versions(path)
            if versions:
                out[str(path.relative_to(bundle))] = max(versions)
    return out


def _fmt(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def main(argv: list[str] | None = None) -> int:
    """Command line: the bundle folder; prints the minimum glibc and the files that set it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--top", type=int, default=5, help="list the N most demanding files")
    args = parser.parse_args(argv)
    found = scan(args.bundle)
    if not found:
        print(f"no ELF files needing glibc under {args.bundle}", file=sys.stderr)
        return 1
    newest = max(found.values())
    top = sorted(found.items(), key=lambda kv: kv[1], reverse=True)[:args.top]
    if args.json:
        print(json.dumps({"min_glibc": _fmt(newest), "elf_files": len(found),
                          "top": {k: _fmt(v) for k, v in top}}))
    else:
        print(f"minimum glibc: {_fmt(newest)} ({len(found)} ELF files scanned)")
        for name, version in top:
            print(f"  {_fmt(version):7} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
