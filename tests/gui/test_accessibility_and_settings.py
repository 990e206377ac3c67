"""Keyboard-only use, accessible names, the settings dialog, and the screenshot script."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from desktop_agent.adapters.store import settings_store
from desktop_agent.core.setting_specs import SETTING_SPECS
from desktop_agent.core.settings import Settings
from desktop_agent.devtools.gui_screenshots import take_screenshots
from desktop_agent.gui.main_window import MainWindow
from desktop_agent.runtime.view_api import ErrorNotice

MAIN_TAB_ORDER = [
    "Push to talk", "Interaction mode", "Conversation", "Actions done", "Timers and reminders",
    "Heard text", "Transition log", "Latency history",
]


def _tab_cycle(window: MainWindow, start: QWidget) -> list[str]:
    start.setFocus(Qt.FocusReason.TabFocusReason)
    names = []
    for _ in range(30):
        focused = window.focusWidget()
        assert focused is not None
        name = focused.accessibleName()
        if names and name == names[0]:
            break
        names.append(name)
        window.focusNextChild()
    return names


def test_tab_reaches_every_control_in_order(window) -> None:
    assert _tab_cycle(window, window.ptt_button) == MAIN_TAB_ORDER


def test_tab_reaches_the_error_banner_first(window, vm) -> None:
    vm.sig_error.emit(ErrorNotice("llm_error", "The model stopped.", "Try again."))
    names = _tab_cycle(window, window.banner.dismiss_button)
    assert names == ["Dismiss error", *MAIN_TAB_ORDER]


def test_every_focusable_control_has_name_and_description(window, vm) -> None:
    vm.sig_error.emit(ErrorNotice("llm_error", "The model stopped.", "Try again."))
    focusable = [w for w in window.findChildren(QWidget)
                 if w.isVisible() and w.focusPolicy() & Qt.FocusPolicy.TabFocus
                 and w.isEnabled() and w.parent() is not None
                 and type(w).__name__ not in ("QScrollBar", "QSplitterHandle")]
    assert len(focusable) >= len(MAIN_TAB_ORDER) + 1
    for w in focusable:
        assert w.accessibleName(), w
        assert w.accessibleDescription(), w.accessibleName()


def test_keyboard_operates_ptt_button(window, vm, qtbot) -> None:
    window.ptt_button.setFocus()
    qtbot.keyClick(window.ptt_button, Qt.Key.Key_Return)  # Enter activates it too
    assert vm.names() == ["ptt_press", "ptt_release"]


def test_menus_have_shortcuts(window) -> None:
    for action in (window.action_settings, window.action_quit, window.action_repeat,
                   window.action_rephrase, window.action_contrast, window.action_larger,
                   window.action_smaller):
        assert not action.shortcut().isEmpty(), action.text()


def test_settings_dialog_edits_every_field_refuses_bad_and_saves(window, vm,
                                                                  settings_path) -> None:
    dialog = window.open_settings()
    for spec in SETTING_SPECS:  # one editor per field, named for assistive tech
        assert dialog.editor(spec.key).accessibleName() == spec.label
    dialog.set_value("endpointing.min_silence_s", 3.0)
    assert "must not exceed endpointing.max_silence_s" in dialog.error_text(
        "endpointing.min_silence_s")
    assert not dialog.save_button.isEnabled()
    dialog.set_value("endpointing.min_silence_s", 0.5)
    dialog.set_value("models.llm", "models/mine.gguf")
    assert "absolute path" in dialog.error_text("models.llm")
    dialog.set_value("models.llm", "/opt/models/mine.gguf")
    dialog.set_value("interaction.ptt_key", "NoSuchKey")
    assert "no key called" in dialog.error_text("interaction.ptt_key")
    dialog.set_value("interaction.ptt_key", "F9")
    dialog.set_value("voice.speaking_rate", 1.25)
    dialog.set_value("audio.input_device", "USB Headset")
    dialog.set_value("privacy.transcript_retention_days", 0)
    assert dialog.save_button.isEnabled() and dialog.reasons == {}
    dialog.save_button.click()
    saved = settings_store.load_settings(settings_path)
    assert saved.warnings == ()
    assert saved.settings == window.settings == vm.applied[-1]
    assert saved.settings.models.llm == "/opt/models/mine.gguf"
    assert saved.settings.interaction.ptt_key == "F9"
    assert saved.settings.audio.input_device == "USB Headset"
    assert saved.settings.privacy.transcript_retention_days == 0
    assert "(F9)" in window.ptt_button.text()


def test_settings_cancel_changes_nothing(window, vm, settings_path) -> None:
    dialog = window.open_settings()
    dialog.set_value("voice.speaking_rate", 1.5)
    dialog.reject()
    assert window.settings == Settings()
    assert not settings_path.exists() and vm.applied == []


def test_save_failure_shows_banner(qtbot, vm, tmp_path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    win = MainWindow(vm, Settings(), blocker / "settings.toml",
                     save_settings=settings_store.save_settings)
    qtbot.addWidget(win)
    win.commit_settings(Settings().replace_field("ui.high_contrast", True))
    assert win.banner.notice is not None
    assert win.banner.notice.code == "settings_write_failed"


def test_screenshot_script_writes_pngs(qtbot, tmp_path: Path) -> None:
    paths = take_screenshots(tmp_path)
    assert len(paths) == 14
    for path in paths:
        assert path.stat().st_size > 1000, path
    assert QApplication.instance() is not None
