"""A "Test" button for a server in Settings (the language model's, speech recognition's,
the voice's): one round trip, the answer beside it.

The check runs on a thread of its own (a server that does not answer takes up to its
timeout) and puts its answer in a queue the row polls on its own thread: the thread never
touches the row, which may be gone with its dialog before the server answers. The result
is plain text a screen reader reads when it changes. What the check does is the composition root's
(``SettingsChoices.test_server``): the GUI only knows it is a callable.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_agent.core.errors import AgentError
from desktop_agent.core.speech_server.address import is_local_address, parse_address
from desktop_agent.gui.a11y import announce

CLEAR_TEXT_WARNING = ("This address is outside your local network, and Wyoming has no "
                      "encryption or password: what you say and hear would cross it in clear "
                      "text. Use a server on your own network, or a tunnel (SSH, WireGuard).")

ServerTester = Callable[[str, dict[str, Any]], str]
"""(section 'llm', 'asr' or 'tts', its values now) -> what the server said; raises
AgentError."""


class ServerTestRow(QWidget):
    """The button and its result, for the server of ``section``.

    Args:
        section: 'llm', 'asr' or 'tts'.
        title: How the server is named to the user ('speech recognition server').
        values: The section's values as the editors hold them now.
        tester: The check.
    """

    POLL_MS = 50
    """How often a pending check's queue is looked at."""

    def __init__(self, section: str, title: str, values: Callable[[], dict[str, Any]],
                 tester: ServerTester, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.section, self._values, self._tester = section, values, tester
        self.button = QPushButton("Test")
        self.button.setAccessibleName(f"Test the {title}")
        self.button.setAccessibleDescription(
            "Asks the server for one short answer, as the settings hold it now")
        self.result = QLabel("Not tested yet.")
        self.result.setWordWrap(True)
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setAccessibleName(f"{title} test result")
        self.warning = QLabel(CLEAR_TEXT_WARNING)
        self.warning.setWordWrap(True)
        self.warning.setProperty("role", "inline_error")
        self.warning.setAccessibleName(f"{title} warning")
        self.warning.setVisible(False)
        row = QHBoxLayout()
        row.addWidget(self.button)
        row.addWidget(self.result, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.warning)
        self.button.clicked.connect(self.start)
        self._answers: queue.SimpleQueue[tuple[str, bool]] = queue.SimpleQueue()
        self._poll = QTimer(self)
        self._poll.setInterval(self.POLL_MS)
        self._poll.timeout.connect(self._take)

    def refresh(self) -> None:
        """Show the clear-text warning while a Wyoming backend points off the local network."""
        values = self._values()
        address = parse_address(str(values.get("uri", "")))
        off_lan = (values.get("backend") == "wyoming" and address is not None
                   and not is_local_address(address))
        self.warning.setVisible(off_lan)

    def start(self) -> None:
        """Run the check now (the button is off until it answers)."""
        values = self._values()
        self.button.setEnabled(False)
        where = values.get("uri") or values.get("server_url") or ""
        self.result.setText(f"Testing {where}\u2026")
        threading.Thread(target=_check, args=(self._tester, self.section, values,
                                              self._answers),
                         daemon=True, name=f"test-{self.section}-server").start()
        self._poll.start()

    def _take(self) -> None:
        try:
            text, ok = self._answers.get_nowait()
        except queue.Empty:
            return
        self._poll.stop()
        self._show(text, ok)

    def _show(self, text: str, ok: bool) -> None:
        self.result.setText(text)
        self.result.setProperty("role", "" if ok else "inline_error")
        self.button.setEnabled(True)
        announce(self.result, text)


def _check(tester: ServerTester, section: str, values: dict[str, Any],
           answers: queue.SimpleQueue[tuple[str, bool]]) -> None:
    """Runs on: the check's thread (it holds no widget)."""
    try:
        answers.put((f"OK: {tester(section, values)}", True))
    except AgentError as exc:
        answers.put((exc.describe(), False))
    except Exception as exc:  # a check must report, never take the dialog down
        answers.put((f"The test failed: {exc}", False))
