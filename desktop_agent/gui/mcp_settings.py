"""Settings' "Your own tools (MCP)" section: each server, where it stands, and our choices.

Per server: its state (starting, running with N tools, restarting, failed with the reason
and what to do), "Enabled" and "Trusted", and per tool "Ask first" / "Always" / "Never"
("Always" is not offered for a destructive or unannotated tool). "Import from..." adds the
servers of a Claude Desktop, Cursor or LM Studio file; a warning shows above about ten
enabled tools. What the section reads and writes is the composition root's
(``SettingsChoices.mcp_servers``, ``save_mcp``, ``import_mcp``): the GUI knows callables.
The states are asked again every second while the dialog is open; the choices are written
on Save and take effect when the app starts again.

Runs on: GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeVar

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.errors import AgentError
from desktop_agent.core.mcp.tools import too_many
from desktop_agent.gui.a11y import announce
from desktop_agent.runtime.view_api import McpChoice, McpServerRow, McpToolRow, SettingsChoices

REFRESH_MS: Final = 1000
ALLOW_LABELS: Final = (("ask", "Ask first"), ("always", "Always"), ("never", "Never"))
RUNS_AS: Final = {"read": "runs at once", "write": "asks first", "always": "runs unasked",
                  "never": "hidden"}
IMPORT_PLACES: Final = ("~/.config/Claude/claude_desktop_config.json", "~/.cursor/mcp.json",
                        "~/.lmstudio/mcp.json")


W = TypeVar("W", bound=QWidget)


def _named(widget: W, name: str, description: str) -> W:
    widget.setAccessibleName(name)
    widget.setAccessibleDescription(description)
    widget.setToolTip(description)
    return widget


def _text(label: QLabel) -> QLabel:
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ServerBox(QGroupBox):
    """One server: its state, its two switches, and each tool's allow."""

    def __init__(self, row: McpServerRow, changed: Callable[[], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(row.name, parent)
        self.name = row.name
        self._changed = changed
        self.status = _text(QLabel())
        self.status.setAccessibleName(f"{row.name} server status")
        where = _text(QLabel(row.where))
        where.setAccessibleName(f"{row.name} server command")
        self.enabled = _named(QCheckBox("Enabled"), f"Start the {row.name} server",
                              "Off: the server is not started and its tools are not offered")
        self.trusted = _named(QCheckBox("Trusted"), f"Trust the {row.name} server",
                              "Trusted: its read-only tools run at once. Not trusted: every "
                              "tool is read back and runs only after your yes")
        self.enabled.setChecked(row.enabled)
        self.trusted.setChecked(row.trusted)
        self.enabled.toggled.connect(lambda _on: self._changed())
        self.trusted.toggled.connect(lambda _on: self._changed())
        switches = QHBoxLayout()
        switches.addWidget(self.enabled)
        switches.addWidget(self.trusted)
        switches.addStretch(1)
        self.tools_grid = QGridLayout()  # the tool's words get the width, the choice its own
        self.tools_grid.setColumnStretch(0, 1)
        self.allow: dict[str, QComboBox] = {}
        self.read_allow: dict[str, str] = {}
        """Each listed tool's allow as the settings had it when its row was first shown."""
        self._tool_names: tuple[str, ...] = ()
        self.none_yet = _text(QLabel("No tools listed yet: they show once it has run."))
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(where)
        layout.addLayout(switches)
        layout.addWidget(self.none_yet)
        layout.addLayout(self.tools_grid)
        self.show_row(row)

    def show_row(self, row: McpServerRow) -> None:
        """Show ``row``'s state; (re)build the tool rows when the listed tools changed,
        keeping what was chosen for each tool."""
        if self.status.text() != row.status_text:
            self.status.setText(row.status_text)
            self.status.setAccessibleDescription(row.status_text)
        names = tuple(t.name for t in row.tools)
        if names == self._tool_names:
            return
        chosen = {n: str(c.currentData()) for n, c in self.allow.items()}
        while (item := self.tools_grid.takeAt(0)) is not None:
            if (widget := item.widget()) is not None:
                widget.deleteLater()
        self.allow = {}
        for i, tool in enumerate(row.tools):
            combo = self._allow_combo(tool, chosen.get(tool.name, tool.allow))
            self.read_allow.setdefault(tool.name, str(combo.currentData()))
            label = QLabel(f"{tool.label} ({RUNS_AS.get(tool.runs_as, tool.runs_as)}; "
                           f"{tool.annotations}):")
            label.setWordWrap(True)
            label.setBuddy(combo)
            self.tools_grid.addWidget(label, i, 0)
            self.tools_grid.addWidget(combo, i, 1)
            self.allow[tool.name] = combo
        self._tool_names = names
        self.none_yet.setVisible(not names)

    def _allow_combo(self, tool: McpToolRow, value: str) -> QComboBox:
        combo = QComboBox()
        for word, text in ALLOW_LABELS:
            combo.addItem(text, word)
        model = combo.model()
        if not tool.may_always and isinstance(model, QStandardItemModel):
            model.item(1).setEnabled(False)  # never "always" for a destructive tool
            model.item(1).setToolTip("Not for a destructive or unannotated tool")
        if value == "always" and not tool.may_always:
            value = "ask"
        combo.setCurrentIndex(max(0, combo.findData(value)))
        why = ("" if tool.may_always else
               " \"Always\" is not offered: the tool is destructive or does not say it is not.")
        _named(combo, f"{tool.full_name}: allow",
               f"Ask first, always run without asking, or never offer {tool.label}.{why}")
        combo.currentIndexChanged.connect(lambda _i: self._changed())
        return combo

    def choice(self) -> McpChoice:
        """(enabled, trusted, allow per listed tool) as the controls hold them now."""
        return (self.enabled.isChecked(), self.trusted.isChecked(),
                {n: str(c.currentData()) for n, c in self.allow.items()})

    def enabled_tools(self) -> int:
        """Tools this server would offer (enabled, not "never")."""
        if not self.enabled.isChecked():
            return 0
        return sum(1 for c in self.allow.values() if c.currentData() != "never")


class McpSection(QGroupBox):
    """The whole section; ``save`` writes what changed (called by the dialog's Save)."""

    def __init__(self, choices: SettingsChoices, parent: QWidget | None = None) -> None:
        super().__init__("Your own tools (MCP)", parent)
        assert choices.mcp_servers is not None
        self._servers = choices.mcp_servers
        self._save, self._import = choices.save_mcp, choices.import_mcp
        self.boxes: dict[str, ServerBox] = {}
        self._saved: dict[str, McpChoice] = {}
        intro = _text(QLabel("Servers from mcp.json, the file other assistants use. Changes "
                             "take effect when the app starts again."))
        self.warning = _text(QLabel())
        self.warning.setProperty("role", "inline_error")
        self.warning.setAccessibleName("Your own tools: warning")
        self.warning.hide()
        self.empty = _text(QLabel("No servers of your own yet: import them from another "
                                  "assistant, or write mcp.json (see docs/mcp.md)."))
        self.import_button = _named(
            QPushButton("Import from\u2026"), "Import servers from another assistant",
            "Add the servers of a Claude Desktop, Cursor or LM Studio file; imported "
            "servers are not trusted")
        self.import_button.clicked.connect(self._on_import_button_clicked)
        self.import_button.setEnabled(self._import is not None)
        self.result = _text(QLabel())
        self.result.setAccessibleName("Your own tools: result")
        self.pick_file: Callable[[], str] = self._pick_file
        """Asks for the file to import ('' when cancelled); a test replaces it."""
        self._list = QVBoxLayout()
        row = QHBoxLayout()
        row.addWidget(self.import_button)
        row.addWidget(self.result, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.warning)
        layout.addWidget(self.empty)
        layout.addLayout(self._list)
        layout.addLayout(row)
        self.refresh()
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.timer.start()

    def refresh(self) -> None:
        """Ask for the servers again: new states, new tools, new servers after an import."""
        rows = self._servers()
        for row in rows:
            box = self.boxes.get(row.name)
            if box is None:
                box = self.boxes[row.name] = ServerBox(row, self._update_warning)
                self._list.addWidget(box)
                self._saved.setdefault(row.name, box.choice())
            else:
                box.show_row(row)
        self.empty.setVisible(not rows)
        self._update_warning()

    def changes(self) -> dict[str, McpChoice]:
        """The servers whose choices differ from what was read or last saved.

        A tool listed after the page was built counts as read with the allow it was shown
        with: a server whose tools merely appeared has not changed.
        """
        out = {}
        for name, box in self.boxes.items():
            saved = self._saved.get(name)
            now = box.choice()
            if saved is not None:
                saved = (saved[0], saved[1], {**box.read_allow, **saved[2]})
            if now != saved:
                out[name] = now
        return out

    def save(self) -> str:
        """Write what changed ('' when nothing did). Raises AgentError."""
        changed = self.changes()
        if not changed or self._save is None:
            return ""
        said = self._save(changed)
        self._saved.update(changed)
        self._said(said)
        return said

    def _said(self, text: str) -> None:
        """Show ``text`` as the result, as its description too (a named label's text is
        not read), and announce it."""
        self.result.setText(text)
        self.result.setAccessibleDescription(text)
        announce(self.result, text)

    def _update_warning(self) -> None:
        text = too_many(sum(b.enabled_tools() for b in self.boxes.values()))
        if text != self.warning.text():
            self.warning.setText(text)
            self.warning.setAccessibleDescription(text)
            self.warning.setVisible(bool(text))
            if text:
                announce(self.warning, text)

    def _on_import_button_clicked(self) -> None:
        path = self.pick_file()
        if not path or self._import is None:
            return
        try:
            said = self._import(path)
        except AgentError as err:
            said = f"{err.message} {err.fix}".strip()
        self._said(said)
        self.refresh()

    def _pick_file(self) -> str:
        start = next((str(Path(p).expanduser()) for p in IMPORT_PLACES
                      if Path(p).expanduser().exists()), str(Path.home()))
        path, _ = QFileDialog.getOpenFileName(self, "Import servers from", start,
                                              "MCP config (*.json);;All files (*)")
        return path
