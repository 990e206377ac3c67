"""Accessibility helpers: a live-region announcer and one-call naming of controls."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QAccessibleEvent
from PySide6.QtWidgets import QLabel, QWidget


def name(widget: QWidget, accessible_name: str, description: str = "") -> QWidget:
    """Give ``widget`` an accessible name and description (and a matching tooltip)."""
    widget.setAccessibleName(accessible_name)
    if description:
        widget.setAccessibleDescription(description)
        if not widget.toolTip():
            widget.setToolTip(description)
    return widget


class Announcer(QLabel):
    """A visible status line that screen readers announce when it changes.

    Acts as an ARIA live region: each ``announce`` updates the text and the accessible
    name, sends a polite announcement event (Qt 6.8+) and a NameChanged event for
    assistive tech that only watches names.

    Runs on: GUI thread.
    """

    sig_announced = Signal(str)
    """The text that was just announced."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("announcer")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAccessibleDescription("Announces changes of the assistant's state")
        self.setAccessibleName("Status")
        self.last_announcement = ""

    def announce(self, text: str, assertive: bool = False) -> None:
        """Show ``text`` and have assistive technology read it out.

        Args:
            text: what to show and say.
            assertive: interrupt what the screen reader is saying (for something that
                needs an answer soon or that the user asked to be told: a confirmation
                card, an alarm); polite otherwise.
        """
        if not text or text == self.last_announcement:
            return
        self.last_announcement = text
        self.setText(text)
        self.setAccessibleName(text)
        event = QAccessibleAnnouncementEvent(self, text)
        politeness = QAccessible.AnnouncementPoliteness
        event.setPoliteness(politeness.Assertive if assertive else politeness.Polite)
        QAccessible.updateAccessibility(event)
        QAccessible.updateAccessibility(QAccessibleEvent(self, QAccessible.Event.NameChanged))
        self.sig_announced.emit(text)
