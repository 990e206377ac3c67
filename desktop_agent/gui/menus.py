"""One-call menu entries with a shortcut and a fallback key."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu


def menu_action(menu: QMenu, text: str, slot: Callable[[], object],
                shortcut: QKeySequence.StandardKey | str | None = None, fallback: str = "",
                checkable: bool = False) -> QAction:
    """Add an entry to ``menu`` that calls ``slot`` and return it.

    Args:
        menu: the menu the entry goes in (and its Qt parent).
        text: the entry's text, with its ``&`` mnemonic.
        slot: called with no arguments when the entry is triggered.
        shortcut: a standard key or a key sequence such as "Ctrl+R".
        fallback: the key sequence used where the platform has no ``shortcut``.
        checkable: a check box entry.
    """
    action = QAction(text, menu)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    if action.shortcut().isEmpty() and fallback:  # some platforms lack a standard key
        action.setShortcut(QKeySequence(fallback))
    action.setCheckable(checkable)
    action.triggered.connect(lambda *_: slot())
    menu.addAction(action)
    return action
