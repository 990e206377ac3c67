"""The plumbing of the headless executor (runtime/headless.py): lanes and a virtual speaker.

``Lane`` is one engine's thread; ``Posted`` is what a lane hands back to the calling thread;
``VirtualSpeaker`` is the output device of a headless turn.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import SpeechChunk
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import JobId

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Posted:
    """An event on its way to the calling thread, with what the machine does not carry."""

    event: ev.Event
    chunk: SpeechChunk | None = None
    """For TtsChunkReady: the audio (kept by the executor, keyed by chunk index)."""
    error: AgentError | None = None
    """For StageFailed: the typed error, with its fix, for the report."""


class Lane:
    """One engine's thread: runs submitted jobs in order, like a worker on its QThread.

    Jobs catch their own errors and post StageFailed; the loop only logs what escapes.
    """

    def __init__(self, name: str) -> None:
        """Start the lane's thread, named ``headless-<name>``."""
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name=f"headless-{name}", daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], None]) -> None:
        """Queue ``job``. Runs on: the calling thread."""
        self._jobs.put(job)

    def close(self, timeout_s: float = 5.0) -> None:
        """Finish the queued jobs and stop (a job still blocked after ``timeout_s`` is left)."""
        self._jobs.put(None)
        self._thread.join(timeout_s)

    def _loop(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job()
            except Exception:  # never lose the lane to one job
                _LOGGER.exception("turn=? a %s job failed", self._thread.name)


class VirtualSpeaker:
    """The output device of a headless turn: consumes each queued chunk at once.

    Every ``play`` appends the chunk to the output buffer and reports the stream's samples
    as played (PlaybackStarted on a stream's first chunk, then PlaybackProgress and
    PlaybackFinished with the running total), so heard-so-far counts real samples.

    Runs on: the calling thread; events go out through ``post``.
    """

    def __init__(self, post: Callable[[ev.Event], None], clock: Callable[[], float]) -> None:
        """Report playback through ``post``, stamped by ``clock``."""
        self._post, self._clock = post, clock
        self._blocks: list[Any] = []
        self._played: dict[int, int] = {}

    def reset(self) -> None:
        """Forget the previous turn's audio."""
        self._blocks, self._played = [], {}

    def play(self, turn_id: TurnId, job: JobId, audio: Any) -> None:
        """Queue ``audio`` (int16) on stream ``job``: it is consumed now."""
        first = job not in self._played
        total = self._played[job] = self._played.get(job, 0) + len(audio)
        self._blocks.append(audio)
        now = self._clock()
        if first:
            self._post(ev.PlaybackStarted(turn_id=turn_id, job=job, at_s=now))
        self._post(ev.PlaybackProgress(turn_id=turn_id, job=job, played_samples=total, at_s=now))
        self._post(ev.PlaybackFinished(turn_id=turn_id, job=job, played_samples=total, at_s=now))

    def flush(self, turn_id: TurnId, job: JobId) -> None:
        """Stop stream ``job``: everything queued was already consumed."""
        self._post(ev.PlaybackStopped(turn_id=turn_id, job=job,
                                      played_samples=self._played.get(job, 0),
                                      at_s=self._clock()))

    def audio(self) -> Any:
        """Everything consumed since ``reset``, int16."""
        if not self._blocks:
            return np.zeros(0, dtype=np.int16)
        return np.concatenate(self._blocks)

