"""Edit every setting; invalid values are refused with the reason shown next to the field.

The form is generated from ``core.setting_specs.SETTING_SPECS``, so every field has an editor
and the dialog validates exactly as the core does (plus a check that the push-to-talk key
is one Qt knows).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.errors import AgentError
from desktop_agent.core.setting_specs import SETTING_SPECS, SettingSpec
from desktop_agent.core.settings import Settings, check_values
from desktop_agent.gui.folder_list import FolderListEditor
from desktop_agent.gui.mcp_settings import McpSection
from desktop_agent.gui.server_test import ServerTestRow
from desktop_agent.gui.shortcut_sheet import shortcut_sheet
from desktop_agent.runtime.view_api import SettingsChoices

SECTION_TITLES: Final = {
    "audio": "Audio", "models": "Models", "voice": "Voice", "interaction": "Interaction",
    "barge_in": "Interrupting", "endpointing": "End of turn", "privacy": "Privacy",
    "ui": "Appearance", "knowledge": "Your documents", "llm": "Language model server",
    "asr": "Speech recognition server", "tts": "Voice server",
    "shortcuts": "Shortcuts", "desktop": "Desktop",
}  # fmt: skip
MODE_LABELS: Final = {"push_to_talk": "Push-to-talk", "hands_free": "Hands-free",
                      "wyoming": "Wyoming server",
                      "local": "On this computer", "server": "On a server",
                      "checkable": "Only checkable questions", "on": "Every answer",
                      "off": "Off"}
LINE_PLACEHOLDERS: Final = {"key": "e.g. Space, F8", "url": "http://127.0.0.1:8080/v1",
                            "text": "The server's own", "env": "e.g. LLM_API_KEY (none)",
                            "shortcut": "e.g. Ctrl+Alt+Space, F9 (empty: none)",
                            "speech_uri": "tcp://192.168.1.20:10300"}


def key_from_name(name: str) -> int | None:
    """The Qt key code of a key name such as 'Space' or 'F8', or None if Qt knows no such key."""
    seq = QKeySequence.fromString(name, QKeySequence.SequenceFormat.PortableText)
    if seq.count() != 1:
        return None
    combo = seq[0]
    if combo.keyboardModifiers() != Qt.KeyboardModifier.NoModifier:
        return None
    key = combo.key()
    return None if key == Qt.Key.Key_unknown else int(key.value)


class SettingsDialog(QDialog):
    """Modal dialog over the main window; ``settings`` holds the result after Save.

    Runs on: GUI thread.
    """

    def __init__(self, settings: Settings, choices: SettingsChoices | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setAttribute(Qt.WidgetAttribute.WA_WindowPropagation)  # inherit font and palette
        self.setAccessibleName("Settings")
        self.settings = settings
        self.original = settings
        self._choices = choices or SettingsChoices()
        self._editors: dict[str, QWidget] = {}
        self._errors: dict[str, QLabel] = {}
        self.reasons: dict[str, str] = {}

        body = QWidget()
        grid = QGridLayout(body)
        sections: dict[str, QFormLayout] = {}
        cell = 0  # grid cells used so far, two per row
        for spec in SETTING_SPECS:
            if spec.section not in sections:
                box = QGroupBox(SECTION_TITLES.get(spec.section, spec.section))
                sections[spec.section] = QFormLayout(box)
                # long paths and the bindings sheet: the full width
                span = 2 if spec.section in ("knowledge", "shortcuts") else 1
                if span == 2 and cell % 2:
                    cell += 1  # a full-width box starts a row
                grid.addWidget(box, cell // 2, cell % 2, 1, span)
                cell += span
            self._add_row(sections[spec.section], spec)
        self.shortcut_sheet = QPlainTextEdit()
        self._add_sheet(sections.get("shortcuts"))
        self.server_tests: dict[str, ServerTestRow] = {}
        self._add_server_tests(sections)
        self.mcp: McpSection | None = None
        if self._choices.mcp_servers is not None:  # your own tools: the full width, last
            self.mcp = McpSection(self._choices)
            grid.addWidget(self.mcp, (cell + 1) // 2, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        scroll = QScrollArea()
        scroll.setWidget(body)
        scroll.setWidgetResizable(True)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setAccessibleName("Save settings")
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setAccessibleName("Cancel")
        defaults = self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        defaults.setAccessibleName("Restore default settings")
        defaults.clicked.connect(self._on_defaults_clicked)
        self.buttons.accepted.connect(self._on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        self.summary = QLabel()
        self.summary.setProperty("role", "inline_error")
        self.summary.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.buttons)
        self.resize(900, 640)
        self.load(settings)

    # -- building -------------------------------------------------------------------------
    def _add_server_tests(self, sections: dict[str, QFormLayout]) -> None:
        """A "Test" row under each server's settings: the language model's and the two
        speech servers' (where the composition root gave a check)."""
        tester = self._choices.test_server
        if tester is None:
            return
        for section in ("llm", "asr", "tts"):
            if section not in sections:
                continue
            row = ServerTestRow(section, SECTION_TITLES[section].lower(),
                                lambda s=section: self._section_values(s), tester)
            sections[section].addRow("Test:", row)
            self.server_tests[section] = row

    def _section_values(self, section: str) -> dict[str, Any]:
        return {spec.name: self.value(spec.key) for spec in SETTING_SPECS
                if spec.section == section}

    def _add_sheet(self, form: QFormLayout | None) -> None:
        """Every shortcut, and each desktop's binding of ``ptt``: read-only text that the
        keyboard reaches (Tab, then the arrows) and a screen reader reads line by line."""
        sheet = self.shortcut_sheet
        sheet.setReadOnly(True)
        sheet.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        sheet.setTabChangesFocus(True)
        sheet.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByKeyboard
                                      | Qt.TextInteractionFlag.TextSelectableByMouse)
        sheet.setAccessibleName("All shortcuts and desktop bindings")
        sheet.setAccessibleDescription(
            "The window's keys, the global key, and for each desktop the command to bind; "
            "select and copy a line")
        sheet.setMinimumHeight(220)
        if form is not None:
            label = QLabel("All shortcuts:")
            label.setBuddy(sheet)
            form.addRow(label, sheet)

    def _refresh_sheet(self) -> None:
        parent = self.parentWidget()
        actions = parent.findChildren(QAction) if parent is not None else []
        keys = sorted({(a.text().replace("&", ""),
                        a.shortcut().toString(QKeySequence.SequenceFormat.NativeText))
                       for a in actions if not a.shortcut().isEmpty()})
        talk, global_key, dictate = (str(self.value(k) or "") for k in (
            "interaction.ptt_key", "shortcuts.global_push_to_talk", "shortcuts.global_dictate"))
        text = shortcut_sheet(keys, talk or "Space", global_key, self._choices.command,
                              dictate)
        if text != self.shortcut_sheet.toPlainText():
            self.shortcut_sheet.setPlainText(text)

    def _add_row(self, form: QFormLayout, spec: SettingSpec) -> None:
        editor = self._make_editor(spec)
        editor.setAccessibleName(spec.label)
        editor.setAccessibleDescription(spec.help)
        editor.setToolTip(spec.help)
        self._editors[spec.key] = editor
        error = QLabel()
        error.setProperty("role", "inline_error")
        error.setWordWrap(True)
        error.setAccessibleName(f"{spec.label}: problem")
        error.hide()
        self._errors[spec.key] = error
        cell = QWidget()
        col = QVBoxLayout(cell)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(1)
        if spec.kind == "model":
            row = QHBoxLayout()
            row.addWidget(editor, 1)
            browse = QPushButton("Browse\u2026")
            browse.setAccessibleName(f"Browse for {spec.label.lower()}")
            browse.setAccessibleDescription("Choose a model file or folder on this computer")
            browse.clicked.connect(lambda _=False, key=spec.key: self._browse(key))
            row.addWidget(browse)
            col.addLayout(row)
        else:
            col.addWidget(editor)
        col.addWidget(error)
        label = QLabel(spec.label + ":")
        label.setBuddy(editor)
        form.addRow(label, cell)

    def _make_editor(self, spec: SettingSpec) -> QWidget:
        kind = spec.kind
        if kind == "folders":
            folders = FolderListEditor("knowledge folder")
            folders.sig_changed.connect(self._on_editor_changed)
            return folders
        if kind == "bool":
            box = QCheckBox("On")
            box.toggled.connect(self._on_editor_changed)
            return box
        if kind in ("float", "int"):
            spin: QDoubleSpinBox | QSpinBox
            if kind == "float":
                spin = QDoubleSpinBox()
                spin.setDecimals(2)
            else:
                spin = QSpinBox()
            spin.setRange(spec.minimum or 0, spec.maximum or 0)  # type: ignore[arg-type]
            spin.setSingleStep(spec.step)  # type: ignore[arg-type]
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(self._on_editor_changed)
            return spin
        if kind in LINE_PLACEHOLDERS:
            line = QLineEdit()
            line.setPlaceholderText(LINE_PLACEHOLDERS[kind])
            line.textChanged.connect(self._on_editor_changed)
            return line
        combo = QComboBox()
        if kind == "choice":
            for value in spec.choices:
                combo.addItem(MODE_LABELS.get(value, value), value)
            combo.currentIndexChanged.connect(self._on_editor_changed)
            return combo
        combo.setEditable(True)
        combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        if kind in ("device_in", "device_out"):
            combo.lineEdit().setPlaceholderText("System default")
            devices = (self._choices.input_devices if kind == "device_in"
                       else self._choices.output_devices)
            combo.addItems(["", *devices])
        else:
            combo.addItems(list(self._choices.models_for(spec.name)))
        combo.editTextChanged.connect(self._on_editor_changed)
        return combo

    # -- values ---------------------------------------------------------------------------
    def load(self, settings: Settings) -> None:
        """Show ``settings`` in the editors."""
        for spec in SETTING_SPECS:
            self.set_value(spec.key, settings.get(spec.key))
        self._validate()
        self._refresh_sheet()

    def editor(self, key: str) -> QWidget:
        """The editor widget of the dotted ``key``."""
        return self._editors[key]

    def set_value(self, key: str, value: Any) -> None:
        """Put ``value`` in the editor of ``key`` (validation follows automatically)."""
        w = self._editors[key]
        if isinstance(w, FolderListEditor):
            w.set_folders(value)
        elif isinstance(w, QCheckBox):
            w.setChecked(bool(value))
        elif isinstance(w, QDoubleSpinBox | QSpinBox):
            w.setValue(value)
        elif isinstance(w, QLineEdit):
            w.setText(str(value))
        elif isinstance(w, QComboBox):
            index = w.findData(value) if not w.isEditable() else -1
            if index >= 0:
                w.setCurrentIndex(index)
            else:
                w.setEditText(str(value))

    def value(self, key: str) -> Any:
        """The value the editor of ``key`` holds now."""
        w = self._editors[key]
        if isinstance(w, FolderListEditor):
            return w.folders()
        if isinstance(w, QCheckBox):
            return w.isChecked()
        if isinstance(w, QDoubleSpinBox | QSpinBox):
            return w.value()
        if isinstance(w, QLineEdit):
            return w.text()
        assert isinstance(w, QComboBox)
        return w.currentText() if w.isEditable() else w.currentData()

    def error_text(self, key: str) -> str:
        """The inline reason shown under ``key`` ('' when it is valid)."""
        return self.reasons.get(key, "")

    def _validate(self) -> bool:
        values = {spec.key: self.value(spec.key) for spec in SETTING_SPECS}
        result, reasons = check_values(values)
        key_name = str(values["interaction.ptt_key"]).strip()
        if "interaction.ptt_key" not in reasons and key_from_name(key_name) is None:
            reasons["interaction.ptt_key"] = (
                f"interaction.ptt_key: Qt knows no key called {key_name!r}"
            )
            result = None
        self.reasons = reasons
        for key, label in self._errors.items():
            reason = reasons.get(key, "")
            label.setText(reason)
            label.setVisible(bool(reason))
            self._editors[key].setAccessibleDescription(
                (f"Invalid: {reason}. " if reason else "") + _spec_help(key)
            )
        self.save_button.setEnabled(result is not None)
        self.summary.setText(
            f"{len(reasons)} setting(s) need fixing before you can save." if reasons else ""
        )
        if result is not None:
            self.settings = result
        return result is not None

    # -- slots ----------------------------------------------------------------------------
    def _on_editor_changed(self, *_: object) -> None:
        self._validate()
        self._refresh_sheet()
        for row in getattr(self, "server_tests", {}).values():
            row.refresh()

    def _on_defaults_clicked(self) -> None:
        self.load(Settings())

    def _on_buttons_accepted(self) -> None:
        if not self._validate():
            return
        if self.mcp is not None:  # written first: the settings' save keeps the [mcp] table
            try:
                self.mcp.save()
            except AgentError as err:
                self.summary.setText(f"Your own tools were not saved: {err.message} {err.fix}")
                return
        self.accept()

    def _browse(self, key: str) -> None:
        spec_name = key.split(".", 1)[1]
        if spec_name == "asr":  # faster-whisper models are folders
            path = QFileDialog.getExistingDirectory(self, "Choose a Whisper model folder")
        else:
            path, _ = QFileDialog.getOpenFileName(self, "Choose a model file")
        if path:
            self.set_value(key, str(Path(path).resolve()))


def _spec_help(key: str) -> str:
    return next(spec.help for spec in SETTING_SPECS if spec.key == key)
