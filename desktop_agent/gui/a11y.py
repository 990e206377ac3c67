"""Accessibility helpers: a live-region announcer and one-call naming of controls.

What a screen reader gets from Qt 6.11 on Linux (AT-SPI), and why these helpers exist
(tests/a11y reads it all back from the bus):

* Qt widgets have no live regions (no ``aria-live``: ``QAccessible::Attribute`` has no such
  key), and a QLabel has no AT-SPI Text interface, so a label's new text reaches assistive
  technology only as a name change, and only while the label has no accessible name of its
  own. Something the user must hear about is therefore *announced*:
  ``QAccessibleAnnouncementEvent`` (Qt 6.8+) becomes AT-SPI ``object:announcement`` with
  the politeness as detail1 (1 polite, 2 assertive).
* A QComboBox's AT-SPI name is its current value on Linux (its accessible name is not
  used); its label comes from the buddy label's ``labelled-by`` relation, so that label
  must say what the combo box is for.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent
from PySide6.QtWidgets import QLabel, QWidget


def name(widget: QWidget, accessible_name: str, description: str = "") -> QWidget:
    """Give ``widget`` an accessible name and description (and a matching tooltip)."""
    widget.setAccessibleName(accessible_name)
    if description:
        widget.setAccessibleDescription(description)
        if not widget.toolTip():
            widget.setToolTip(description)
    return widget


def announce(source: QWidget, text: str, assertive: bool = False) -> None:
    """Have assistive technology say ``text``, as coming from ``source``.

    Args:
        source: the widget the announcement belongs to (a screen reader may present it
            with that object's context; tests find it by its source).
        text: what to say.
        assertive: interrupt what the screen reader is saying; polite (queued) otherwise.
    """
    event = QAccessibleAnnouncementEvent(source, text)
    politeness = QAccessible.AnnouncementPoliteness
    event.setPoliteness(politeness.Assertive if assertive else politeness.Polite)
    QAccessible.updateAccessibility(event)


def last_words(text: str, count: int) -> str:
    """The last ``count`` words of ``text``, with a leading ellipsis when some were cut."""
    words = text.split()
    tail = " ".join(words[-count:])
    return ("\u2026" + tail) if len(words) > count else tail


class Announcer(QLabel):
    """A visible status line that screen readers announce when it changes.

    Stands in for an ARIA live region (Qt widgets have none): each ``announce`` updates
    the text and the accessible name (Qt sends the NameChanged, for assistive tech that
    only watches names) and sends an announcement event (Qt 6.8+).

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
        announce(self, text, assertive)
        self.sig_announced.emit(text)
