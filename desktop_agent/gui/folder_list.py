"""A list of folders with Add and Remove buttons (the knowledge folders in Settings).

Every control has an accessible name; Remove is enabled only while a folder is selected,
and Delete on the list removes the selected folder too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.gui.a11y import name


class _FolderList(QListWidget):
    """The list itself: Delete removes the selected folder."""

    sig_delete_pressed = Signal()
    """The user pressed Delete (or Backspace) on the list."""

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.sig_delete_pressed.emit()
            return
        super().keyPressEvent(event)


class FolderListEditor(QWidget):
    """Edit a list of absolute folder paths.

    Runs on: GUI thread.
    """

    sig_changed = Signal()
    """The list of folders changed (added, removed, or replaced by ``set_folders``)."""

    def __init__(self, what: str = "folder", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choose_folder: Callable[[], str] = self._ask_for_folder
        """Returns the folder the user chose ('' when cancelled); tests replace it."""
        self.list = name(_FolderList(), f"{what.capitalize()}s",
                         f"The {what}s; select one and press Remove or Delete to remove it")
        self.list.setSelectionMode(QListWidget.SelectionMode.SingleSelection)
        self.list.setMinimumHeight(70)
        self.add_button = name(QPushButton("Add\u2026"), f"Add {what}",
                               f"Choose a {what} to add to the list")
        self.remove_button = name(QPushButton("Remove"), f"Remove selected {what}",
                                  f"Remove the selected {what} from the list")
        self.remove_button.setEnabled(False)
        self.add_button.clicked.connect(self._on_add_button_clicked)
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        self.list.sig_delete_pressed.connect(self._on_remove_button_clicked)
        self.list.itemSelectionChanged.connect(self._on_list_selection_changed)
        buttons = QVBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.list, 1)
        row.addLayout(buttons)
        self.setFocusProxy(self.list)

    def folders(self) -> tuple[str, ...]:
        """The folders in the list, in order."""
        return tuple(self.list.item(i).text() for i in range(self.list.count()))

    def set_folders(self, folders: Sequence[str]) -> None:
        """Replace the list with ``folders``."""
        if tuple(folders) == self.folders():
            return
        self.list.clear()
        for folder in folders:
            self._append(folder)
        self.sig_changed.emit()

    def add_folder(self, folder: str) -> bool:
        """Add ``folder`` (made absolute) unless it is listed already; True when added."""
        folder = str(Path(folder).expanduser().resolve())
        if folder in self.folders():
            return False
        self._append(folder)
        self.list.setCurrentRow(self.list.count() - 1)
        self.sig_changed.emit()
        return True

    def _append(self, folder: str) -> None:
        item = QListWidgetItem(folder)
        item.setToolTip(folder)  # a long path is cut in the list
        self.list.addItem(item)

    def _ask_for_folder(self) -> str:
        return QFileDialog.getExistingDirectory(self, "Choose a folder of your documents")

    def _on_add_button_clicked(self) -> None:
        folder = self.choose_folder()
        if folder:
            self.add_folder(folder)

    def _on_remove_button_clicked(self) -> None:
        row = self.list.currentRow()
        if row < 0 or not self.list.currentItem().isSelected():
            return
        self.list.takeItem(row)
        self.sig_changed.emit()
        self._on_list_selection_changed()

    def _on_list_selection_changed(self) -> None:
        self.remove_button.setEnabled(bool(self.list.selectedItems()))
