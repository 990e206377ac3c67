"""``desktop-agent bench idle``: the app's CPU and memory with the window open and nobody talking.

Starts a private PulseAudio daemon (devtools/pulse_daemon.py: a null speaker and a null
microphone), a virtual X display (Xvfb), and the real app (``python -m desktop_agent gui``)
with default settings in a temporary config folder. After ``settle_s`` (the models load,
the prompt is evaluated), it reads the process's CPU time from /proc over ``seconds`` and
prints the share of one core it used, per thread too (the Qt threads carry their names:
capture, asr, llm, tts, tool), and the resident memory. Figures, not asserts: a shared
machine makes them pessimistic.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from desktop_agent.core.errors import AgentError

_TICK = os.sysconf("SC_CLK_TCK")


def _cpu_ticks(stat: Path) -> int:
    """utime + stime of a /proc stat file (fields 14 and 15, after the ')' of the name)."""
    fields = stat.read_text().rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])


def _threads(pid: int) -> dict[str, int]:
    """Thread name -> CPU ticks so far (names repeated: summed)."""
    out: dict[str, int] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            out[name] = out.get(name, 0) + _cpu_ticks(task / "stat")
        except (OSError, ValueError, IndexError):  # a thread that just ended
            continue
    return out


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` in MiB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def measure_cpu(pid: int, seconds: float) -> dict[str, Any]:
    """Share of one core ``pid`` used over the next ``seconds``, in total and per thread."""
    t0, before, threads0 = time.monotonic(), _cpu_ticks(Path(f"/proc/{pid}/stat")), _threads(pid)
    time.sleep(seconds)
    elapsed = time.monotonic() - t0
    after, threads1 = _cpu_ticks(Path(f"/proc/{pid}/stat")), _threads(pid)
    per_thread = {name: round((ticks - threads0.get(name, 0)) / _TICK / elapsed * 100, 2)
                  for name, ticks in threads1.items()}
    busy = {k: v for k, v in sorted(per_thread.items(), key=lambda kv: -kv[1]) if v >= 0.05}
    return {"cpu_percent": round((after - before) / _TICK / elapsed * 100, 2),
            "threads_cpu_percent": busy, "seconds": round(elapsed, 1)}


def _start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    if shutil.which("Xvfb") is None:
        raise AgentError("xvfb_missing", "Xvfb is not installed.", "apt-get install xvfb")
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24",
                             "-nolisten", "tcp"], pass_fds=(write,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as fh:
        number = fh.readline().strip()
    if not number:
        proc.kill()
        raise AgentError("xvfb_failed", "Xvfb did not start.", "Run `Xvfb :99` to see why.")
    return proc, f":{number}"


def _write_settings(path: Path) -> None:
    """Default settings on the private daemon's devices (PortAudio's 'pulse')."""
    from desktop_agent.adapters.store.settings_store import save_settings
    from desktop_agent.core.settings import Settings

    settings = (Settings().replace_field("audio.input_device", "pulse")
                .replace_field("audio.output_device", "pulse"))
    save_settings(settings, path)


def run(seconds: float = 30.0, settle_s: float = 45.0, as_json: bool = False,
        sound_server: bool = True) -> dict[str, Any]:
    """Start the app idle, measure it, stop it; print and return the figures.

    ``sound_server`` False: no sound server at all (PulseAudio's client is pointed at a
    socket nobody listens on, and there is no sound card): the app cannot open a device
    and keeps retrying, which must not cost more than an idle app.
    """
    from desktop_agent.devtools.pulse_daemon import PulseDaemon

    pulse = PulseDaemon().start() if sound_server else None
    xvfb, display = _start_xvfb()
    config = tempfile.mkdtemp(prefix="da-idle-config-")
    _write_settings(Path(config) / "settings.toml")
    sound = pulse.env if pulse is not None else {
        "PULSE_SERVER": f"unix:{config}/no-sound-server", "PULSE_RUNTIME_PATH": config}
    env = dict(os.environ, **sound, DISPLAY=display, QT_QPA_PLATFORM="xcb",
               DESKTOP_AGENT_CONFIG_DIR=config,  # its own control socket: not the user's app
               DESKTOP_AGENT_RUNTIME_DIR=str(Path(config) / "run"))
    app = subprocess.Popen([sys.executable, "-m", "desktop_agent", "gui"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + settle_s
        while time.monotonic() < deadline and app.poll() is None:
            time.sleep(0.5)
        if app.poll() is not None:
            err = app.stderr.read().decode(errors="replace")[-800:] if app.stderr else ""
            raise AgentError("app_exited", f"The app exited with {app.returncode}: {err}",
                             "Run `desktop-agent doctor`.")
        result = measure_cpu(app.pid, seconds)
        result.update(rss_mb=rss_mb(app.pid), settle_s=settle_s, sound_server=sound_server,
                      load_average_1m=round(os.getloadavg()[0], 2), cores=os.cpu_count())
    finally:
        app.terminate()
        try:
            app.wait(15)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait(5)
        xvfb.terminate()
        xvfb.wait(5)
        if pulse is not None:
            pulse.stop()
        shutil.rmtree(config, ignore_errors=True)
    if as_json:
        print(json.dumps(result))
    else:
        print(("" if sound_server else "no sound server: ") +
              f"idle CPU: {result['cpu_percent']:.1f} % of one core over {result['seconds']} s "
              f"(target <= 3 %), RSS {result['rss_mb']} MiB, load average "
              f"{result['load_average_1m']} on {result['cores']} cores")
        for name, share in result["threads_cpu_percent"].items():
            print(f"  {name:<24} {share:6.2f} %")
    return result


if __name__ == "__main__":
    run(as_json="--json" in sys.argv, sound_server="--no-sound-server" not in sys.argv)
