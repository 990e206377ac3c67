"""The environment children get (adapters/desktop/child_env.py): the user's, not the bundle's."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.adapters.desktop.child_env import child_env, run_child, start_child

BUNDLE = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": "/opt/bundle/_internal",
          "LD_LIBRARY_PATH_ORIG": "/home/me/lib"}


def test_in_the_bundle_the_user_s_library_path_comes_back() -> None:
    env = child_env(BUNDLE, frozen=True)
    assert env["LD_LIBRARY_PATH"] == "/home/me/lib" and "LD_LIBRARY_PATH_ORIG" not in env
    bare = {k: v for k, v in BUNDLE.items() if k != "LD_LIBRARY_PATH_ORIG"}
    assert "LD_LIBRARY_PATH" not in child_env(bare, frozen=True)  # the user had none


def test_outside_the_bundle_the_environment_is_passed_on() -> None:
    assert child_env(BUNDLE, frozen=False) == BUNDLE


def test_children_run_and_start_in_that_environment(tmp_path: Path) -> None:
    done = run_child(["sh", "-c", "echo $LC_ALL"])
    assert done.stdout.strip() == "C" and done.returncode == 0
    marker = tmp_path / "started"
    proc = start_child(["sh", "-c", f"touch {marker}"])
    assert proc.wait(10) == 0 and marker.exists()


def test_what_the_app_set_for_itself_stays_with_it() -> None:
    import sys

    from desktop_agent.adapters.offline import OWN_ENV

    user = {"PATH": "/usr/bin", "OMP_NUM_THREADS": "8", "HF_HUB_OFFLINE": "1",
            OWN_ENV: "HF_HUB_OFFLINE,OMP_WAIT_POLICY", "OMP_WAIT_POLICY": "PASSIVE"}
    env = child_env(user, frozen=False)  # the user's own OMP_NUM_THREADS is kept
    assert env == {"PATH": "/usr/bin", "OMP_NUM_THREADS": "8"}
    bundle = "/opt/bundle/_internal"
    sys._MEIPASS = bundle  # type: ignore[attr-defined]
    try:
        frozen = child_env({**BUNDLE, "QT_PLUGIN_PATH": f"{bundle}/PySide6/Qt/plugins",
                            "QML2_IMPORT_PATH": "/usr/lib/qml"}, frozen=True)
    finally:
        delattr(sys, "_MEIPASS")
    assert "QT_PLUGIN_PATH" not in frozen  # the bundle's plugins: not for a system Qt app
    assert frozen["QML2_IMPORT_PATH"] == "/usr/lib/qml"  # the user's own: kept


def test_force_offline_names_only_what_it_set(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from desktop_agent.adapters import offline

    mp = monkeypatch
    for key in (*offline._OFFLINE_ENV, offline.OWN_ENV):
        mp.delenv(key, raising=False)
    mp.setenv("HF_HUB_OFFLINE", "0")  # the user's choice
    offline.force_offline()
    own = os.environ[offline.OWN_ENV].split(",")
    assert "HF_HUB_OFFLINE" not in own and "TRANSFORMERS_OFFLINE" in own
    assert child_env()["HF_HUB_OFFLINE"] == "0" and "TRANSFORMERS_OFFLINE" not in child_env()
