"""Both sound cards present the runtime's ``AudioBackend`` port: checked by mypy, and by name."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from desktop_agent.adapters.device_audio import DeviceAudio
from desktop_agent.audio.backend import AudioBackend, MovingEchoPath, echo_path_version
from desktop_agent.audio.virtual import VirtualAudio
from tests.needs import unavailable

ROOT = Path(__file__).resolve().parents[2]


def both_backends() -> tuple[AudioBackend, AudioBackend, MovingEchoPath]:
    """Never called: mypy checks that each class is assignable to the port."""
    virtual: AudioBackend = VirtualAudio()
    device: AudioBackend = DeviceAudio()
    moving: MovingEchoPath = DeviceAudio()
    return virtual, device, moving


def _port_members() -> set[str]:
    return {name for name in vars(AudioBackend)
            if not name.startswith("_") and name not in typing.Protocol.__dict__}


def test_the_port_names_what_the_runtime_uses() -> None:
    assert _port_members() == {"rate", "player", "start", "stop", "read", "time_of",
                               "sample_at"}


@pytest.mark.parametrize("cls", [VirtualAudio, DeviceAudio])
def test_each_backend_has_every_member(cls: type) -> None:
    # ``player`` is set in __init__; the class-level names are checked here, all by mypy.
    missing = {name for name in _port_members() - {"player"} if not hasattr(cls, name)}
    assert not missing, f"{cls.__name__} lacks {missing}"


def test_mypy_accepts_both_backends_as_the_port() -> None:
    if importlib.util.find_spec("mypy") is None:
        unavailable("mypy", "not installed (it comes with the [test] extra)")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports", "silent",
         "--cache-dir", str(ROOT / ".mypy_cache"), str(Path(__file__).relative_to(ROOT))],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_only_a_backend_whose_echo_path_moves_reports_a_version() -> None:
    class Moved(VirtualAudio):
        echo_path_version = 3

    assert echo_path_version(VirtualAudio()) == 0
    assert echo_path_version(Moved()) == 3
