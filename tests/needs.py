"""Skip here, fail in CI: what a test does when something it needs is missing.

On a developer's machine a test whose model, daemon or tool is missing skips with the
reason. With ``DESKTOP_AGENT_REQUIRE_ALL=1`` (set by ``.ci/run``, where
``scripts/setup.sh`` installed everything) the same test fails with that reason: CI can
never go green by skipping. tests/conftest.py also turns any other skip into a failure
under the flag, unless the test is marked ``skip_ok`` (a skip no install can cure).
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

REQUIRE_ALL = "DESKTOP_AGENT_REQUIRE_ALL"


def required() -> bool:
    """True when a missing dependency must fail the test (CI)."""
    return os.environ.get(REQUIRE_ALL) == "1" or \
        os.environ.get("DESKTOP_AGENT_REQUIRE_MODELS") == "1"  # the flag's former name


def unavailable(what: str, why: str) -> NoReturn:
    """Skip (a developer's machine) or fail (CI) because ``what`` is missing."""
    if required():
        pytest.fail(f"{what} is required here ({REQUIRE_ALL}=1) but unavailable: {why}",
                    pytrace=False)
    pytest.skip(f"{what} unavailable: {why}")
