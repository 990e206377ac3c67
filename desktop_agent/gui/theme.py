"""Colours, the focus ring, font scaling and the high-contrast scheme.

One stylesheet for the whole main window: a thick, always-visible focus ring on every
control (the platform's focus hint is often a faint dotted line), and in high-contrast
mode white-on-black with yellow accents (WCAG AAA contrast for text).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QWidget


@dataclass(frozen=True, slots=True)
class Colors:
    """The colours widgets paint with (custom-painted widgets read these)."""

    window: str
    text: str
    muted: str
    accent: str
    accent_text: str
    node: str
    node_border: str
    edge: str
    highlight_edge: str
    good: str
    warn: str
    bad: str
    unheard: str
    banner_bg: str
    banner_text: str
    focus: str


NORMAL: Final = Colors(
    window="#f6f7f9", text="#1b1f24", muted="#5b6470", accent="#1f6feb", accent_text="#ffffff",
    node="#ffffff", node_border="#8c959f", edge="#8c959f", highlight_edge="#f08c00",
    good="#1a7f37", warn="#9a6700", bad="#cf222e", unheard="#8c959f",
    banner_bg="#ffebe9", banner_text="#82071e", focus="#0969da",
)  # fmt: skip
HIGH_CONTRAST: Final = Colors(
    window="#000000", text="#ffffff", muted="#ffffff", accent="#ffff00", accent_text="#000000",
    node="#000000", node_border="#ffffff", edge="#ffffff", highlight_edge="#00ffff",
    good="#00ff00", warn="#ffff00", bad="#ff6060", unheard="#c0c0c0",
    banner_bg="#000000", banner_text="#ffff00", focus="#00ffff",
)  # fmt: skip


def colors_for(high_contrast: bool) -> Colors:
    """The colour set for the current mode."""
    return HIGH_CONTRAST if high_contrast else NORMAL


def palette_for(high_contrast: bool, base: QPalette) -> QPalette:
    """A palette for the mode: ``base`` unchanged, or a high-contrast one."""
    if not high_contrast:
        return QPalette(base)
    c = HIGH_CONTRAST
    pal = QPalette(base)
    roles = {
        QPalette.ColorRole.Window: c.window,
        QPalette.ColorRole.WindowText: c.text,
        QPalette.ColorRole.Base: c.window,
        QPalette.ColorRole.AlternateBase: "#1a1a1a",
        QPalette.ColorRole.Text: c.text,
        QPalette.ColorRole.Button: c.window,
        QPalette.ColorRole.ButtonText: c.text,
        QPalette.ColorRole.Highlight: c.accent,
        QPalette.ColorRole.HighlightedText: c.accent_text,
        QPalette.ColorRole.ToolTipBase: c.window,
        QPalette.ColorRole.ToolTipText: c.text,
        QPalette.ColorRole.PlaceholderText: "#c0c0c0",
        QPalette.ColorRole.Link: c.accent,
    }
    for role, color in roles.items():
        pal.setColor(QPalette.ColorGroup.All, role, QColor(color))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#a0a0a0"))
    pal.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#a0a0a0"))
    return pal


def stylesheet_for(high_contrast: bool, font_pt: float = 10.0) -> str:
    """The window stylesheet: text size, focus rings for every control, and the colours.

    Font size lives here rather than in ``setFont``: once a stylesheet is set, Qt resolves
    child fonts from it, and a parent's ``setFont`` no longer reaches them reliably.
    """
    c = colors_for(high_contrast)
    border = "2px solid " + (c.text if high_contrast else "#afb8c1")
    css = f"""
