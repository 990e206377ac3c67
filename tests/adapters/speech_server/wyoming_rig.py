"""Real Wyoming servers for the tests: wyoming-faster-whisper and wyoming-piper on loopback,
loading this project's own model files (local files only, int8: as the README shows), and a
fixture server of ours that misbehaves on purpose (silent, or hangs up mid-answer)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from tests.adapters.llm.llm_server_rig import free_port
from tests.needs import unavailable


def server_binary(name: str) -> Path:
    """The venv's ``name`` (installed by ``setup.sh test``; skip here, fail in CI)."""
    binary = Path(sys.executable).parent / name
    if not os.access(binary, os.X_OK):
        unavailable(f"{name} (`bash scripts/setup.sh test` installs it)", f"no {binary}")
    return binary


def asr_command(model_dir: Path, data_dir: Path, port: int) -> list[str]:
    """wyoming-faster-whisper on ``port`` with the app's CTranslate2 model folder."""
    return [str(server_binary("wyoming-faster-whisper")), "--uri", f"tcp://127.0.0.1:{port}",
            "--model", str(model_dir), "--data-dir", str(data_dir), "--local-files-only",
            "--language", "en", "--beam-size", "1", "--cpu-threads", "1",
            "--compute-type", "int8"]


def tts_command(voice: Path, port: int) -> list[str]:
    """wyoming-piper on ``port`` with the app's voice (its folder is the data dir)."""
    return [str(server_binary("wyoming-piper")), "--uri", f"tcp://127.0.0.1:{port}",
            "--voice", voice.name.removesuffix(".onnx"), "--data-dir", str(voice.parent),
            "--local-files-only", "--debug"]  # --debug: its log names each sentence


class WyomingServer:
    """One real server process. ``start``/``kill`` may be called again (same port)."""

    def __init__(self, command: Callable[[int], list[str]], log: Path) -> None:
        self.command, self.log = command, log
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        """Its address, e.g. tcp://127.0.0.1:41234."""
        return f"tcp://127.0.0.1:{self.port}"

    def start(self, ready_within_s: float = 180.0) -> WyomingServer:
        """Start it and wait until it answers Describe (its models are loaded then)."""
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(self.command(self.port), stdout=log,
                                         stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + ready_within_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited ({self.proc.returncode}); log: {self.log}")
            if describes(self.port):
                return self
            time.sleep(0.2)
        self.kill()
        raise RuntimeError(f"the server did not answer within {ready_within_s} s; log: {self.log}")

    def kill(self) -> None:
        """SIGKILL it and wait: a server that dies, not one that says goodbye."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None


def describes(port: int) -> bool:
    """True when a Wyoming server on ``port`` answers Describe with its Info."""
    from wyoming.event import read_event, write_event
    from wyoming.info import Describe

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.settimeout(5)
            stream = sock.makefile("rwb")
            write_event(Describe().event(), stream)
            stream.flush()
            event = read_event(stream)
            return event is not None and event.type == "info"
    except OSError:
        return False


class MisbehavingServer:
    """A loopback server of ours: ``mode`` 'silent' reads and never answers; 'hang_up'
    answers a Synthesize with the start of audio and one chunk, then closes."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen()
        self.port = int(self._sock.getsockname()[1])
        self.requests = 0
        self._held: list[Any] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def uri(self) -> str:
        """Its address."""
        return f"tcp://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        from wyoming.audio import AudioChunk, AudioStart
        from wyoming.event import read_event, write_event

        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.requests += 1
            stream = conn.makefile("rwb")
            if self.mode == "silent":
                self._held.append((conn, stream))  # open, never answered
                continue
            read_event(stream)  # the Synthesize
            fmt = {"rate": 22050, "width": 2, "channels": 1}
            write_event(AudioStart(**fmt).event(), stream)
            write_event(AudioChunk(audio=b"\0\1" * 2205, **fmt).event(), stream)
            stream.flush()
            stream.close()
            conn.close()

    def close(self) -> None:
        """Stop accepting (the accept loop ends) and drop what is held."""
        with suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes a blocked accept; close alone does not
        self._sock.close()
        self._thread.join(5)
        for conn, stream in self._held:
            stream.close()
            conn.close()
