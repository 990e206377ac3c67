"""The desktop app: settings, runtime and window put together (part of the composition root).

If the audio devices cannot be opened, or a model is missing, the window still opens:
the error banner says what is wrong and how to fix it, and Settings stays reachable.
With ``screenshot_dir`` it runs one scripted turn on the real models through a virtual
sound card and saves a PNG of the real window in each state, then quits.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from desktop_agent.core.errors import AgentError

_LOGGER = logging.getLogger(__name__)


def _choices() -> Any:
    from desktop_agent.adapters.audio_io import list_devices
    from desktop_agent.adapters.model_resolver import load_manifest
    from desktop_agent.runtime.view_api import SettingsChoices

    try:
        devices = list_devices()
    except AgentError:
        devices = []
    manifest = load_manifest()
    return SettingsChoices(
        input_devices=tuple(d.name for d in devices if d.input_channels > 0),
        output_devices=tuple(d.name for d in devices if d.output_channels > 0),
        asr_models=tuple(s.model_id for s in manifest.by_role("asr")),
        llm_models=tuple(s.model_id for s in manifest.by_role("llm")),
        tts_models=tuple(s.model_id for s in manifest.by_role("tts")),
    )


def main_window_app(screenshot_dir: Path | None = None) -> int:
    """Run the app until its window closes. Returns the exit status."""
    from PySide6.QtWidgets import QApplication

    from desktop_agent.adapters import paths
    from desktop_agent.adapters.settings_store import load_settings, save_settings
    from desktop_agent.app import build_runtime
    from desktop_agent.audio.virtual import VirtualAudio
    from desktop_agent.gui.main_window import MainWindow
    from desktop_agent.runtime.view_api import AgentViewModel, ErrorNotice

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Desktop Agent")
    settings_path = paths.config_dir() / "settings.toml"
    loaded = load_settings(settings_path)
    settings = loaded.settings
    notices: list[ErrorNotice] = [ErrorNotice("settings_warning", w, "Check Settings.")
                                  for w in loaded.warnings]
    backend: Any = None
    if screenshot_dir is not None:
        backend = VirtualAudio()
    else:
        try:
            from desktop_agent.adapters.device_audio import DeviceAudio

            backend = DeviceAudio(settings.audio.input_device, settings.audio.output_device)
            backend.start()
        except AgentError as exc:
            notices.append(ErrorNotice(exc.code, exc.message + " The app runs without sound.",
                                       exc.fix))
            backend = VirtualAudio()
    runtime = None
    try:
        runtime = build_runtime(settings, backend,
                                span_log=paths.log_dir() / "turns.jsonl")
        view_model: AgentViewModel = runtime.controller
    except AgentError as exc:
        notices.append(ErrorNotice.from_error(exc))
        view_model = AgentViewModel()
    window = MainWindow(view_model, settings, settings_path, save_settings=save_settings,
                        choices=_choices())
    window.show()
    for notice in notices:
        view_model.sig_error.emit(notice)
    if runtime is not None:
        runtime.controller.start()
    try:
        if screenshot_dir is not None and runtime is not None:
            from desktop_agent.gui_script import run_scripted_turn

            return run_scripted_turn(app, window, runtime, screenshot_dir)
        return int(app.exec())
    finally:
        if runtime is not None:
            runtime.shutdown()

