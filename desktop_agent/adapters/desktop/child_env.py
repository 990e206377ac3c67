"""The environment every program the app starts gets: the user's own, not the bundle's.

The PyInstaller bootloader puts the bundle's library folder first in ``LD_LIBRARY_PATH`` and
keeps the user's value in ``LD_LIBRARY_PATH_ORIG`` (unset when there was none). A child that
inherited the bundle's path (pactl, xdg-open, the browser it opens, an app from a .desktop
entry) would load the bundle's copies of libraries and may fail to start. Every child of the
desktop tools is started through ``run_child`` / ``start_child``, which pass ``child_env()``.

The app's own settings for itself are not the user's either: the variables it set (named
in ``DESKTOP_AGENT_OWN_ENV``: the model libraries' offline switches, the bundle's OpenMP
caps) are dropped, and so are the bundle's Qt plugin paths (a system Qt app would load the
bundle's plugins).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from desktop_agent.adapters.offline import OWN_ENV

ORIG: Final = "LD_LIBRARY_PATH_ORIG"
"""Where the PyInstaller bootloader keeps the user's own ``LD_LIBRARY_PATH``."""
CHILD_TIMEOUT_S: Final = 10.0
"""The longest a short command (pactl) may take before it counts as hung."""


def child_env(base: Mapping[str, str] | None = None, *, frozen: bool | None = None
              ) -> dict[str, str]:
    """The environment for a child: ``base`` (this process's) with the user's library path.

    Args:
        base: The environment to start from (default: ``os.environ``).
        frozen: Whether this is the PyInstaller bundle (default: ``sys.frozen``); outside
            the bundle the environment is the user's already and is passed on unchanged.
    """
    env = dict(os.environ if base is None else base)
    for name in env.pop(OWN_ENV, "").split(","):
        env.pop(name, None)
    if not (getattr(sys, "frozen", False) if frozen is None else frozen):
        return env
    bundle = getattr(sys, "_MEIPASS", None)
    for name in _QT_PATHS:
        if bundle and name in env and all(_inside(p, bundle) for p in
                                          env[name].split(os.pathsep) if p):
            env.pop(name)
    orig = env.pop(ORIG, None)
    if orig is not None:
        env["LD_LIBRARY_PATH"] = orig
    else:
        env.pop("LD_LIBRARY_PATH", None)
    return env


_QT_PATHS: Final = ("QT_PLUGIN_PATH", "QML2_IMPORT_PATH", "QT_QPA_PLATFORM_PLUGIN_PATH")


def _inside(path: str, folder: str) -> bool:
    try:
        return Path(path).resolve().is_relative_to(Path(folder).resolve())
    except (OSError, ValueError):
        return False


def run_child(argv: Sequence[str], *, timeout_s: float = CHILD_TIMEOUT_S
              ) -> subprocess.CompletedProcess[str]:
    """Run a short command to its end in the user's environment (text output, C locale).

    Raises:
        FileNotFoundError: The program is not installed.
        subprocess.TimeoutExpired: It took longer than ``timeout_s``.
    """
    env = child_env()
    env["LC_ALL"] = "C"  # output is parsed: no translated words, no decimal commas
    return subprocess.run(list(argv), env=env, capture_output=True, text=True,
                          timeout=timeout_s, check=False, stdin=subprocess.DEVNULL)


def start_child(argv: Sequence[str], env: Mapping[str, str] | None = None,
                cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """Start a program that lives on its own (an app, a browser) in the user's environment.

    It gets its own session (closing the assistant does not close it) and no pipes.
    ``env`` is the environment to start from (default: this process's); ``cwd`` its working
    folder (the user's home, as a menu starts it; default: the assistant's).

    Raises:
        FileNotFoundError: The program is not installed.
    """
    return subprocess.Popen(list(argv), env=child_env(env), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, cwd=cwd)
