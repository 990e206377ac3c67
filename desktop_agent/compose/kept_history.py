"""The kept conversation history, wired the same way for the app, ``ask`` and ``replay``."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from desktop_agent.adapters.store.history_store import HistoryStore
from desktop_agent.adapters.store.store_records import StoreError
from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.core.conversation.history import History
from desktop_agent.core.settings import Settings

_LOGGER = logging.getLogger(__name__)


def keep_history(store: Store, settings: Settings, history: History, *, purge: bool = True,
                 wall: Callable[[], float] = time.time) -> HistoryStore:
    """Keep ``history``'s exchanges in ``store`` as the Privacy settings say.

    Args:
        store: The assistant's store (the history table lives in its file).
        settings: Privacy decides whether exchanges are written and for how long.
        history: The conversation of the turn machine; each recorded exchange is offered.
        purge: Purge what the settings no longer allow now (the app's keeper does it at its
            ``start`` instead).
        wall: UTC epoch seconds (replays pass their moved clock).

    Returns:
        The history store (its ``clear`` is the "Clear history" action).
    """
    kept = HistoryStore(store, settings.privacy, wall)
    if purge:
        try:
            kept.purge()
        except StoreError as err:  # a store that cannot be written keeps nothing new either
            _LOGGER.warning("turn=0 kept history not purged: [%s] %s", err.code, err.message)
    history.set_sink(kept.record)
    return kept
