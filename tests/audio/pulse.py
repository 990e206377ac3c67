"""A private PulseAudio daemon with virtual devices, for tests/audio and tests/e2e.

``start_pulse`` (behind the ``pulse_server`` fixture of tests/conftest.py) starts
``pulseaudio`` (as whatever user runs the tests, root included) with a temporary
HOME/XDG_RUNTIME_DIR and its own config:

* ``speaker``  - a null sink: the default output (what the assistant plays)
* ``micsink``  - a null sink whose monitor ``micsink.monitor`` is the default input
* a loopback ``speaker.monitor -> micsink``: everything played comes back as "echo"
  (30 ms, capped at 150 ms: ``LOOPBACK_ARGS``)

PortAudio reaches it through ALSA's ``pulse`` plugin (Debian ``libasound2-plugins``),
pointed at the daemon by ``PULSE_SERVER``; PortAudio is re-initialised so its device
list includes ``pulse``. Tests skip with the reason when any piece is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.needs import unavailable

_PA_CONFIG = """
load-module module-native-protocol-unix auth-anonymous=1 socket={socket}
load-module module-null-sink sink_name=speaker rate=48000 channels=2
load-module module-null-sink sink_name=micsink rate=48000 channels=1
load-module module-loopback source=speaker.monitor sink=micsink {loopback}
set-default-sink speaker
set-default-source micsink.monitor
"""
LOOPBACK_ARGS = ("latency_msec=30", "max_latency_msec=150", "adjust_time=0")
"""The echo path: about 30 ms, never more than 150 ms, and fixed. Left to itself, PulseAudio's
loopback answers each underrun on a busy machine by growing its buffer, up to seconds of
delay: no room sounds like that, and no echo canceller's filter reaches that far. And left
to itself it resamples every 10 s to hold its latency (``adjust_time``), so the echo drifts
against its reference by 0.07-0.2 ms a second, as with a microphone and a speaker on two
clocks (separate devices). Here both are on one clock, as a laptop's own: speexdsp cannot
follow that drift (its linear filter stays at 5-12 dB), the drifting case is replayed from
a recording by tests/audio/test_recorded_echo.py, and docs/known-limits.md lists it."""
_ENV_KEYS = ("PULSE_SERVER", "PULSE_RUNTIME_PATH", "XDG_RUNTIME_DIR", "PULSE_SINK", "PULSE_SOURCE")


def _reinit_portaudio() -> None:
    import sounddevice as sd

    sd._terminate()
    sd._initialize()


def _wait_ready(socket: Path, proc: subprocess.Popen[bytes], env: dict[str, str]) -> str | None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return f"pulseaudio exited with {proc.returncode}"
        if socket.exists():
            ok = subprocess.run(["pactl", "info"], env=env, capture_output=True, timeout=5)
            if ok.returncode == 0:
                return None
        time.sleep(0.1)
    return "pulseaudio did not become ready in 15 s"


def pactl(*args: str, check: bool = True) -> str:
    """Run ``pactl`` against the test daemon (PULSE_SERVER is set while it runs)."""
    done = subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=10)
    if check and done.returncode != 0:
        raise RuntimeError(f"pactl {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def start_pulse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start a private PulseAudio daemon; yield its PULSE_SERVER; stop it afterwards."""
    for tool in ("pulseaudio", "pactl"):
        if shutil.which(tool) is None:
            unavailable(tool, "not installed (apt-get install pulseaudio pulseaudio-utils)")
    if not Path("/usr/share/alsa/alsa.conf.d/pulse.conf").exists():
        unavailable("the ALSA pulse plugin", "missing (apt-get install libasound2-plugins)")
    try:
        import sounddevice  # noqa: F401
    except (ImportError, OSError) as exc:
        unavailable("sounddevice/PortAudio", f"{exc} (apt-get install libportaudio2)")

    base = tmp_path_factory.mktemp("pulse")
    runtime = base / "run"
    home = base / "home"
    runtime.mkdir(mode=0o700)
    home.mkdir()
    socket = runtime / "native"
    config = base / "test.pa"
    config.write_text(_PA_CONFIG.format(socket=socket, loopback=" ".join(LOOPBACK_ARGS)))
    server = f"unix:{socket}"
    env = dict(os.environ, HOME=str(home), XDG_RUNTIME_DIR=str(runtime),
               PULSE_RUNTIME_PATH=str(runtime), PULSE_SERVER=server)
    log = open(base / "pulseaudio.log", "wb")  # noqa: SIM115 - closed in teardown
    proc = subprocess.Popen(
        ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
         "--use-pid-file=no", "--system=false", "-F", str(config), "--log-target=stderr"],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    saved = {k: os.environ.get(k) for k in _ENV_KEYS}
    try:
        problem = _wait_ready(socket, proc, env)
        if problem:
            unavailable("the PulseAudio daemon", f"{problem}; see {base / 'pulseaudio.log'}")
        for key in ("PULSE_SINK", "PULSE_SOURCE"):
            os.environ.pop(key, None)
        os.environ.update(PULSE_SERVER=server, PULSE_RUNTIME_PATH=str(runtime),
                          XDG_RUNTIME_DIR=str(runtime))
        _reinit_portaudio()
        import sounddevice as sd

        if not any(d["name"] == "pulse" for d in sd.query_devices()):
            unavailable("PortAudio's 'pulse' device",
                        "not listed (ALSA pulse plugin not working)")
        yield server
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
        log.close()
        try:
            _reinit_portaudio()
        except Exception:  # PortAudio without a server is fine for later tests
            pass
