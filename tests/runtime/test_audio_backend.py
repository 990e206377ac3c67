"""Both sound cards present the runtime's ``AudioBackend`` port: checked by mypy, and by name."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from desktop_agent.adapters.audio.device_audio import DeviceAudio
from desktop_agent.audio.backend import (
    AudioBackend,
    MovingEchoPath,
    echo_path_version,
    echo_settling_reader,
)
from desktop_agent.audio.capture import CapturePipeline
from desktop_agent.audio.virtual import VirtualAudio
from desktop_agent.core.errors import DeviceError
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
        echo_path_settling = True

    assert echo_path_version(VirtualAudio()) == 0
    assert echo_path_version(Moved()) == 3
    assert not echo_settling_reader(VirtualAudio())()
    assert echo_settling_reader(Moved())()


class _NoSoundServer(VirtualAudio):
    """A backend whose every read fails, as with no sound server at all."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def read(self, timeout_s: float = 0.1, min_samples: int | None = None) -> None:
        self.reads += 1
        raise DeviceError("audio_device_lost", "no sound server", "start one")


class _RecordedStop:
    """Stands in for the worker's stop event: records each wait, stops after ``n``."""

    def __init__(self, n: int) -> None:
        self.waits: list[float] = []
        self.n = n

    def is_set(self) -> bool:
        return len(self.waits) >= self.n

    def wait(self, seconds: float) -> bool:
        self.waits.append(seconds)
        return self.is_set()


def test_devices_that_keep_failing_are_retried_less_and_less_often() -> None:
    from desktop_agent.runtime.audio_workers import RETRY_MAX_S, RETRY_S, CaptureWorker

    backend = _NoSoundServer()
    worker = CaptureWorker(backend, CapturePipeline(_SilentVad()))
    stop = _RecordedStop(8)
    worker._stop = stop  # type: ignore[assignment]
    failures: list[Exception] = []
    worker.sig_failed.connect(failures.append)
    worker._loop()
    assert stop.waits == [RETRY_S, 1.0, 2.0, 4.0, RETRY_MAX_S, RETRY_MAX_S,
                                  RETRY_MAX_S, RETRY_MAX_S]
    assert backend.reads == 8 and len(failures) == 8  # each try still says what is wrong


class _SilentVad:
    frame_samples = 512

    def speech_probability(self, frame: object) -> float:
        return 0.0

    def reset(self) -> None:
        pass
