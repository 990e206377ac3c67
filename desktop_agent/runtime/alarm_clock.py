"""Timers and reminders fire: a window notification at once, the spoken line when it can.

Polls the ledger each second. A due alarm is marked fired (so it comes once), shown at once
(``sig_alarm_fired`` through ``fired``) and announced aloud as an aside as soon as the turn
machine is LISTENING (never over the user or a reply); the aside is cut like any other by
the push-to-talk key. At start, alarms that came due while the app was closed are announced
as missed.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from typing import Final

from PySide6.QtCore import QObject, QTimer

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.when import say_clock
from desktop_agent.core.turns.states import State
from desktop_agent.runtime.controller_ports import Ledger, MachineView
from desktop_agent.runtime.view_api import AlarmRow, ErrorNotice

_LOGGER = logging.getLogger(__name__)
POLL_MS: Final = 1000


def alarm_line(alarm: AlarmRow) -> str:
    """What the assistant says when ``alarm`` fires."""
    if alarm.kind == "timer":
        return f"Your {alarm.label} timer is done." if alarm.label else "Your timer is done."
    return f"Reminder: {alarm.label}."


def missed_line(alarms: Sequence[AlarmRow]) -> str:
    """What the assistant says at start about alarms that came due while it was closed."""
    parts = []
    for alarm in alarms:
        at = say_clock(dt.datetime.fromtimestamp(alarm.due_at).astimezone())
        if alarm.kind == "timer":
            name = f"{alarm.label} timer" if alarm.label else "timer"
            parts.append(f"the {name} that ended at {at}")
        else:
            parts.append(f"the reminder to {alarm.label} at {at}")
    if not parts:
        return ""
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"While I was closed, you missed {joined}."


class AlarmClock(QObject):
    """Fires due timers and reminders. Runs on: GUI thread.

    Args:
        ledger: The store's timers and reminders.
        machine: Read-only view of the turn machine (announce only while LISTENING).
        speak_aside: Says a text outside any reply, after a chime.
        fired: Shows a fired alarm in the window (the view model's signal).
        changed: Tells the window that the lists changed.
        show_error: Reports a store failure (once per kind).
        wall: UTC epoch seconds now.
        parent: The owning QObject.
    """

    def __init__(self, ledger: Ledger, machine: MachineView, *,
                 speak_aside: Callable[[TurnId, str], None], fired: Callable[[AlarmRow], None],
                 changed: Callable[[], None], show_error: Callable[[ErrorNotice], None],
                 wall: Callable[[], float] = time.time, parent: QObject | None = None) -> None:
        """Wire it up; the class docstring describes the arguments."""
        super().__init__(parent)
        self._ledger, self._machine = ledger, machine
        self._speak_aside, self._fired, self._changed = speak_aside, fired, changed
        self._show_error, self._wall = show_error, wall
        self._to_say: list[str] = []
        self._failed = ""
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    def start(self) -> None:
        """Announce what was missed while closed, then poll each second."""
        missed = self._call(lambda: self._ledger.take_missed(self._wall())) or []
        if missed:
            self._to_say.append(missed_line(missed))
            for alarm in missed:
                self._fired(alarm)
            self._changed()
        self._timer.start()
        self._say_due()

    def stop(self) -> None:
        """Stop polling (shutdown)."""
        self._timer.stop()

    def _on_timer_timeout(self) -> None:
        due = self._call(lambda: self._ledger.take_due(self._wall())) or []
        for alarm in due:
            _LOGGER.info("turn=%d %s %d fired", self._machine.turn_id, alarm.kind, alarm.id)
            self._to_say.append(alarm_line(alarm))
            self._fired(alarm)
        if due:
            self._changed()
        self._say_due()

    def _say_due(self) -> None:
        if self._to_say and self._machine.state is State.LISTENING:
            text, self._to_say = " ".join(self._to_say), []
            self._speak_aside(self._machine.turn_id, text)
            _LOGGER.info("turn=%d alarm announced", self._machine.turn_id)

    def _call(self, fn: Callable[[], list[AlarmRow]]) -> list[AlarmRow] | None:
        try:
            rows = fn()
        except AgentError as exc:
            if exc.code != self._failed:  # say it once, not every second
                self._failed = exc.code
                self._show_error(ErrorNotice.from_error(exc))
            return None
        self._failed = ""
        return rows
