"""The actions list (executed writes, with Undo) and the running timers and reminders."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Final

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.gui.a11y import name
from desktop_agent.runtime.view_api import ActionRow, AlarmRow

MAX_ACTION_ROWS: Final = 50
"""The actions list shows the newest this many (the store keeps the rest)."""
NO_ACTIONS: Final = "Nothing done yet. Ask me to add a note or set a timer."
NO_ALARMS: Final = "No timers or reminders."
UNDO_COLUMN: Final = 4


def tool_label(tool: str) -> str:
    """'add_note' -> 'Add note'."""
    return tool.replace("_", " ").strip().capitalize()


def clock_text(epoch_s: float) -> str:
    """Local wall-clock time of ``epoch_s`` (UTC epoch seconds): '14:05'."""
    return datetime.fromtimestamp(epoch_s).strftime("%H:%M")


def time_left_text(seconds: float) -> str:
    """'4:05', '1:02:03', '2 d 3 h', or 'now' once it is due."""
    if seconds <= 0.0:
        return "now"
    s = int(seconds + 0.999)  # show 0:01 until the very end, never 0:00 early
    days, rest = divmod(s, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def _tree(columns: Sequence[str], accessible_name: str, description: str) -> QTreeWidget:
    tree = QTreeWidget()
    tree.setColumnCount(len(columns))
    tree.setHeaderLabels(list(columns))
    tree.setRootIsDecorated(False)
    tree.setAlternatingRowColors(True)
    tree.setWordWrap(True)
    tree.setTabKeyNavigation(False)  # Tab leaves the list (and reaches its Undo buttons)
    tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    tree.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    name(tree, accessible_name, description)
    return tree


def _empty(tree: QTreeWidget, text: str) -> None:
    item = QTreeWidgetItem([text])
    item.setFlags(Qt.ItemFlag.ItemIsEnabled)
    tree.addTopLevelItem(item)
    item.setFirstColumnSpanned(True)


class LedgerPanel(QGroupBox):
    """Two lists: what the assistant did (newest first) and the timers and reminders.

    Fed by ``set_actions`` / ``set_alarms`` (whole lists, re-read by the presenter); the
    time left of each alarm is redrawn every second from ``clock``.

    Args:
        clock: UTC epoch seconds (injected for tests).
        parent: the Qt parent.

    Runs on: GUI thread.
    """

    sig_undo_requested = Signal(str)
    """The Undo of the action with this idempotency key was pressed."""

    def __init__(self, clock: Callable[[], float] = time.time,
                 parent: QWidget | None = None) -> None:
        super().__init__("What I did, timers and reminders", parent)
        self.setAccessibleName("Actions and timers")
        self._clock = clock
        self.action_rows: list[ActionRow] = []
        self.alarm_rows: list[AlarmRow] = []
        self.undo_buttons: dict[str, QPushButton] = {}
        self.actions_tree = _tree(
            ("Time", "Action", "Details", "Result", ""), "Actions done",
            "Writes the assistant carried out, newest first; Tab reaches each Undo button")
        header = self.actions_tree.header()
        for col, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents,
                                    QHeaderView.ResizeMode.ResizeToContents,
                                    QHeaderView.ResizeMode.Stretch,
                                    QHeaderView.ResizeMode.Stretch,
                                    QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(col, mode)
        header.setStretchLastSection(False)
        self.alarms_tree = _tree(("Kind", "What", "Time left", "Due"), "Timers and reminders",
                                 "Running timers and coming reminders, soonest first")
        alarm_header = self.alarms_tree.header()
        alarm_header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        alarm_header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        alarm_header.setStretchLastSection(False)
        self.status_label = QLabel()
        self.status_label.setProperty("role", "muted")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName("Undo result")
        self.status_label.hide()

        lists = QHBoxLayout()
        lists.addWidget(self.actions_tree, 3)
        lists.addWidget(self.alarms_tree, 2)
        v = QVBoxLayout(self)
        v.setContentsMargins(8, 6, 8, 6)
        v.addLayout(lists, 1)
        v.addWidget(self.status_label)
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.set_actions([])
        self.set_alarms([])

    # -- actions --------------------------------------------------------------------------
    def set_actions(self, rows: Sequence[ActionRow]) -> None:
        """Show ``rows`` (newest first), each with an Undo button where it can be undone."""
        had_focus = any(b.hasFocus() for b in self.undo_buttons.values())
        self.action_rows = list(rows)[:MAX_ACTION_ROWS]
        tree = self.actions_tree
        tree.clear()  # also deletes the old rows' Undo buttons
        self.undo_buttons = {}
        if not self.action_rows:
            _empty(tree, NO_ACTIONS)
        chain: list[QWidget] = [tree]
        for row in self.action_rows:
            item = QTreeWidgetItem([clock_text(row.executed_at), tool_label(row.tool),
                                    row.args_text, row.result, "Undone" if row.undone else ""])
            item.setToolTip(2, row.args_text)
            item.setToolTip(3, row.result)
            tree.addTopLevelItem(item)
            if row.can_undo and not row.undone:
                button = self._undo_button(row)
                tree.setItemWidget(item, UNDO_COLUMN, button)
                chain.append(button)
        chain.append(self.alarms_tree)
        for a, b in zip(chain, chain[1:], strict=False):
            QWidget.setTabOrder(a, b)  # the buttons right after their list, in row order
        if had_focus:
            tree.setFocus(Qt.FocusReason.OtherFocusReason)  # never drop focus on the floor

    def _undo_button(self, row: ActionRow) -> QPushButton:
        button = QPushButton("Undo")
        button.setAutoDefault(True)
        name(button, f"Undo {tool_label(row.tool).lower()}",
             f"Undo '{tool_label(row.tool)}: {row.args_text}', done at "
             f"{clock_text(row.executed_at)}")
        button.clicked.connect(lambda *_, key=row.key: self._on_undo_button_clicked(key))
        self.undo_buttons[row.key] = button
        return button

    def _on_undo_button_clicked(self, key: str) -> None:
        self.sig_undo_requested.emit(key)

    def show_status(self, sentence: str) -> None:
        """Show what the last undo did under the lists ('' hides the line)."""
        self.status_label.setText(sentence)
        self.status_label.setVisible(bool(sentence))

    # -- timers and reminders -------------------------------------------------------------
    def set_alarms(self, rows: Sequence[AlarmRow]) -> None:
        """Show ``rows`` (soonest first) and keep their time left ticking."""
        self.alarm_rows = list(rows)
        tree = self.alarms_tree
        tree.clear()
        if not self.alarm_rows:
            _empty(tree, NO_ALARMS)
            self._timer.stop()
            return
        for row in self.alarm_rows:
            kind = "Timer" if row.kind == "timer" else "Reminder"
            what = row.label or "\u2014"
            tree.addTopLevelItem(QTreeWidgetItem([kind, what, "", clock_text(row.due_at)]))
        self.tick()
        self._timer.start()

    def time_left(self) -> list[str]:
        """The 'Time left' column as shown, soonest first."""
        if not self.alarm_rows:
            return []
        tree = self.alarms_tree
        items = (tree.topLevelItem(i) for i in range(tree.topLevelItemCount()))
        return [item.text(2) for item in items if item is not None]

    def tick(self) -> None:
        """Redraw each alarm's time left from the clock."""
        now = self._clock()
        tree = self.alarms_tree
        for i, row in enumerate(self.alarm_rows):
            item = tree.topLevelItem(i)
            if item is not None:
                left = time_left_text(row.due_at - now)
                item.setText(2, left)
                item.setData(2, Qt.ItemDataRole.AccessibleTextRole, f"{left} left")

    def _on_timer_timeout(self) -> None:
        self.tick()

