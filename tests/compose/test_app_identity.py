"""The window's icon and the name that ties it to its menu entry."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("PySide6")


def test_the_app_has_its_icon_and_desktop_file_name(qapp: Any) -> None:
    from desktop_agent.compose.desktop import _set_identity

    _set_identity(qapp)
    # The Wayland app id, and the name of the menu entry install-desktop-entry writes.
    assert qapp.desktopFileName() == "io.github.desktop_agent.DesktopAgent"
    icon = qapp.windowIcon()
    assert not icon.isNull()
    pixmap = icon.pixmap(64, 64)
    assert pixmap.width() == 64
    # The icon's blue frame, not an empty placeholder.
    assert pixmap.toImage().pixelColor(32, 4).blue() > 100