QWidget {{ font-size: {font_pt:.1f}pt; }}
QPushButton, QToolButton {{
    border: {border}; border-radius: 6px; padding: 6px 14px;
    background: {c.node}; color: {c.text};
}}
QPushButton:hover {{ border-color: {c.accent}; }}
QPushButton:pressed, QPushButton[listening="true"] {{
    background: {c.accent}; color: {c.accent_text}; border-color: {c.accent};
}}
QPushButton:disabled {{ color: {c.muted}; }}
QPushButton:focus, QToolButton:focus, QComboBox:focus, QAbstractSpinBox:focus,
QLineEdit:focus, QTextBrowser:focus, QTableWidget:focus, QCheckBox:focus,
QLabel:focus, QListWidget:focus, QTreeWidget:focus {{
    border: 3px solid {c.focus};
}}
QCheckBox:focus {{ border-radius: 4px; padding: 2px; }}
QLabel:focus {{ border-radius: 4px; }}
QGroupBox {{ font-weight: bold; border: 1px solid {c.node_border}; border-radius: 6px;
    margin-top: 1.1em; padding-top: 4px; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 8px; padding: 0 4px; }}
QLabel[role="caption"] {{ font-size: {font_pt * 1.3:.1f}pt; padding: 6px; border-radius: 6px;
    background: {c.node}; color: {c.text}; border: 1px solid {c.node_border}; }}
QLabel[role="inline_error"] {{ color: {c.bad}; }}
QLabel[role="muted"] {{ color: {c.muted}; }}
QFrame[role="banner"] {{ background: {c.banner_bg}; color: {c.banner_text};
    border: 2px solid {c.bad}; border-radius: 6px; }}
QFrame[role="banner"] QLabel {{ color: {c.banner_text}; }}
QFrame[role="card"] {{ background: {c.node}; border: 3px solid {c.accent}; border-radius: 8px; }}
QFrame[role="card"] QLabel[role="read_back"] {{ font-size: {font_pt * 1.25:.1f}pt; }}
QPushButton[primary="true"]:enabled {{ background: {c.accent}; color: {c.accent_text};
    border-color: {c.accent}; font-weight: bold; }}
QPushButton[primary="true"]:focus {{ border: 3px solid {c.focus if high_contrast else c.text}; }}
QFrame[role="notice"] {{ background: {c.node}; border: 2px solid {c.warn}; border-radius: 6px; }}
"""
    if high_contrast:
        css += f"""
QWidget {{ background-color: {c.window}; color: {c.text}; }}
QTextBrowser, QTableWidget, QTreeWidget, QLineEdit, QComboBox, QAbstractSpinBox, QProgressBar,
QScrollArea {{ background-color: {c.window}; color: {c.text}; border: 2px solid {c.text}; }}
QComboBox QAbstractItemView {{ background: {c.window}; color: {c.text};
    selection-background-color: {c.accent}; selection-color: {c.accent_text}; }}
QTableWidget, QTreeWidget {{ gridline-color: {c.text}; alternate-background-color: #1a1a1a;
    selection-background-color: {c.accent}; selection-color: {c.accent_text}; }}
QHeaderView::section {{ background: {c.window}; color: {c.text}; border: 1px solid {c.text};
    padding: 2px; }}
QProgressBar {{ text-align: center; }}
QProgressBar::chunk {{ background: {c.accent}; }}
QMenuBar, QMenu, QStatusBar {{ background: {c.window}; color: {c.text}; }}
QMenuBar::item:selected, QMenu::item:selected {{ background: {c.accent}; color: {c.accent_text}; }}
QGroupBox {{ border: 2px solid {c.text}; }}
QToolTip {{ background: {c.window}; color: {c.text}; border: 1px solid {c.text}; }}
"""
    return css


def scaled_font(base: QFont, scale: float) -> QFont:
    """``base`` with its point size multiplied by ``scale``."""
    font = QFont(base)
    size = base.pointSizeF() if base.pointSizeF() > 0 else 10.0
    font.setPointSizeF(max(6.0, size * scale))
    return font


def apply_theme(widget: QWidget, high_contrast: bool, font_scale: float, base_font: QFont,
                base_palette: QPalette) -> None:
    """Apply palette, stylesheet and font size to ``widget`` and its children."""
    font = scaled_font(base_font, font_scale)
    widget.setPalette(palette_for(high_contrast, base_palette))
    widget.setFont(font)
    widget.setStyleSheet(stylesheet_for(high_contrast, font.pointSizeF()))
