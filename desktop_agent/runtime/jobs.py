"""Jobs of the turn machine: one cancel token per job, one QTimer per timer job.

The command -> handler table is in runtime/command_table.py.

Runs on: GUI thread.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from PySide6.QtCore import QObject, QTimer

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.states import JobId
from desktop_agent.runtime.controller_ports import Feed


class JobTable(QObject):
    """Cancel tokens of the live jobs, and the timers the machine armed.

    Tokens of turns two or more before the newest one a token was made for are forgotten
    (those turns are over: the machine cancelled or finished their work), so the table
    stays bounded for the life of the app.

    Args:
        feed: Where an expired timer's ``StageTimedOut`` goes.
        parent: The owning QObject (the timers live on its thread).
    """

    def __init__(self, feed: Feed, parent: QObject | None = None) -> None:
        """Wire it up; the class docstring describes the arguments."""
        super().__init__(parent)
        self._feed = feed
        self._tokens: dict[JobId, CancelToken] = {}
        self._timers: dict[JobId, QTimer] = {}

    def token(self, job: JobId, turn_id: TurnId) -> CancelToken:
        """The token of ``job`` (made on first use)."""
        token = self._tokens.get(job)
        if token is None:
            stale = [j for j, t in self._tokens.items() if t.turn_id < turn_id - 1]
            for j in stale:
                del self._tokens[j]
            token = self._tokens[job] = CancelToken(turn_id)
        return token

    def live(self, job: JobId) -> bool:
        """True while ``job`` has a token that was not cancelled (nor forgotten)."""
        token = self._tokens.get(job)
        return token is not None and not token.cancelled

    def cancel(self, job: JobId, reason: str) -> None:
        """Cancel ``job`` (nothing happens for an unknown or finished one)."""
        token = self._tokens.pop(job, None)
        if token is not None:
            token.cancel(reason)

    def cancel_all(self, jobs: Iterable[JobId], reason: str) -> None:
        """Cancel each of ``jobs``."""
        for job in jobs:
            self.cancel(job, reason)

    def start_timer(self, c: cmd.StartTimer) -> None:
        """Arm a one-shot timer; ``StageTimedOut`` is fed when it expires."""
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(lambda: self._expired(c))
        self._timers[c.job] = timer
        timer.start(int(c.seconds * 1000))

    def _expired(self, c: cmd.StartTimer) -> None:
        timer = self._timers.pop(c.job, None)
        if timer is not None:
            timer.deleteLater()
            self._feed(ev.StageTimedOut(turn_id=c.turn_id, at_s=time.monotonic(), job=c.job,
                                        stage=c.stage))

    def cancel_timer(self, c: cmd.CancelTimer) -> None:
        """Disarm the timer ``c.job`` (an expiry already queued is dropped by the machine)."""
        timer = self._timers.pop(c.job, None)
        if timer is not None:
            timer.stop()
            timer.deleteLater()

    def close(self, reason: str) -> None:
        """Stop every timer and cancel every job (shutdown)."""
        for timer in self._timers.values():
            timer.stop()
        self._timers.clear()
        for token in self._tokens.values():
            token.cancel(reason)
        self._tokens.clear()

