"""mypy --strict over the packages whose public seams are typed: a loose type fails the build."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.needs import unavailable

ROOT = Path(__file__).resolve().parents[2]

STRICT_PACKAGES = ["desktop_agent/core", "desktop_agent/runtime"]
"""Folders (relative to the repository root) that must pass ``mypy --strict``."""


@pytest.mark.parametrize("package", STRICT_PACKAGES)
def test_mypy_strict(package: str) -> None:
    if importlib.util.find_spec("mypy") is None:
        unavailable("mypy", "not installed (it comes with the [test] extra)")
    assert (ROOT / package).is_dir(), f"{package} is in STRICT_PACKAGES but does not exist"
    # The cache under the repository keeps a re-run to about a second.
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(ROOT / ".mypy_cache"),
         package],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, f"mypy --strict {package} failed:\n{proc.stdout}{proc.stderr}"
