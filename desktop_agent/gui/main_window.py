"""The main window: talk controls, confirmation card, conversation, actions and timers,
state machine, heard panel, latency."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Final

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.errors import SettingsError
from desktop_agent.core.settings import Settings
from desktop_agent.core.turns.reports import PublishReflection
from desktop_agent.core.turns.states import State, Transition
from desktop_agent.core.turns.telemetry import TurnSpan
from desktop_agent.gui import theme
from desktop_agent.gui.a11y import Announcer, announce, name
from desktop_agent.gui.actions_presenter import ActionsPresenter
from desktop_agent.gui.conversation import ConversationView
from desktop_agent.gui.evidence_panel import EvidencePanel
from desktop_agent.gui.heard_panel import HeardPanel, heard_announcement
from desktop_agent.gui.latency import LatencyWaterfall
from desktop_agent.gui.menus import menu_action
from desktop_agent.gui.meters import LevelMeters
from desktop_agent.gui.privacy_menu import ask_clear_history
from desktop_agent.gui.ptt import PttKeyFilter, set_listening_style
from desktop_agent.gui.settings_dialog import MODE_LABELS, SettingsDialog, key_from_name
from desktop_agent.gui.state_diagram import StateDiagramWidget, TransitionLog
from desktop_agent.gui.status import ErrorBanner, LoadingStatus
from desktop_agent.gui.turn_gate import TurnGate
from desktop_agent.gui.window_panes import (
    CAPTION_IDLE,
    PTT_IDLE,
    PTT_LISTENING,
    caption_label,
    conversation_pane,
    mode_combo,
    ptt_button,
    state_pane,
    talk_controls,
)
from desktop_agent.runtime.view_api import (
    AgentViewModel,
    ErrorNotice,
    LevelReading,
    LoadProgress,
    SettingsChoices,
)

_LOGGER = logging.getLogger(__name__)

SettingsSaver = Callable[[Settings, Path], object]
"""Persists settings (the app passes ``adapters.store.settings_store.save_settings``)."""
FONT_STEP: Final = 0.125
ANNOUNCE: Final = {
    State.LISTENING: "Listening",
    State.USER_SPEAKING: "You are speaking",
    State.PROCESSING: "Thinking",
    State.WAITING_FOR_TOOL: "Waiting for a tool",
    State.ASSISTANT_SPEAKING: "Assistant speaking",
    State.INTERRUPTED: "Assistant interrupted",
    State.ERROR: "Error",
}


class MainWindow(QMainWindow):
    """The assistant's window. Talks to the runtime only through ``AgentViewModel``.

    Args:
        view_model: signals in, requests out.
        settings: the settings in force.
        settings_path: where Save writes them.
        save_settings: persists settings (``settings_store.save_settings``); None = the
            dialog and menu changes apply for this session only (demo, tests).
        choices: devices and models for the settings dialog; None = ask the view model
            each time the dialog opens.

    Runs on: GUI thread.
    """

    sig_settings_saved = Signal(object)
    """Settings: new settings were committed (saved if a saver was given, then applied)."""

    def __init__(self, view_model: AgentViewModel, settings: Settings, settings_path: Path, *,
                 save_settings: SettingsSaver | None = None,
                 choices: SettingsChoices | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view_model = view_model
        self.settings = settings
        self.settings_path = Path(settings_path)
        self._save = save_settings
        self._choices = choices
        self.gate = TurnGate()
        self.ptt_held = False
        self._ptt_key = key_from_name(settings.interaction.ptt_key) or int(Qt.Key.Key_Space.value)
        self.settings_dialog: SettingsDialog | None = None
        app = QApplication.instance()
        assert isinstance(app, QApplication), "create a QApplication first"
        self._base_font = app.font()
        self._base_palette = app.palette()
        self.setWindowTitle("Desktop Agent")
        self.setAccessibleName("Desktop Agent")
        self._build()
        self._build_menu()
        self._connect()
        self.ptt_filter = PttKeyFilter(self, self._ptt_key)
        self.ptt_filter.sig_pressed.connect(self._on_ptt_filter_pressed)
        self.ptt_filter.sig_released.connect(self._on_ptt_filter_released)
        app.installEventFilter(self.ptt_filter)  # the PTT key works whichever child has focus
        self._apply_ui()
        self.resize(1360, 860)

    # -- construction ---------------------------------------------------------------------
    def _build(self) -> None:
        self.banner = ErrorBanner()
        self.loading = LoadingStatus()
        self.ptt_button = ptt_button()
        self.mode_combo = mode_combo()
        self.meters = LevelMeters()
        self.caption = caption_label()
        self.conversation = ConversationView()
        self.heard = HeardPanel()
        self.evidence = EvidencePanel(passage_text=self.view_model.passage_text)
        self.diagram = StateDiagramWidget()
        self.log = TransitionLog()
        name(self.log, "Transition log",
             "Every state change: turn, from, to, cause, seconds since the turn started")
        self.latency = LatencyWaterfall()
        self.announcer = Announcer()
        self.actions_ui = ActionsPresenter(self.view_model, self.announcer, self)

        left = conversation_pane(
            talk_controls(self.ptt_button, self.mode_combo, self.meters), self.caption,
            self.actions_ui.card, self.conversation, self.actions_ui.ledger, self.heard,
            self.evidence)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(state_pane(self.diagram, self.log, self.latency))
        splitter.setStretchFactor(0, 5)
        splitter.setStretchFactor(1, 4)
        central = QWidget()
        v = QVBoxLayout(central)
        v.addWidget(self.banner)
        v.addWidget(self.actions_ui.notice)
        v.addWidget(self.loading)
        v.addWidget(splitter, 1)
        self.setCentralWidget(central)
        self.statusBar().addWidget(self.announcer, 1)
        self.announcer.announce("Ready. " + self._ptt_hint())

        # Tab order: the error and alarm (when shown) first, then the card's answers, then
        # talk, then what to read (the ledger puts its Undo buttons after its list).
        ledger = self.actions_ui.ledger
        order = [self.banner.dismiss_button, *self.actions_ui.widgets(), self.ptt_button,
                 self.mode_combo, self.conversation, ledger.actions_tree, ledger.alarms_tree,
                 self.heard.heard_label, self.log, self.latency.history]
        for a, b in zip(order, order[1:], strict=False):
            QWidget.setTabOrder(a, b)

    def _build_menu(self) -> None:
        bar = self.menuBar()
        agent = bar.addMenu("&Agent")
        answer = bar.addMenu("A&nswer")
        view = bar.addMenu("&View")

        act = menu_action
        std = QKeySequence.StandardKey
        self.action_settings = act(agent, "&Settings\u2026", self.open_settings, std.Preferences,
                                   "Ctrl+,")
        self.action_check = act(agent, "Run &first-run check", self.view_model.run_first_run_check)
        self.action_clear_history = act(  # a confirmation first: gui/privacy_menu.py
            agent, "&Clear history\u2026",
            lambda: ask_clear_history(self, self.view_model, self.announcer), "Ctrl+Shift+Del")
        agent.addSeparator()
        self.action_quit = act(agent, "&Quit", self.close, std.Quit, "Ctrl+Q")
        self.action_repeat = act(answer, "&Repeat last answer", self.view_model.repeat_last_answer,
                                 "Ctrl+R")
        self.action_rephrase = act(answer, "Re&phrase last answer",
                                   self.view_model.rephrase_last_answer, "Ctrl+Shift+R")
        answer.addSeparator()
        answer.addActions([self.actions_ui.action_confirm, self.actions_ui.action_cancel])
        self.action_contrast = act(view, "&High contrast", self._on_contrast_action_triggered,
                                   "Ctrl+Shift+H", checkable=True)
        self.action_larger = act(view, "&Larger text", lambda: self._step_font(+1), std.ZoomIn,
                                 "Ctrl++")
        self.action_smaller = act(view, "&Smaller text", lambda: self._step_font(-1),
                                  std.ZoomOut, "Ctrl+-")

    def _connect(self) -> None:
        vm = self.view_model
        vm.sig_transition.connect(self._on_view_model_transition)
        vm.sig_partial_transcript.connect(self._on_view_model_partial_transcript)
        vm.sig_user_final.connect(self._on_view_model_user_final)
        vm.sig_assistant_text.connect(self._on_view_model_assistant_text)
        vm.sig_heard.connect(self._on_view_model_heard)
        vm.sig_span.connect(self._on_view_model_span)
        vm.sig_levels.connect(self._on_view_model_levels)
        vm.sig_error.connect(self._on_view_model_error)
        vm.sig_error_cleared.connect(self._on_view_model_error_cleared)
        vm.sig_loading.connect(self._on_view_model_loading)
        vm.sig_caption.connect(self._on_view_model_caption)
        vm.sig_unit_changed.connect(self.evidence.on_unit_changed)
        vm.sig_reflection_changed.connect(self._on_view_model_reflection_changed)
        vm.sig_tool_used.connect(self._on_view_model_tool_used)
        self.ptt_button.pressed.connect(self._on_ptt_button_pressed)
        self.ptt_button.released.connect(self._on_ptt_button_released)
        self.mode_combo.currentIndexChanged.connect(self._on_mode_combo_changed)

    # -- push-to-talk ---------------------------------------------------------------------
    def _ptt_hint(self) -> str:
        return f"Hold {self.settings.interaction.ptt_key} or the talk button to speak."

    def _ptt_idle_text(self) -> str:
        return f"{PTT_IDLE}  ({self.settings.interaction.ptt_key})"

    def _ptt_down(self) -> None:
        if self.ptt_held:
            return
        self.ptt_held = True
        self.ptt_button.setText(PTT_LISTENING)
        set_listening_style(self.ptt_button, True)
        self.view_model.ptt_press()

    def _ptt_up(self) -> None:
        if not self.ptt_held:
            return
        self.ptt_held = False
        self.ptt_button.setText(self._ptt_idle_text())
        set_listening_style(self.ptt_button, False)
        self.view_model.ptt_release()

    def changeEvent(self, event: QEvent) -> None:  # noqa: D102 - Qt override
        # A key released while another window had focus never reaches us: release on leave.
        if event.type() == QEvent.Type.ActivationChange and not self.isActiveWindow():
            self._ptt_up()
        super().changeEvent(event)

    def _on_ptt_filter_pressed(self) -> None:
        self._ptt_down()

    def _on_ptt_filter_released(self) -> None:
        self._ptt_up()

    def _on_ptt_button_pressed(self) -> None:
        self._ptt_down()

    def _on_ptt_button_released(self) -> None:
        self._ptt_up()

    # -- view model signals ---------------------------------------------------------------
    def _on_view_model_transition(self, transition: Transition) -> None:
        if not self.gate.admit_live(int(transition.turn_id), "transition"):
            return
        self.diagram.show_transition(transition)
        self.log.add(transition)
        self.announcer.announce(ANNOUNCE[transition.target])

    def _on_view_model_partial_transcript(self, turn_id: int, text: str) -> None:
        if self.gate.admit_live(turn_id, "partial transcript"):
            self.conversation.set_partial(turn_id, text)

    def _on_view_model_user_final(self, turn_id: int, text: str) -> None:
        if self.gate.admit_live(turn_id, "user final"):
            self.conversation.set_user_final(turn_id, text)

    def _on_view_model_assistant_text(self, turn_id: int, text: str) -> None:
        if self.gate.admit_live(turn_id, "assistant text"):
            self.conversation.set_assistant_text(turn_id, text)

    def _on_view_model_reflection_changed(self, change: PublishReflection) -> None:
        if self.gate.admit_live(int(change.turn_id), "reflection"):
            self.conversation.add_reflection(change)

    def _on_view_model_tool_used(self, turn_id: int, name: str) -> None:
        if self.gate.admit_live(turn_id, "tool used"):
            self.conversation.add_tool_used(turn_id, name)

    def _on_view_model_heard(self, report: HeardReport) -> None:
        # A late report of an older turn only corrects that turn's own record.
        self.gate.see(int(report.turn_id))
        self.conversation.set_heard(report)
        if self.heard.show_report(report):
            self.announcer.announce(heard_announcement(report))

    def _on_view_model_span(self, span: TurnSpan) -> None:
        self.latency.update_span(span)

    def _on_view_model_levels(self, reading: LevelReading) -> None:
        self.meters.push(reading)

    def _on_view_model_error(self, notice: ErrorNotice) -> None:
        self.banner.show_notice(notice)
        self.announcer.announce(f"Error: {notice.message}")

    def _on_view_model_error_cleared(self) -> None:
        self.banner.clear()

    def _on_view_model_loading(self, progress: LoadProgress) -> None:
        line = self.loading.update_progress(progress)
        if progress.status == "failed" or line.startswith("All models ready"):
            self.announcer.announce(line)

    def _on_view_model_caption(self, text: str) -> None:
        self.caption.setText(text or CAPTION_IDLE)
        if text:  # a polite announcement: queued after what the screen reader is saying
            announce(self.caption, text)

    # -- settings, mode, appearance -------------------------------------------------------
    def open_settings(self) -> SettingsDialog:
        """Open the settings dialog (window-modal, non-blocking) and return it."""
        choices = self._choices or self.view_model.settings_choices()
        dialog = SettingsDialog(self.settings, choices, self)
        dialog.accepted.connect(lambda: self._on_settings_dialog_accepted(dialog))
        dialog.finished.connect(dialog.deleteLater)
        self.settings_dialog = dialog
        dialog.open()
        return dialog

    def _on_settings_dialog_accepted(self, dialog: SettingsDialog) -> None:
        self.commit_settings(dialog.settings)

    def commit_settings(self, settings: Settings) -> None:
        """Save ``settings``, tell the view model, and re-apply the UI parts."""
        if self._save is not None:
            try:
                self._save(settings, self.settings_path)
            except SettingsError as err:
                self.banner.show_notice(ErrorNotice.from_error(err))
        self.settings = settings
        self.view_model.apply_settings(settings)
        self._apply_ui()
        self.sig_settings_saved.emit(settings)

    def _on_mode_combo_changed(self, _index: int) -> None:
        mode = str(self.mode_combo.currentData())
        if mode == self.settings.interaction.mode:
            return
        self.view_model.set_mode(mode)
        self.commit_settings(self.settings.replace_field("interaction.mode", mode))
        self.announcer.announce(f"Mode: {MODE_LABELS[mode]}")

    def _on_contrast_action_triggered(self) -> None:
        on = self.action_contrast.isChecked()
        self.commit_settings(self.settings.replace_field("ui.high_contrast", on))
        # A closed menu's item sends no state change on the bus: say what the keys did.
        self.announcer.announce(f"High contrast {'on' if on else 'off'}")

    def _step_font(self, direction: int) -> None:
        scale = self.settings.ui.font_scale + direction * FONT_STEP
        scale = min(2.0, max(0.75, round(scale / FONT_STEP) * FONT_STEP))
        if scale != self.settings.ui.font_scale:
            self.commit_settings(self.settings.replace_field("ui.font_scale", scale))
            self.announcer.announce(f"Text size {scale:.0%}")

    def _apply_ui(self) -> None:
        s = self.settings
        hc = s.ui.high_contrast
        theme.apply_theme(self, hc, s.ui.font_scale, self._base_font, self._base_palette)
        colors = theme.colors_for(hc)
        for widget in (self.diagram, self.conversation, self.latency):
            widget.set_colors(colors)
        self.action_contrast.setChecked(hc)
        self._ptt_key = key_from_name(s.interaction.ptt_key) or int(Qt.Key.Key_Space.value)
        self.ptt_filter.key = self._ptt_key
        if not self.ptt_held:
            self.ptt_button.setText(self._ptt_idle_text())
        index = self.mode_combo.findData(s.interaction.mode)
        if index != self.mode_combo.currentIndex():
            self.mode_combo.blockSignals(True)  # a settings change is not a user mode switch
            self.mode_combo.setCurrentIndex(index)
            self.mode_combo.blockSignals(False)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: D102 - Qt override
        self._ptt_up()
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self.ptt_filter)
        super().closeEvent(event)
