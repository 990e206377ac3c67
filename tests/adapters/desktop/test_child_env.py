"""The environment children get (adapters/desktop/child_env.py): the user's, not the bundle's."""

from __future__ import annotations

from pathlib import Path

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
