"""Settings > Shortcuts lists every key and each desktop's binding of `ptt`, with the path of
this install; the keyboard reaches it and a screen reader can read it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from desktop_agent.gui.shortcut_sheet import shortcut_sheet


def test_the_sheet_names_every_key_and_binding_with_the_absolute_path() -> None:
    text = shortcut_sheet([("Settings", "Ctrl+,"), ("Quit", "Ctrl+Q")], "Space",
                          "Ctrl+Alt+Space", "/opt/my apps/desktop-agent")
    assert "Space: hold to talk" in text and "Ctrl+,: Settings" in text
    assert "Ctrl+Alt+Space: tap to talk" in text
    quoted = "'/opt/my apps/desktop-agent'"  # a path with a space is quoted for a shell
    assert f"Command: {quoted} ptt toggle" in text  # GNOME and KDE
    assert f"bindsym --release $mod+t exec {quoted} ptt stop" in text  # sway: a real hold
    assert f"bindr = SUPER, T, exec, {quoted} ptt stop" in text  # Hyprland
    assert 'Mod+T { spawn "/opt/my apps/desktop-agent" "ptt" "toggle"; }' in text  # niri
    assert "No global key is set" in shortcut_sheet([], "F8", "", "/x/desktop-agent")
    assert "dictate toggle | start | stop" in text
    dictating = shortcut_sheet([], "F8", "", "/x/desktop-agent", "Ctrl+Alt+D")
    assert "Ctrl+Alt+D: hold (or tap, then tap again) to dictate" in dictating


def test_settings_shows_the_sheet_for_this_window_and_follows_the_edits(window: Any,
                                                                        qtbot: Any) -> None:
    from desktop_agent.runtime.view_api import SettingsChoices

    window._choices = SettingsChoices(command="/opt/da/bin/desktop-agent")  # as compose gives
    dialog = window.open_settings()
    sheet = dialog.shortcut_sheet
    assert sheet.isReadOnly() and sheet.focusPolicy() != Qt.FocusPolicy.NoFocus
    assert sheet.accessibleName() and sheet.accessibleDescription()
    text = sheet.toPlainText()
    assert "/opt/da/bin/desktop-agent ptt toggle" in text
    shortcuts = [a.shortcut().toString() for a in window.findChildren(type(window.action_quit))
                 if not a.shortcut().isEmpty()]
    assert shortcuts and all(keys in text for keys in shortcuts)  # every window key listed
    dialog.set_value("shortcuts.global_push_to_talk", "Super+F9")
    qtbot.waitUntil(lambda: "Super+F9: tap to talk" in sheet.toPlainText(), timeout=5000)
    dialog.set_value("shortcuts.global_dictate", "Super+F10")
    qtbot.waitUntil(lambda: "Super+F10: hold (or tap, then tap again) to dictate"
                    in sheet.toPlainText(), timeout=5000)
    dialog.reject()
