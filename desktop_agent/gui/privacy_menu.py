"""The "Clear history" menu item: a confirmation, then the view model forgets the conversation.

The confirmation is a window-modal message box opened without blocking (``open``), so the
event loop (and tests) keep running; "Cancel" is the default and Escape answers it, so a
stray Enter never erases anything. Both buttons have accessible names; the outcome is
announced in the window's live region.

Runs on: GUI thread.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtWidgets import QMessageBox, QWidget

from desktop_agent.gui.a11y import Announcer, name
from desktop_agent.runtime.view_api import AgentViewModel

QUESTION: Final = ("Clear the conversation history?\n\nEverything kept of what you said and "
                   "of the replies is erased from this computer, and the assistant forgets the "
                   "conversation so far. Notes, timers and reminders are not touched.")
KEPT_NOTHING: Final = "Cancelled: the conversation history was not cleared."


def ask_clear_history(parent: QWidget, view_model: AgentViewModel,
                      announcer: Announcer) -> QMessageBox:
    """Open the confirmation; "Clear history" clears through ``view_model``.

    Returns:
        The (open, non-blocking) message box, deleted when it closes.
    """
    box = QMessageBox(QMessageBox.Icon.Question, "Clear history", QUESTION,
                      QMessageBox.StandardButton.NoButton, parent)
    box.setObjectName("clear_history_box")
    name(box, "Clear history", "Confirm erasing the conversation history")
    clear = box.addButton("C&lear history", QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    name(clear, "Clear history", "Erase the kept conversation history now")
    name(cancel, "Cancel", "Keep the conversation history")
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)

    def answered(_result: int) -> None:
        if box.clickedButton() is clear:
            announcer.announce(view_model.clear_history(), assertive=True)
        else:
            announcer.announce(KEPT_NOTHING)
        box.deleteLater()

    box.finished.connect(answered)
    box.open()
    return box
