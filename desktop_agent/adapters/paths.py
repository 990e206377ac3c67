"""Where desktop_agent keeps its files: per-user dirs (platformdirs) and bundled resources.

Environment overrides (tests, CI, portable installs): DESKTOP_AGENT_DATA_DIR,
DESKTOP_AGENT_CONFIG_DIR, DESKTOP_AGENT_LOG_DIR, DESKTOP_AGENT_MANIFEST.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "desktop_agent"
APP_ID = "io.github.desktop_agent.DesktopAgent"
"""The app's id on the desktop: the .desktop file's name (without .desktop), Qt's desktop file
name (the Wayland app id) and what the desktop portal is told. Reverse-DNS, as GNOME's portal
requires; the command stays ``desktop-agent``."""


def _dirs():  # type: ignore[no-untyped-def]
    import platformdirs

    return platformdirs.PlatformDirs(APP_NAME, appauthor=False)


def data_dir() -> Path:
    """User data dir: assembled models and verification stamps live here."""
    env = os.environ.get("DESKTOP_AGENT_DATA_DIR")
    return Path(env) if env else Path(_dirs().user_data_dir)


def config_dir() -> Path:
    """User config dir: settings.toml."""
    env = os.environ.get("DESKTOP_AGENT_CONFIG_DIR")
    return Path(env) if env else Path(_dirs().user_config_dir)


def log_dir() -> Path:
    """User log dir: turn telemetry as JSON lines."""
    env = os.environ.get("DESKTOP_AGENT_LOG_DIR")
    return Path(env) if env else Path(_dirs().user_log_dir)


def resource_root() -> Path:
    """The folder holding models/ and resources/: the repo root, or the PyInstaller bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle)
    return Path(__file__).resolve().parents[2]


def manifest_path() -> Path:
    """The model manifest (models/manifest.toml)."""
    env = os.environ.get("DESKTOP_AGENT_MANIFEST")
    return Path(env) if env else resource_root() / "models" / "manifest.toml"


def app_resource(name: str) -> Path:
    """A file shipped in desktop_agent/resources (the icon, the .desktop entry)."""
    return Path(__file__).resolve().parents[1] / "resources" / name
