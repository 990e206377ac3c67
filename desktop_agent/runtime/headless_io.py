"""The plumbing of the headless executor (runtime/headless.py): lanes and a virtual speaker.

``Lane`` is one engine's thread; ``Posted`` is what a lane hands back to the calling thread,
through the ``Outbox``; ``Tokens`` are the live jobs' cancel tokens; ``Deadlines`` are the
machine's timers; ``VirtualSpeaker`` is the output device of a headless turn.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import SpeechChunk
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import JobId, Stage
from desktop_agent.runtime.headless_turn import DOCTOR_FIX

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Posted:
    """An event on its way to the calling thread, with what the machine does not carry."""

    event: ev.Event
    chunk: SpeechChunk | None = None
    """For TtsChunkReady: the audio (kept by the executor, keyed by chunk index)."""
    error: AgentError | None = None
    """For StageFailed: the typed error, with its fix, for the report."""


class Outbox:
    """Where lanes (and the virtual speaker) post events for the calling thread.

    Args:
        clock: Monotonic seconds; stamps the events posted here.
    """

    def __init__(self, clock: Callable[[], float]) -> None:
        """An empty outbox; the class docstring describes the arguments."""
        self.clock = clock
        self._events: queue.Queue[Posted] = queue.Queue()

    def post(self, event: ev.Event, chunk: SpeechChunk | None = None,
             error: AgentError | None = None) -> None:
        """Hand an event to the calling thread. Runs on: any thread."""
        self._events.put(Posted(event, chunk, error))

    def take(self, timeout_s: float) -> Posted | None:
        """The next event posted, in order; None when none came within ``timeout_s``.

        Runs on: the calling thread.
        """
        try:
            return self._events.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def fail(self, turn_id: TurnId, job: JobId | None, stage: Stage, exc: BaseException) -> None:
        """Post StageFailed for ``exc``, keeping the typed error for the report."""
        err = exc if isinstance(exc, AgentError) else AgentError(
            f"{stage.value}_failed", f"{exc.__class__.__name__}: {exc}", DOCTOR_FIX)
        self.post(ev.StageFailed(turn_id=turn_id, at_s=self.clock(), job=job, stage=stage,
                                 code=err.code, message=err.message), error=err)


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


class Tokens:
    """The cancel token of each live job (``JobTable`` without the Qt timers).

    Runs on: the calling thread (lanes only read the token they were given).
    """

    def __init__(self) -> None:
        """No job."""
        self._live: dict[JobId, CancelToken] = {}

    def new(self, turn_id: TurnId, job: JobId) -> CancelToken:
        """A fresh token for ``job``."""
        token = self._live[job] = CancelToken(turn_id)
        return token

    def cancel(self, job: JobId, reason: str) -> None:
        """Cancel ``job`` (nothing happens for an unknown or finished one)."""
        token = self._live.pop(job, None)
        if token is not None:
            token.cancel(reason)

    def cancel_all(self, reason: str) -> None:
        """Cancel every live job (they stay listed until ``forget``)."""
        for token in self._live.values():
            token.cancel(reason)

    def forget(self) -> None:
        """Drop every token (the last turn's jobs are finished or cancelled)."""
        self._live.clear()


class Deadlines:
    """The machine's timers as deadlines on the clock: the calling thread's loop fires them.

    Runs on: the calling thread.
    """

    def __init__(self) -> None:
        """No timer armed."""
        self._armed: dict[JobId, tuple[float, cmd.StartTimer]] = {}

    def arm(self, c: cmd.StartTimer, now_s: float) -> None:
        """Arm ``c``'s timer: it expires ``c.seconds`` after ``now_s``."""
        self._armed[c.job] = (now_s + c.seconds, c)

    def disarm(self, job: JobId) -> None:
        """Disarm the timer ``job`` (nothing happens for an unknown or expired one)."""
        self._armed.pop(job, None)

    def next_due(self) -> float | None:
        """The earliest deadline armed, or None."""
        return min((due for due, _ in self._armed.values()), default=None)

    def expired(self, cutoff_s: float) -> Iterator[ev.StageTimedOut]:
        """The timeouts of the timers due by ``cutoff_s``, earliest first, each disarmed.

        Lazy: a timer disarmed while an earlier timeout is handled does not fire.
        """
        for job, (due, start) in sorted(self._armed.items(), key=lambda kv: kv[1][0]):
            if due <= cutoff_s and job in self._armed:
                del self._armed[job]
                yield ev.StageTimedOut(turn_id=start.turn_id, at_s=due, job=start.job,
                                       stage=start.stage)


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
        self._kept: dict[tuple[TurnId, int], SpeechChunk] = {}

    def reset(self) -> None:
        """Forget the previous turn's audio, played or kept."""
        self._blocks, self._played, self._kept = [], {}, {}

    def keep(self, ready: ev.TtsChunkReady, chunk: SpeechChunk) -> None:
        """Keep the synthesised ``chunk`` until a PlayChunk asks for it (by its index)."""
        self._kept[(ready.turn_id, ready.chunk_index)] = chunk

    def take(self, turn_id: TurnId, chunk_index: int) -> SpeechChunk:
        """The kept chunk ``chunk_index`` of ``turn_id``, no longer kept.

        Raises AgentError('chunk_missing') when there is none.
        """
        chunk = self._kept.pop((turn_id, chunk_index), None)
        if chunk is None:
            raise AgentError("chunk_missing", f"No audio for chunk {chunk_index}.")
        return chunk

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

