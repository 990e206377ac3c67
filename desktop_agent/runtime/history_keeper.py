"""Keeps the kept conversation history within its retention period, and clears it on request.

At ``start`` the history on disk is purged once (what is older than the retention period, or
everything when Privacy says not to keep it); a timer purges again every day while the app
runs. New Privacy settings are applied at once (turning keeping off erases what was kept).
``clear`` is the "Clear history" menu item: it erases the history on disk and the in-memory
conversation, so the next answer does not remember it either.

A store that cannot be written (damaged, locked) is reported as a notice; nothing here raises
into the GUI.

Runs on: GUI thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final, Protocol

from PySide6.QtCore import QObject, QTimer

from desktop_agent.core.errors import AgentError
from desktop_agent.core.settings import PrivacySettings
from desktop_agent.runtime.view_api import ErrorNotice

_LOGGER = logging.getLogger(__name__)

PURGE_EVERY_MS: Final = 24 * 3600 * 1000
"""How often the history is purged while the app runs (a day)."""


class KeptHistory(Protocol):
    """The history on disk (``adapters/history_store.HistoryStore`` fits)."""

    def purge(self, now: float | None = None) -> int:
        """Delete what the retention period no longer allows; how many messages."""
        ...

    def clear(self) -> int:
        """Delete everything; how many messages."""
        ...

    def set_privacy(self, privacy: PrivacySettings) -> int:
        """Use new settings, deleting what they no longer allow; how many messages."""
        ...


class HistoryKeeper(QObject):
    """Purges at start and daily, applies Privacy changes, clears on request."""

    def __init__(self, kept: KeptHistory, forget_in_memory: Callable[[], None],
                 notify: Callable[[ErrorNotice], None], parent: QObject | None = None,
                 every_ms: int = PURGE_EVERY_MS) -> None:
        """Args.

        kept: the history on disk; forget_in_memory: clears the conversation the next prompt
        sees; notify: shows a notice (the view model's ``sig_error.emit``); every_ms: the
        purge period (a day; tests shorten it).
        """
        super().__init__(parent)
        self.kept = kept
        self._forget = forget_in_memory
        self._notify = notify
        self.timer = QTimer(self)
        self.timer.setInterval(every_ms)
        self.timer.timeout.connect(self._on_timer_timeout)
        self.purges = 0
        """Purges run so far (tests wait on it)."""

    def start(self) -> None:
        """Purge now, then every day."""
        self.purge()
        self.timer.start()

    def stop(self) -> None:
        """Stop the daily purge."""
        self.timer.stop()

    def _on_timer_timeout(self) -> None:
        self.purge()

    def purge(self) -> int:
        """Purge once; how many messages were deleted (0 on a store error, reported)."""
        self.purges += 1
        deleted = self._guarded(self.kept.purge)
        if deleted:
            _LOGGER.info("turn=0 %d kept messages past the retention period deleted", deleted)
        return deleted

    def apply(self, privacy: PrivacySettings) -> int:
        """Use new Privacy settings (deleting what they no longer allow)."""
        return self._guarded(lambda: self.kept.set_privacy(privacy))

    def clear(self) -> str:
        """Erase the history on disk and in memory; the sentence to show."""
        self._forget()
        try:
            deleted = self.kept.clear()
        except AgentError as exc:
            self._notify(ErrorNotice.from_error(exc))
            return "The conversation history could not be cleared: " + exc.message
        _LOGGER.info("turn=0 history cleared (%d messages)", deleted)
        return "Conversation history cleared."

    def _guarded(self, run: Callable[[], int]) -> int:
        try:
            return run()
        except AgentError as exc:
            self._notify(ErrorNotice.from_error(exc))
            return 0
