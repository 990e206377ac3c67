"""ruff (E, F, I, B, UP) over the package and the tests: style drift fails the build."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.needs import unavailable

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_is_clean() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        unavailable("ruff", "not installed (it comes with the [test] extra)")
    proc = subprocess.run([ruff, "check", "desktop_agent", "tests"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
