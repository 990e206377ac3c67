"""A speech server first, this computer's engine when it fails: for ASR and for the voice.

The turn that meets a failed server ends with that failure (the machine apologises, and the
apology itself is spoken by the local voice, since the failure has switched it over). From
then on the local engine answers, with a notice, until a probe (the server's Describe, every
``retry_s`` on a thread of its own, off the turn's path) finds the server back; a server that
answers without the configured voice is not probed (only new settings mend it). The local
engine is loaded beside the remote one at start, so falling back costs nothing at the moment
it is needed.

Runs on: the engine's worker thread (``notify`` must be safe to call from there); the probe of
a failed server on a daemon thread of its own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from desktop_agent.adapters.speech_server.wyoming_link import describe
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import SpeechChunk, Transcript
from desktop_agent.core.speech_server.address import ServerAddress

_LOGGER = logging.getLogger(__name__)
RETRY_S = 30.0
"""Seconds between probes of a server that failed."""
PROBE_TIMEOUT_S = 1.0
SERVER_CODES = frozenset({"speech_server_down", "speech_server_error", "speech_server_format",
                          "speech_server_no_voice"})
UNTIL_RESTART = frozenset({"speech_server_no_voice"})
"""Failures a Describe cannot see mended (the server answers, without the voice): not probed;
the local engine answers until the settings change or the app restarts."""

E = TypeVar("E")


class _Switch(Generic[E]):
    """Which engine answers: the remote one unless it failed and has not come back.

    ``engine()`` only reads: the probe that finds a failed server back runs on a thread of
    its own every ``retry_s``, never on the turn's path (a down server can take a whole
    ``PROBE_TIMEOUT_S`` to refuse).
    """

    def __init__(self, remote: E, local: E, address: ServerAddress, role: str,
                 notify: Callable[[AgentError], None], make_error: Callable[[str, str, str],
                                                                           AgentError],
                 clock: Callable[[], float] = time.monotonic,
                 retry_s: float = RETRY_S) -> None:
        self.remote, self.local = remote, local
        self.address, self.role = address, role
        self._notify, self._error, self._clock = notify, make_error, clock
        self.retry_s = retry_s
        self.down_since: float | None = None
        self.probes = 0
        """How many probes ran (a figure for tests and the log)."""
        self._lock = threading.Lock()
        self._prober: threading.Thread | None = None
        self._closed = threading.Event()

    def engine(self) -> tuple[E, bool]:
        """The engine for the next request, and whether it is the remote one (no I/O)."""
        if self.down_since is None:
            return self.remote, True
        return self.local, False

    def failed(self, exc: AgentError) -> None:
        """The remote engine failed: local from now on, the user is told, probing starts."""
        if exc.code not in SERVER_CODES:
            return
        _LOGGER.warning("%s: %s", self.role, exc.describe())
        with self._lock:
            self.down_since = self._clock()
            if (self._prober is None and not self._closed.is_set()
                    and exc.code not in UNTIL_RESTART):
                self._prober = threading.Thread(target=self._probe_until_back, daemon=True,
                                                name=f"probe {self.address.uri}")
                self._prober.start()
        self._notify(exc)

    @property
    def probing(self) -> bool:
        """Whether a probe thread is looking for the server."""
        return self._prober is not None

    def close(self) -> None:
        """Stop probing (the app is closing)."""
        self._closed.set()

    def _probe_until_back(self) -> None:
        while not self._closed.wait(self.retry_s):
            self.probes += 1
            try:
                describe(self.address, PROBE_TIMEOUT_S, self._error)
            except AgentError:
                continue
            _LOGGER.info("%s server %s is back", self.role, self.address.uri)
            with self._lock:
                self.down_since = None
                self._prober = None
            return


class RemoteFirstAsr:
    """An ``AsrEngine``: a Wyoming server's, else the local one."""

    def __init__(self, switch: _Switch[Any]) -> None:
        """Answer through ``switch``."""
        self.switch = switch

    def transcribe(self, audio: Any, cancel: CancelToken | None = None,
                   context: str = "") -> Transcript:
        """Transcribe remotely; a server failure fails this turn and switches to local."""
        engine, remote = self.switch.engine()
        try:
            result: Transcript = engine.transcribe(audio, cancel, context)
            return result
        except AgentError as exc:
            if remote:
                self.switch.failed(exc)
            raise


class RemoteFirstTts:
    """A ``TtsEngine``: a Wyoming server's voice, else the local one."""

    def __init__(self, switch: _Switch[Any]) -> None:
        """Speak through ``switch``."""
        self.switch = switch

    @property
    def sample_rate(self) -> int:
        """The rate of the engine that speaks now."""
        switch = self.switch
        return int((switch.remote if switch.down_since is None else switch.local).sample_rate)

    def set_speaking_rate(self, rate: float) -> None:
        """The local voice's pace (a server sets its own)."""
        self.switch.local.set_speaking_rate(rate)
        self.switch.remote.set_speaking_rate(rate)

    def synthesize(self, text: str, cancel: CancelToken | None = None) -> Iterator[SpeechChunk]:
        """Speak remotely; a server failure fails this reply and switches to local."""
        engine, remote = self.switch.engine()
        try:
            yield from engine.synthesize(text, cancel)
        except AgentError as exc:
            if remote:
                self.switch.failed(exc)
            raise


def remote_first(role: str, remote: Any, local: Any, notify: Callable[[AgentError], None],
                 make_error: Callable[[str, str, str], AgentError],
                 clock: Callable[[], float] = time.monotonic, retry_s: float = RETRY_S) -> Any:
    """``RemoteFirstAsr`` (role 'speech recognition') or ``RemoteFirstTts`` (role 'voice')."""
    switch: _Switch[Any] = _Switch(remote, local, remote.address, role, notify, make_error,
                                   clock, retry_s)
    return RemoteFirstTts(switch) if role == "voice" else RemoteFirstAsr(switch)
