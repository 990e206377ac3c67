"""Make every model library strictly offline before it is imported.

faster-whisper pulls in huggingface_hub; these variables make any accidental hub
lookup fail fast instead of waiting on a network that is not there.
"""

from __future__ import annotations

import os

_OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
}


OWN_ENV = "DESKTOP_AGENT_OWN_ENV"
"""The names of the variables the app set for itself (comma-separated): programs it starts
for the user do not get them (``adapters/desktop/child_env.py``)."""


def mark_own(names: list[str]) -> None:
    """Record ``names`` as set by the app, not by the user."""
    own = [n for n in os.environ.get(OWN_ENV, "").split(",") if n]
    os.environ[OWN_ENV] = ",".join(dict.fromkeys([*own, *names]))


def force_offline() -> None:
    """Set the offline switches (idempotent; explicit user values are kept)."""
    mark_own([key for key in _OFFLINE_ENV if key not in os.environ])
    for key, value in _OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


def import_or_hint(module: str, package: str):  # type: ignore[no-untyped-def]
    """Import ``module`` or raise ModelError with the pip command that installs it."""
    import importlib

    from desktop_agent.core.errors import ModelError

    force_offline()
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModelError(
            "engine_missing",
            f"The Python package {package} is not installed ({exc}).",
            "Run scripts/setup.sh, or: pip install " + package,
        ) from exc
