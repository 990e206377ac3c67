"""MainWindow wired to a fake view model: talk controls, turns, stale output, errors."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.settings import Settings
from desktop_agent.core.turns.states import State
from desktop_agent.devtools.demo_view_model import HEARD, UNHEARD, RecordingViewModel, play_script
from desktop_agent.gui.conversation import CUT_MARKER
from desktop_agent.gui.main_window import MainWindow
from desktop_agent.runtime.view_api import ErrorNotice, LoadProgress

S = State


class PttViewModel(RecordingViewModel):
    """Answers press/release the way the controller does: with transitions and a transcript."""

    def ptt_press(self) -> None:
        super().ptt_press()
        self.transition(1, S.LISTENING, S.USER_SPEAKING, "ptt_pressed", 1.0)
        self.sig_partial_transcript.emit(1, "what time")

    def ptt_release(self) -> None:
        super().ptt_release()
        self.transition(1, S.USER_SPEAKING, S.PROCESSING, "ptt_released", 2.5)
        self.sig_user_final.emit(1, "What time is it?")


def _target_is(state: State):
    return lambda t: t.target is state


def test_ptt_button_drives_state_widget(qtbot, settings_path) -> None:
    vm = PttViewModel()
    win = MainWindow(vm, Settings(), settings_path)
    qtbot.addWidget(win)
    win.show()
    with qtbot.waitSignals([vm.sig_transition, vm.sig_partial_transcript], order="strict",
                           check_params_cbs=[_target_is(S.USER_SPEAKING), None]):
        qtbot.mousePress(win.ptt_button, Qt.MouseButton.LeftButton)
    assert win.diagram.current is S.USER_SPEAKING
    assert win.ptt_button.property("listening") == "true"
    assert "Listening" in win.ptt_button.text()
    assert win.conversation.turn(1).user_partial == "what time"
    with qtbot.waitSignals([vm.sig_transition, vm.sig_user_final], order="strict",
                           check_params_cbs=[_target_is(S.PROCESSING), None]):
        qtbot.mouseRelease(win.ptt_button, Qt.MouseButton.LeftButton)
    assert win.diagram.current is S.PROCESSING
    assert win.ptt_button.property("listening") == "false"
    assert vm.names() == ["ptt_press", "ptt_release"]
    assert [r[2] for r in win.log.rows()] == ["User speaking", "Processing"]
    assert win.announcer.last_announcement == "Thinking"


def _key(kind: QEvent.Type, auto_repeat: bool = False) -> QKeyEvent:
    return QKeyEvent(kind, Qt.Key.Key_Space, Qt.KeyboardModifier.NoModifier, " ", auto_repeat)


def test_space_held_presses_and_releases_once(window, vm) -> None:
    window.mode_combo.setFocus()  # works whichever control has focus
    target = window.mode_combo
    QApplication.sendEvent(target, _key(QEvent.Type.KeyPress))
    for _ in range(5):  # the keyboard's auto-repeat while the key is held
        QApplication.sendEvent(target, _key(QEvent.Type.KeyRelease, True))
        QApplication.sendEvent(target, _key(QEvent.Type.KeyPress, True))
    assert window.ptt_held
    QApplication.sendEvent(target, _key(QEvent.Type.KeyRelease))
    assert vm.names() == ["ptt_press", "ptt_release"]
    assert window.mode_combo.currentData() == "push_to_talk"  # Space did not open/alter it


def test_configured_ptt_key_replaces_space(window, vm) -> None:
    window.commit_settings(window.settings.replace_field("interaction.ptt_key", "F8"))
    assert "(F8)" in window.ptt_button.text()
    target = window.conversation
    QApplication.sendEvent(target, _key(QEvent.Type.KeyPress))
    QApplication.sendEvent(target, _key(QEvent.Type.KeyRelease))
    assert "ptt_press" not in vm.names()  # Space is an ordinary key again
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        event = QKeyEvent(kind, Qt.Key.Key_F8, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(target, event)
    assert [n for n in vm.names() if n.startswith("ptt")] == ["ptt_press", "ptt_release"]


def test_barge_in_fills_heard_panel_exactly(window, vm) -> None:
    steps: list[str] = []
    play_script(vm, steps.append)
    assert window.heard.heard_label.text() == HEARD
    assert UNHEARD in window.heard.dropped_label.text()
    assert "2.90 s" in window.heard.cut_label.text()
    assert HEARD + CUT_MARKER.rstrip() in window.conversation.toPlainText()
    assert window.diagram.current is S.LISTENING
    assert "06_interrupted" in steps


def test_stale_turn_output_never_reaches_the_view(window, vm, qtbot) -> None:
    vm.transition(2, S.LISTENING, S.USER_SPEAKING, "ptt_pressed", 1.0)
    vm.sig_user_final.emit(2, "second question")
    vm.transition(3, S.INTERRUPTED, S.USER_SPEAKING, "user_continued", 2.0)
    vm.sig_partial_transcript.emit(3, "third")
    rows = len(window.log.rows())
    with qtbot.assertNotEmitted(window.conversation.sig_content_changed):
        vm.sig_assistant_text.emit(2, "late tokens of a cancelled reply")
        vm.sig_partial_transcript.emit(2, "late partial")
        vm.sig_user_final.emit(1, "a very old final")
        vm.transition(2, S.PROCESSING, S.ASSISTANT_SPEAKING, "first_audio", 3.0)
    assert window.diagram.current is S.USER_SPEAKING
    assert len(window.log.rows()) == rows
    assert "late" not in window.conversation.toPlainText()
    assert window.gate.dropped == 4
    # A late HeardReport of turn 2 only corrects turn 2's own record.
    with qtbot.waitSignal(window.conversation.sig_content_changed) as blocker:
        vm.sig_heard.emit(HeardReport(TurnId(2), "a b c", "a", "b c", 0.4, True))
    assert blocker.args == [2]
    assert window.conversation.turn(3).user_partial == "third"


def test_error_banner_appears_and_clears(window, vm, qtbot) -> None:
    assert window.banner.isHidden()
    vm.sig_error.emit(ErrorNotice("device_error", "Microphone vanished.", "Plug it back in."))
    assert window.banner.isVisible()
    assert window.announcer.last_announcement == "Error: Microphone vanished."
    assert window.ptt_button.isEnabled()  # non-modal: the window stays usable
    vm.sig_error_cleared.emit()
    assert window.banner.isHidden()


def test_loading_line_and_usable_at_once(window, vm) -> None:
    vm.sig_loading.emit(LoadProgress("asr", "loading", "whisper-tiny-en"))
    assert window.loading.text() == "Loading Whisper\u2026"
    window.ptt_button.click()
    assert vm.names() == ["ptt_press", "ptt_release"]


def test_menu_actions_reach_the_view_model(window, vm) -> None:
    window.action_repeat.trigger()
    window.action_rephrase.trigger()
    window.action_check.trigger()
    assert vm.names() == ["repeat_last_answer", "rephrase_last_answer", "run_first_run_check"]


def test_mode_switch(window, vm, settings_path) -> None:
    window.mode_combo.setCurrentIndex(window.mode_combo.findData("hands_free"))
    assert ("set_mode", "hands_free") in vm.calls
    assert window.settings.interaction.mode == "hands_free"
    assert 'mode = "hands_free"' in settings_path.read_text()


def test_high_contrast_and_text_size(window, vm, settings_path) -> None:
    size = window.font().pointSizeF()
    window.action_larger.trigger()
    assert window.settings.ui.font_scale == 1.125
    assert window.conversation.font().pointSizeF() > size
    window.action_smaller.trigger()
    window.action_smaller.trigger()
    assert window.settings.ui.font_scale == 0.875
    window.action_contrast.trigger()
    assert window.settings.ui.high_contrast
    assert "high_contrast = true" in settings_path.read_text()
    assert vm.applied[-1].ui.high_contrast
    assert "background-color: #000000" in window.styleSheet()
