"""DESKTOP_AGENT_REQUIRE_ALL=1 (CI) turns every skip for a missing dependency into a failure.

A tiny test suite runs in a subprocess with this repository's conftest hooks: one test
needs a model at a path that does not exist (tests/conftest.py's ``_need``), one skips by
hand with ``pytest.skip``, one is marked ``skip_ok``. Without the flag all three skip;
with it the first two fail with their reason and the third still skips.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CONFTEST = "from tests.conftest import pytest_configure, pytest_runtest_makereport  # noqa\n"
TESTS = '''
import pytest

from tests.conftest import _need


def test_model_at_a_missing_path():
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest
    from desktop_agent.core.errors import ModelError

    try:
        ModelResolver(load_manifest()).resolve("/nonexistent/voice-model.onnx", "tts")
    except ModelError as exc:
        _need("the test voice", exc)


def test_plain_skip():
    pytest.skip("a tool is missing")


@pytest.mark.skip_ok
def test_allowed_skip():
    pytest.skip("root ignores permissions")
'''


def _run(tmp_path: Path, flag: str | None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_tiny.py").write_text(TESTS)
    env = {k: v for k, v in os.environ.items()
           if k not in ("DESKTOP_AGENT_REQUIRE_ALL", "DESKTOP_AGENT_REQUIRE_MODELS")}
    env["PYTHONPATH"] = str(ROOT)
    if flag is not None:
        env["DESKTOP_AGENT_REQUIRE_ALL"] = flag
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
         "-p", "no:randomly", "--rootdir", str(tmp_path), str(tmp_path / "test_tiny.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_without_the_flag_missing_things_skip(tmp_path: Path) -> None:
    done = _run(tmp_path, None)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 skipped" in done.stdout


def test_with_the_flag_missing_things_fail_with_the_reason(tmp_path: Path) -> None:
    done = _run(tmp_path, "1")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "2 failed, 1 skipped" in out
    assert "the test voice is required here (DESKTOP_AGENT_REQUIRE_ALL=1)" in out
    assert "/nonexistent/voice-model.onnx" in out or "model_" in out
    assert "allows no skip: a tool is missing" in out
    assert "SKIPPED" in out and "root ignores permissions" in out


def test_ci_sets_the_flag() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    export = ci.index("export DESKTOP_AGENT_REQUIRE_ALL=1")
    assert export < ci.index("exec ")
