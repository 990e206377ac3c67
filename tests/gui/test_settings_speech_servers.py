"""Settings' speech servers: a "Test" button each, what it sends and how it answers.

The check itself is the composition root's (a real one against real servers is in
tests/adapters/speech_server/test_wyoming_real.py); here a stand-in records what the
editors held and answers, or fails with a typed error.
"""

from __future__ import annotations

import threading
from typing import Any

from desktop_agent.core.errors import TtsError
from desktop_agent.core.settings import Settings
from desktop_agent.gui.settings_dialog import SettingsDialog
from desktop_agent.runtime.view_api import SettingsChoices


def test_no_tester_no_buttons(qtbot: Any) -> None:
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    assert dialog.server_tests == {}


def test_each_server_is_tested_with_what_the_editors_hold(qtbot: Any) -> None:
    asked: list[tuple[str, dict[str, Any], str]] = []
    release = threading.Event()

    def tester(section: str, values: dict[str, Any]) -> str:
        asked.append((section, values, threading.current_thread().name))
        release.wait(10)  # the dialog stays usable while a server takes its time
        if section == "tts":
            raise TtsError("speech_server_no_voice", "No such voice.", "Pick another.")
        return "models tiny.en; Describe 3 ms"

    dialog = SettingsDialog(Settings(), SettingsChoices(test_server=tester))
    qtbot.addWidget(dialog)
    assert set(dialog.server_tests) == {"llm", "asr", "tts"}
    asr, tts = dialog.server_tests["asr"], dialog.server_tests["tts"]
    assert asr.button.accessibleName() == "Test the speech recognition server"
    dialog.set_value("asr.uri", "tcp://192.168.1.20:10300")
    asr.button.click()
    qtbot.waitUntil(lambda: len(asked) == 1)
    assert not asr.button.isEnabled() and "Testing tcp://192.168.1.20:10300" in asr.result.text()
    release.set()
    qtbot.waitUntil(lambda: asr.button.isEnabled())
    assert asr.result.text() == "OK: models tiny.en; Describe 3 ms"
    section, values, thread = asked[0]
    assert section == "asr" and values["uri"] == "tcp://192.168.1.20:10300"
    assert values["timeout_s"] == 10.0 and thread == "test-asr-server"  # never the GUI's
    tts.button.click()
    qtbot.waitUntil(lambda: tts.button.isEnabled() and "Testing" not in tts.result.text())
    assert tts.result.text() == "[speech_server_no_voice] No such voice. Fix: Pick another."
    assert asked[1][1]["voice"] == "en_US-joe-medium"


def test_an_address_off_the_local_network_is_warned_about(qtbot: Any) -> None:
    dialog = SettingsDialog(Settings(), SettingsChoices(test_server=lambda s, v: "ok"))
    qtbot.addWidget(dialog)
    dialog.show()
    warning = dialog.server_tests["asr"].warning
    dialog.set_value("asr.uri", "tcp://speech.example.com:10300")
    assert not warning.isVisible()  # the backend is local: nothing goes there
    dialog.set_value("asr.backend", "wyoming")
    assert warning.isVisible() and "clear text" in warning.text()
    assert dialog.save_button.isEnabled()  # a warning, not a refusal
    dialog.set_value("asr.uri", "tcp://192.168.1.20:10300")
    assert not warning.isVisible()


def test_settings_closed_before_the_server_answers_is_no_error(qtbot: Any,
                                                               monkeypatch: Any) -> None:
    """The check's thread never touches the row: closing Settings (which deletes the
    dialog and its rows) while a server takes its time leaves nothing to fail."""
    import shiboken6

    failures: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    release, asked = threading.Event(), threading.Event()

    def tester(section: str, values: dict[str, Any]) -> str:
        asked.set()
        release.wait(10)
        return "late"

    dialog = SettingsDialog(Settings(), SettingsChoices(test_server=tester))
    dialog.server_tests["asr"].button.click()
    assert asked.wait(10)
    checks = [t for t in threading.enumerate() if t.name == "test-asr-server"]
    shiboken6.delete(dialog)  # what closing Settings does to it
    release.set()
    for thread in checks:
        thread.join(10)
    assert not any(t.is_alive() for t in checks) and failures == []
