"""The main window's panes, built: talk controls and caption, conversation, state and latency.

Each builder makes its widgets with their accessible names and lays them out; the window
(main_window.py) keeps the widgets it talks to and wires their signals.

Runs on: GUI thread.
"""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.gui.a11y import name
from desktop_agent.gui.latency import LatencyWaterfall
from desktop_agent.gui.meters import LevelMeters
from desktop_agent.gui.settings_dialog import MODE_LABELS
from desktop_agent.gui.state_diagram import StateDiagramWidget, TransitionLog

CAPTION_IDLE: Final = "Captions of the assistant's speech appear here."
PTT_IDLE: Final = "Hold to talk"
PTT_LISTENING: Final = "\u25cf Listening\u2026 release to send"


def ptt_button() -> QPushButton:
    """The push-to-talk button (held while the user speaks)."""
    button = QPushButton(PTT_IDLE)
    button.setAutoDefault(True)
    button.setMinimumHeight(56)
    button.setMinimumWidth(250)
    name(button, "Push to talk",
         "Hold this button, or hold the push-to-talk key, while you speak; release to send")
    return button


def mode_combo() -> QComboBox:
    """The interaction mode box: push-to-talk or hands-free."""
    combo = QComboBox()
    for value, label in MODE_LABELS.items():
        combo.addItem(label, value)
    name(combo, "Interaction mode",
         "Push-to-talk: hold a key to speak. Hands-free: just speak.")
    return combo


def caption_label() -> QLabel:
    """The caption of what the assistant is saying now."""
    caption = QLabel(CAPTION_IDLE)
    caption.setProperty("role", "caption")
    caption.setWordWrap(True)
    caption.setTextFormat(Qt.TextFormat.PlainText)
    caption.setMinimumHeight(44)
    # No accessible name of its own: a QLabel's text is its AT-SPI name (it has no Text
    # interface), so each caption reaches assistive tech as a name change, and is
    # announced politely (MainWindow._on_view_model_caption).
    caption.setAccessibleDescription("Caption: what the assistant is saying now")
    return caption


def talk_controls(ptt: QPushButton, mode: QComboBox, meters: LevelMeters) -> QHBoxLayout:
    """The row of talk controls: the button, the labelled mode box, the level meters."""
    controls = QHBoxLayout()
    controls.addWidget(ptt)
    mode_box = QVBoxLayout()
    # On Linux the combo box's AT-SPI name is its value; its label is this buddy's
    # labelled-by relation, so the label says what the box is for.
    mode_label = QLabel("Interaction &mode:")
    mode_label.setBuddy(mode)
    mode_box.addWidget(mode_label)
    mode_box.addWidget(mode)
    controls.addLayout(mode_box)
    controls.addWidget(meters, 1)
    return controls


def conversation_pane(controls: QHBoxLayout, caption: QLabel, card: QWidget,
                      conversation: QWidget, ledger: QWidget, heard: QWidget,
                      evidence: QWidget) -> QWidget:
    """The left-hand pane: talk controls, caption, confirmation card, conversation, actions
    and timers, what was heard, the evidence."""
    left = QWidget()
    lv = QVBoxLayout(left)
    lv.setContentsMargins(0, 0, 6, 0)
    lv.addLayout(controls)
    lv.addWidget(caption)
    lv.addWidget(card)
    lv.addWidget(conversation, 3)
    lv.addWidget(ledger, 2)
    lv.addWidget(heard)
    lv.addWidget(evidence, 1)
    return left


def state_pane(diagram: StateDiagramWidget, log: TransitionLog,
               latency: LatencyWaterfall) -> QWidget:
    """The right-hand pane: the turn-taking state (diagram and log), then the latency."""
    state_box = QGroupBox("Turn-taking state")
    sv = QVBoxLayout(state_box)
    sv.addWidget(diagram, 3)
    sv.addWidget(log, 2)
    latency_box = QGroupBox("Latency in ms: last turn, then recent turns")
    QVBoxLayout(latency_box).addWidget(latency)
    right = QWidget()
    rv = QVBoxLayout(right)
    rv.setContentsMargins(6, 0, 0, 0)
    rv.addWidget(state_box, 3)
    rv.addWidget(latency_box, 2)
    return right
