"""A speech server first, this computer's engine when it fails: for ASR and for the voice.

The turn that meets a failed server ends with that failure (the machine apologises, and the
apology itself is spoken by the local voice, since the failure has switched it over). From
then on the local engine answers, with a notice, until a probe (the server's Describe, at
most every ``retry_s``) finds the server back. The local engine is loaded beside the remote
one at start, so falling back costs nothing at the moment it is needed.

Runs on: the engine's worker thread (``notify`` must be safe to call from there).
"""

from __future__ import annotations

import logging
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
SERVER_CODES = frozenset({"speech_server_down", "speech_server_error", "speech_server_format"})

E = TypeVar("E")


class _Switch(Generic[E]):
    """Which engine answers: the remote one unless it failed and has not come back."""

    def __init__(self, remote: E, local: E, address: ServerAddress, role: str,
                 notify: Callable[[AgentError], None], make_error: Callable[[str, str, str],
                                                                           AgentError],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.remote, self.local = remote, local
        self.address, self.role = address, role
        self._notify, self._error, self._clock = notify, make_error, clock
        self.down_since: float | None = None
        self._probe_at = 0.0

    def engine(self) -> tuple[E, bool]:
        """The engine for the next request, and whether it is the remote one."""
        if self.down_since is None:
            return self.remote, True
        now = self._clock()
        if now >= self._probe_at:
            self._probe_at = now + RETRY_S
            try:
                describe(self.address, PROBE_TIMEOUT_S, self._error)
            except AgentError:
                return self.local, False
            _LOGGER.info("%s server %s is back", self.role, self.address.uri)
            self.down_since = None
            return self.remote, True
        return self.local, False

    def failed(self, exc: AgentError) -> None:
        """The remote engine failed: local from now on, and the user is told."""
        if exc.code not in SERVER_CODES:
            return
        _LOGGER.warning("%s: %s", self.role, exc.describe())
        self.down_since = self._clock()
        self._probe_at = self.down_since + RETRY_S
        self._notify(exc)


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
                 clock: Callable[[], float] = time.monotonic) -> Any:
    """``RemoteFirstAsr`` (role 'speech recognition') or ``RemoteFirstTts`` (role 'voice')."""
    switch: _Switch[Any] = _Switch(remote, local, remote.address, role, notify, make_error,
                                   clock)
    return RemoteFirstTts(switch) if role == "voice" else RemoteFirstAsr(switch)
