"""Settings dialog: the language model server section (editors, inline reasons, layout)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QGroupBox, QLineEdit

from desktop_agent.core.settings import Settings
from desktop_agent.gui.settings_dialog import SettingsDialog


def test_the_server_fields_are_named_line_edits_and_a_backend_choice(qtbot) -> None:
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    backend = dialog.editor("llm.backend")
    assert isinstance(backend, QComboBox)
    assert [backend.itemText(i) for i in range(backend.count())] == [
        "On this computer", "On a server"]
    for key, name in (("llm.server_url", "LLM server URL"),
                      ("llm.server_model", "Server model name"),
                      ("llm.api_key_env", "API key variable")):
        editor = dialog.editor(key)
        assert isinstance(editor, QLineEdit) and editor.accessibleName() == name
        assert editor.accessibleDescription() and editor.placeholderText()
    assert dialog.value("llm.server_url") == "http://127.0.0.1:8080/v1"


def test_a_bad_url_is_refused_inline_and_blocks_save(qtbot) -> None:
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.set_value("llm.backend", "server")
    dialog.set_value("llm.server_url", "gpu.lan:8000")
    assert "http://" in dialog.error_text("llm.server_url")
    assert not dialog.save_button.isEnabled()
    dialog.set_value("llm.server_url", "http://gpu.lan:8000/v1")
    dialog.set_value("llm.api_key_env", "VLLM_API_KEY")
    assert dialog.error_text("llm.server_url") == "" and dialog.save_button.isEnabled()
    assert dialog.settings.llm.backend == "server"
    assert dialog.settings.llm.server_url == "http://gpu.lan:8000/v1"
    assert dialog.settings.llm.api_key_env == "VLLM_API_KEY"


def test_the_documents_box_keeps_a_full_row_of_its_own(qtbot) -> None:
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.show()
    boxes = {b.title(): b for b in dialog.findChildren(QGroupBox)}
    docs, server = boxes["Your documents"], boxes["Language model server"]
    assert not docs.geometry().intersects(server.geometry())
    assert docs.width() > server.width() * 1.5  # it spans both columns
