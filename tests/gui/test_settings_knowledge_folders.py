"""Settings: the knowledge folder list (Add / Remove, accessible names, saved to the file)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from desktop_agent.adapters.store import settings_store
from desktop_agent.core.settings import Settings
from desktop_agent.gui.folder_list import FolderListEditor
from desktop_agent.gui.settings_dialog import SettingsDialog


def _editor(dialog: SettingsDialog) -> FolderListEditor:
    editor = dialog.editor("knowledge.folders")
    assert isinstance(editor, FolderListEditor)
    return editor


def test_every_control_is_named(qtbot) -> None:
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    editor = _editor(dialog)
    assert editor.accessibleName() == "Knowledge folders"
    assert editor.list.accessibleName() == "Knowledge folders"
    assert editor.add_button.accessibleName() == "Add knowledge folder"
    assert editor.remove_button.accessibleName() == "Remove selected knowledge folder"
    for control in (editor, editor.list, editor.add_button, editor.remove_button):
        assert control.accessibleDescription()


def test_add_and_remove_folders_then_save(window, vm, settings_path, tmp_path: Path,
                                          qtbot) -> None:
    manuals, club = tmp_path / "manuals", tmp_path / "club"
    manuals.mkdir()
    club.mkdir()
    dialog = window.open_settings()
    editor = _editor(dialog)
    assert editor.folders() == () and not editor.remove_button.isEnabled()
    chosen = iter([str(manuals), str(club), str(manuals), ""])
    editor.choose_folder = lambda: next(chosen)
    with qtbot.waitSignal(editor.sig_changed):
        qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)
    with qtbot.assertNotEmitted(editor.sig_changed):
        qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)  # already listed
        qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)  # dialog cancelled
    assert editor.folders() == (str(manuals.resolve()), str(club.resolve()))
    assert dialog.value("knowledge.folders") == editor.folders()
    assert dialog.settings.knowledge_folders == editor.folders()  # validated live
    editor.list.setCurrentRow(0)
    assert editor.remove_button.isEnabled()
    qtbot.mouseClick(editor.remove_button, Qt.MouseButton.LeftButton)
    assert editor.folders() == (str(club.resolve()),)
    editor.list.setCurrentRow(0)
    editor.list.setFocus()
    qtbot.keyClick(editor.list, Qt.Key.Key_Delete)  # the keyboard removes too
    assert editor.folders() == ()
    editor.choose_folder = lambda: str(club)
    qtbot.mouseClick(editor.add_button, Qt.MouseButton.LeftButton)
    assert dialog.save_button.isEnabled()
    dialog.save_button.click()
    saved = settings_store.load_settings(settings_path)
    assert saved.warnings == ()
    assert saved.settings.knowledge_folders == (str(club.resolve()),)
    assert window.settings == saved.settings == vm.applied[-1]


def test_loading_settings_shows_their_folders_and_defaults_clear_them(qtbot) -> None:
    settings = Settings().replace_field("knowledge.folders", ["/srv/docs", "/home/a/notes"])
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    assert _editor(dialog).folders() == ("/srv/docs", "/home/a/notes")
    assert _editor(dialog).list.item(1).toolTip() == "/home/a/notes"  # a long path in full
    assert dialog.settings == settings
    dialog.buttons.button(dialog.buttons.StandardButton.RestoreDefaults).click()
    assert _editor(dialog).folders() == () and dialog.settings == Settings()
