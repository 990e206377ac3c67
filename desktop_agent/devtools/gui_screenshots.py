"""Save PNGs of the main window driven through a scripted conversation.

Usage (a display is needed for real fonts; offscreen works too)::

    xvfb-run -a -s "-screen 0 1400x900x24" python -m desktop_agent.devtools.gui_screenshots OUT_DIR
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget

from desktop_agent.core.settings import Settings
from desktop_agent.devtools.demo_view_model import (
    RecordingViewModel,
    demo_mcp_servers,
    play_actions_script,
    play_script,
)
from desktop_agent.gui.main_window import MainWindow


def _grab(widget: QWidget, path: Path) -> Path:
    app = QApplication.instance()
    assert app is not None
    for _ in range(3):  # let layouts settle and repaints land
        app.processEvents()
    if not widget.grab().save(str(path)):
        raise OSError(f"could not write {path}")
    return path


def _own_tools(window: MainWindow, path: Path) -> Path:
    """Settings scrolled to "Your own tools (MCP)", with three servers (demo rows)."""
    from PySide6.QtWidgets import QScrollArea

    from desktop_agent.gui.settings_dialog import SettingsDialog
    from desktop_agent.runtime.view_api import SettingsChoices

    rows = demo_mcp_servers()
    dialog = SettingsDialog(window.settings, SettingsChoices(mcp_servers=lambda: rows), window)
    dialog.resize(1000, 760)
    dialog.show()
    assert dialog.mcp is not None
    app = QApplication.instance()
    assert app is not None
    app.processEvents()  # lay out, then scroll the section to the top
    dialog.findChild(QScrollArea).verticalScrollBar().setValue(dialog.mcp.y())
    try:
        return _grab(dialog, path)
    finally:
        dialog.reject()


def take_screenshots(out_dir: Path, settings: Settings | None = None) -> list[Path]:
    """Drive a MainWindow through ``demo.play_script`` and save a PNG per step.

    Also saves the high-contrast, larger-text variant, the settings dialog, and
    ``demo.play_actions_script``: the confirmation card, the actions list with timers and
    reminders, and an alarm going off.
    Needs a QApplication to exist. Returns the paths written.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    vm = RecordingViewModel()
    window = MainWindow(vm, settings or Settings(), Path(tempfile.gettempdir()) / "unused.toml")
    window.resize(1360, 860)
    window.show()
    paths: list[Path] = []

    def step(name: str) -> None:
        window.meters.flush()
        paths.append(_grab(window, out_dir / f"{name}.png"))

    play_script(vm, step)
    window.action_contrast.trigger()
    window.action_larger.trigger()
    paths.append(_grab(window, out_dir / "09_high_contrast_larger.png"))
    window.action_contrast.trigger()
    window.action_smaller.trigger()
    dialog = window.open_settings()
    dialog.set_value("endpointing.min_silence_s", 3.0)  # > max: shows an inline reason
    dialog.set_value("models.llm", "models/my.gguf")  # relative path: refused
    paths.append(_grab(dialog, out_dir / "10_settings_invalid.png"))
    dialog.reject()
    paths.append(_own_tools(window, out_dir / "10b_settings_own_tools.png"))
    play_actions_script(vm, step)
    window.close()
    return paths


def main(argv: list[str] | None = None) -> int:
    """Command line entry: ``python -m desktop_agent.devtools.gui_screenshots OUT_DIR``."""
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else Path("screenshots")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    for path in take_screenshots(out):
        print(path)
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
