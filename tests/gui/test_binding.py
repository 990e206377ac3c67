"""The Qt binding must not corrupt reference counts (a long-running app would abort)."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QLabel


def test_void_calls_keep_none_refcount(qtbot) -> None:
    """PySide6-Essentials 6.12.0 on Python 3.11 drops a None reference per void call.

    The app then dies with 'Fatal Python error: none_dealloc' after a few thousand
    widget updates. Fix: PySide6-Essentials 6.11.3, or Python >= 3.12 (immortal None).
    """
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for i in range(500):
        label.setText(str(i))
    lost = before - sys.getrefcount(None)
    assert lost < 50, (
        f"the Qt binding dropped {lost} references to None in 500 calls: "
        "pin PySide6-Essentials==6.11.3 (or run on Python >= 3.12)"
    )
