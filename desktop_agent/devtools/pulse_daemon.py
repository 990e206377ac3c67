"""A private PulseAudio daemon with virtual devices, for benchmarks (bench soak, bench idle).

The same card as the end-to-end tests (tests/audio/pulse.py): a null sink ``speaker`` (what
the app plays), a null sink ``micsink`` whose monitor is the default input (what the app
hears), and a loopback ``speaker.monitor -> micsink`` (the app hears its own voice, about
30 ms late). ``lose_devices``/``restore_devices`` unload and reload those modules: to the
app that is a sound card unplugged and plugged back in.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from desktop_agent.core.errors import AgentError

_CONFIG = """
load-module module-native-protocol-unix auth-anonymous=1 socket={socket}
load-module module-null-sink sink_name=speaker rate=48000 channels=2
load-module module-null-sink sink_name=micsink rate=48000 channels=1
load-module module-loopback source=speaker.monitor sink=micsink {loopback}
set-default-sink speaker
set-default-source micsink.monitor
"""
LOOPBACK_ARGS = ("latency_msec=30", "max_latency_msec=150", "adjust_time=0")
"""About 30 ms of echo path, never more than 150 ms (see tests/audio/pulse.py)."""


class PulseDaemon:
    """Start with ``start()``; ``env`` then holds what a client process needs to reach it."""

    def __init__(self) -> None:
        """Nothing runs until ``start``."""
        self._base = Path(tempfile.mkdtemp(prefix="da-pulse-"))
        self._proc: subprocess.Popen[bytes] | None = None
        self.env: dict[str, str] = {}

    @classmethod
    def attach(cls) -> PulseDaemon:
        """The daemon this process was pointed at (``PULSE_SERVER``): controlled, not owned."""
        daemon = cls.__new__(cls)
        daemon._base = Path(tempfile.gettempdir())
        daemon._proc = None
        daemon.env = {k: os.environ[k] for k in ("PULSE_SERVER", "PULSE_RUNTIME_PATH",
                                                  "XDG_RUNTIME_DIR") if k in os.environ}
        if "PULSE_SERVER" not in daemon.env:
            raise AgentError("pulse_missing", "PULSE_SERVER is not set.",
                             "Run this through `desktop-agent bench soak`.")
        return daemon

    def start(self) -> PulseDaemon:
        """Start the daemon and wait until it answers. Raises AgentError with a fix."""
        for tool in ("pulseaudio", "pactl", "paplay"):
            if shutil.which(tool) is None:
                raise AgentError("pulse_missing", f"{tool} is not installed.",
                                 "apt-get install pulseaudio pulseaudio-utils")
        if not Path("/usr/share/alsa/alsa.conf.d/pulse.conf").exists():
            raise AgentError("pulse_missing", "The ALSA pulse plugin is missing.",
                             "apt-get install libasound2-plugins")
        run, home = self._base / "run", self._base / "home"
        run.mkdir(mode=0o700)
        home.mkdir()
        socket = run / "native"
        config = self._base / "soak.pa"
        config.write_text(_CONFIG.format(socket=socket, loopback=" ".join(LOOPBACK_ARGS)))
        self.env = {"PULSE_SERVER": f"unix:{socket}", "PULSE_RUNTIME_PATH": str(run),
                    "XDG_RUNTIME_DIR": str(run)}
        env = dict(os.environ, HOME=str(home), **self.env)
        for key in ("PULSE_SINK", "PULSE_SOURCE"):
            env.pop(key, None)
        log = open(self._base / "pulseaudio.log", "wb")  # noqa: SIM115 - the daemon owns it
        self._proc = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
             "--use-pid-file=no", "--system=false", "-F", str(config), "--log-target=stderr"],
            env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                break
            if socket.exists() and self.pactl("info", check=False) is not None:
                return self
            time.sleep(0.1)
        self.stop()
        raise AgentError("pulse_failed", "The private PulseAudio daemon did not start.",
                         f"See {self._base / 'pulseaudio.log'}.")

    def pactl(self, *args: str, check: bool = True) -> str | None:
        """Run ``pactl`` against this daemon; its output (None on failure unless ``check``)."""
        done = subprocess.run(["pactl", *args], capture_output=True, text=True, timeout=10,
                              env=dict(os.environ, **self.env))
        if done.returncode != 0:
            if check:
                raise AgentError("pulse_failed", f"pactl {' '.join(args)}: {done.stderr.strip()}")
            return None
        return done.stdout.strip()

    def play(self, wav: Path) -> subprocess.Popen[bytes]:
        """Play ``wav`` into the microphone (the ``micsink`` sink); the caller waits."""
        return subprocess.Popen(["paplay", "--device=micsink", str(wav)],
                                env=dict(os.environ, **self.env),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def lose_devices(self) -> None:
        """Unload both null sinks (and with them the loopback): the card is gone."""
        listing = self.pactl("list", "short", "modules") or ""
        for name in ("sink_name=micsink", "sink_name=speaker"):
            for line in listing.splitlines():
                if name in line:
                    self.pactl("unload-module", line.split()[0], check=False)

    def restore_devices(self) -> None:
        """Load the sinks and the loopback again, and make them the defaults."""
        self.pactl("load-module", "module-null-sink", "sink_name=speaker", "rate=48000",
                   "channels=2")
        self.pactl("load-module", "module-null-sink", "sink_name=micsink", "rate=48000",
                   "channels=1")
        self.pactl("load-module", "module-loopback", "source=speaker.monitor", "sink=micsink",
                   *LOOPBACK_ARGS)
        self.pactl("set-default-sink", "speaker")
        self.pactl("set-default-source", "micsink.monitor")

    def stop(self) -> None:
        """Stop the daemon and remove its folder."""
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
            self._proc = None
            shutil.rmtree(self._base, ignore_errors=True)
