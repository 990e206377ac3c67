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


def force_offline() -> None:
    """Set the offline switches (idempotent; explicit user values are kept)."""
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
