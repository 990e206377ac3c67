"""The desktop app: settings, runtime and window put together.

If the audio devices cannot be opened, or a model is missing, the window still opens:
the error banner says what is wrong and how to fix it, and Settings stays reachable.
A ``script`` (the screenshot driver in ``tools/``) may drive the real window instead of
the user, on a virtual sound card.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from desktop_agent.core.errors import AgentError

_LOGGER = logging.getLogger(__name__)

NO_DISPLAY_STATUS = 3
"""Exit status of ``run_gui`` when there is no display (the CLI passes it on)."""

NO_DISPLAY_MESSAGE = """\
desktop_agent: no display found, so the window cannot open.
  The desktop app needs a graphical session (X11 or Wayland).
  Without one you can still use it headless:
    desktop-agent ask --wav QUESTION.wav --out REPLY.wav   answer one spoken question
    desktop-agent ask --text "What time is it?"            answer one typed question
    desktop-agent doctor                                   check models, devices and engines
  Or run the window on a virtual screen: xvfb-run -a desktop-agent"""

WindowScript = Callable[[Any, Any, Any], int]
"""``script(app, window, runtime) -> exit status``: drives the real window, then returns."""


def has_display() -> bool:
    """True when Qt can open a window here."""
    if os.environ.get("QT_QPA_PLATFORM", "").startswith(("offscreen", "minimal", "vnc")):
        return True
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run_gui(script: WindowScript | None = None, *, start_hidden: bool = False) -> int:
    """Start the desktop app. Returns the exit status (``NO_DISPLAY_STATUS`` without one).

    ``start_hidden``: the window starts hidden in the tray, or minimised without a tray
    (``desktop-agent --start-hidden``, the autostart entry's command). A launch that finds
    the app running shows its window either way.
    """
    if not has_display():
        print(NO_DISPLAY_MESSAGE, file=sys.stderr)
        return NO_DISPLAY_STATUS
    from desktop_agent.compose.single_instance import claim

    instance = claim() if script is None else None
    if instance is not None and instance.reply is not None:  # another app showed its window
        print(f"desktop-agent is already running: {instance.reply.describe()}")
        return 0 if instance.reply.ok else 1
    return main_window_app(script, instance=instance, start_hidden=start_hidden)


def _choices(runtime: Any = None) -> Any:
    from desktop_agent.adapters.audio.audio_devices import list_devices
    from desktop_agent.adapters.desktop.autostart import this_command
    from desktop_agent.adapters.models.model_resolver import load_manifest
    from desktop_agent.compose.mcp_settings import McpSettings
    from desktop_agent.runtime.view_api import SettingsChoices

    try:
        devices = list_devices()
    except AgentError:
        devices = []
    manifest = load_manifest()
    own = getattr(runtime, "own_tools", None)  # your own tools' servers, when started
    hub = own.tools.hub if own is not None and own.tools is not None else None
    mcp = McpSettings(hub.states if hub is not None else None)
    return SettingsChoices(
        input_devices=tuple(d.name for d in devices if d.input_channels > 0),
        output_devices=tuple(d.name for d in devices if d.output_channels > 0),
        asr_models=tuple(s.model_id for s in manifest.by_role("asr")),
        llm_models=tuple(s.model_id for s in manifest.by_role("llm")),
        tts_models=tuple(s.model_id for s in manifest.by_role("tts")),
        command=str(this_command()),
        test_server=_test_server,
        mcp_servers=mcp.servers, save_mcp=mcp.save, import_mcp=mcp.import_file,
    )


def _test_server(section: str, values: dict[str, Any]) -> str:
    """Settings' "Test" button: the language model's server, or a speech server."""
    if section == "llm":
        from desktop_agent.adapters.llm.llm_probe import probe_llm_server

        return probe_llm_server(values)
    from desktop_agent.adapters.speech_server.probe import probe_server

    return probe_server(section, values)


def main_window_app(script: WindowScript | None = None, *, instance: Any = None,
                    start_hidden: bool = False) -> int:
    """Run the app until its window closes (or ``script`` returns). Returns the exit status.

    ``instance``: the ``single_instance.claim`` this launch won; the app then serves the
    control socket (``desktop-agent ptt|show|quit``) and holds the lock until it ends.
    ``start_hidden``: the window stays hidden when there is a tray icon to bring it back
    (or ``desktop-agent show``), and starts minimised when there is none.
    """
    from PySide6.QtWidgets import QApplication

    from desktop_agent.adapters import paths
    from desktop_agent.adapters.store.settings_store import load_settings, save_settings
    from desktop_agent.audio.backend import AudioBackend
    from desktop_agent.audio.virtual import VirtualAudio
    from desktop_agent.compose.runtime import build_runtime
    from desktop_agent.gui.main_window import MainWindow
    from desktop_agent.runtime.view_api import AgentViewModel, ErrorNotice

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Desktop Agent")
    _set_identity(app)
    server = _serve(instance)
    settings_path = paths.config_dir() / "settings.toml"
    loaded = load_settings(settings_path)
    settings = loaded.settings
    notices: list[ErrorNotice] = [ErrorNotice("settings_warning", w, "Check Settings.")
                                  for w in loaded.warnings]
    backend: AudioBackend  # both sound cards present the runtime's port
    no_sound = False
    if script is not None:
        backend = VirtualAudio()
    else:
        try:
            from desktop_agent.adapters.audio.device_audio import DeviceAudio

            backend = DeviceAudio(settings.audio.input_device, settings.audio.output_device)
            backend.start()
        except AgentError as exc:
            notices.append(ErrorNotice(exc.code, exc.message + " The app runs without sound.",
                                       exc.fix))
            backend, no_sound = _silent_audio(), True
    runtime = None
    try:
        from desktop_agent.adapters.mcp.mcp_files import load_mcp_config

        runtime = build_runtime(settings, backend,
                                echo_cancellation=False if no_sound else None,
                                span_log=paths.log_dir() / "turns.jsonl",
                                mcp=load_mcp_config())  # your own tools: in the background
        view_model: AgentViewModel = runtime.controller
    except AgentError as exc:
        notices.append(ErrorNotice.from_error(exc))
        view_model = AgentViewModel()
    window = MainWindow(view_model, settings, settings_path, save_settings=save_settings,
                        choices=_choices(runtime))
    from desktop_agent.gui.tray import make_tray
    from desktop_agent.gui.window_remote import WindowRemote

    remote = WindowRemote(window)
    tray = make_tray(remote, window.action_quit, view_model, app.windowIcon(), window)
    _show_window(window, hidden=start_hidden, tray=tray, quit_app=app.quit)
    watch_autostart(window)
    if server is not None:
        server.attach(remote)
    global_keys = [k for k in (_global_key(app, settings, remote, window, view_model),
                               _dictate_key(app, settings, view_model)) if k is not None]
    _show_dictation(window, view_model)
    if runtime is not None and runtime.indexing is not None:
        _show_indexing(window, runtime.indexing)
    for notice in notices:
        view_model.sig_error.emit(notice)
    if runtime is not None:
        runtime.controller.start()
    try:
        if script is not None and runtime is not None:
            return script(app, window, runtime)
        return int(app.exec())
    finally:
        if server is not None:
            server.close()
        for key in global_keys:
            key.stop()
        if runtime is not None:
            runtime.shutdown()
        if instance is not None:
            instance.lock.release()


def _show_window(window: Any, *, hidden: bool, tray: Any, quit_app: Callable[[], Any]) -> None:
    """Show the window, or with ``hidden`` leave it hidden (a tray brings it back) or,
    without a tray, minimise it: a hidden window with no tray could only come back by
    ``desktop-agent show``.

    Qt quits when the last *visible* window closes: Quit on a window that was never shown
    (from the tray, or ``desktop-agent quit``) would close it and leave the app running out
    of sight, so Quit then also ends the app.

    Runs on: GUI thread.
    """
    if not hidden:
        window.show()
        return
    window.action_quit.triggered.connect(quit_app)  # after the window's own close
    if tray is None:
        window.showMinimized()


def watch_autostart(window: Any) -> None:
    """Keep the autostart entry in step with ``desktop.start_at_login``: written (or its
    Exec refreshed) now when on, written or removed at every save of Settings. A failure
    is a notice in the window, never a crash.

    Runs on: GUI thread.
    """
    from desktop_agent.adapters.desktop.autostart import sync_autostart
    from desktop_agent.runtime.view_api import ErrorNotice

    def sync(settings: Any) -> None:
        try:
            sync_autostart(settings.desktop.start_at_login)
        except AgentError as exc:
            window.view_model.sig_error.emit(ErrorNotice.from_error(exc))

    window.sig_settings_saved.connect(sync)
    if window.settings.desktop.start_at_login:  # refresh Exec (the install may have moved);
        sync(window.settings)  # off at start removes nothing: only a save that says so does


def _global_key(app: Any, settings: Any, remote: Any, window: Any, view_model: Any) -> Any:
    """The global talk key on a real display: X11's grab in an X11 session, the desktop
    portal's shortcut under Wayland; None offscreen or where neither can work (logged, and
    the `ptt` command is the way: docs/anywhere.md)."""
    return _start_key(app, settings.shortcuts.global_push_to_talk, remote,
                      lambda: bool(window.ptt_held), view_model, None)


def _dictate_key(app: Any, settings: Any, view_model: Any) -> Any:
    """The global dictation key (``[shortcuts] global_dictate``), on the same backends as the
    talk key; None when none is set, or it is the talk key itself (said in the window)."""
    from desktop_agent.compose.global_key import DictateKey
    from desktop_agent.core.errors import DesktopError
    from desktop_agent.runtime.view_api import ErrorNotice

    text = settings.shortcuts.global_dictate
    if not text.strip():
        return None
    if text.strip().lower() == settings.shortcuts.global_push_to_talk.strip().lower():
        view_model.sig_error.emit(ErrorNotice.from_error(DesktopError(
            "dictate_key_is_talk_key", "The dictation key is the push-to-talk key, so it "
            "only talks.", "choose another key in Settings -> Shortcuts")))
        return None
    target = DictateKey(view_model.dictate)
    return _start_key(app, text, target, lambda: target.on, view_model,
                      ("dictate", "Dictate into the focused window"))


def _start_key(app: Any, text: str, target: Any, held: Callable[[], bool], view_model: Any,
               portal_shortcut: tuple[str, str] | None) -> Any:
    """Grab ``text`` for ``target`` (X11), or ask the portal for it (Wayland); None offscreen
    or where neither can work."""
    if app.platformName() not in ("xcb", "wayland"):
        return None  # offscreen (tests, headless): no desktop to grab a key on
    from desktop_agent.adapters.desktop.x11_global_key import session_problem
    from desktop_agent.runtime.view_api import ErrorNotice

    kwargs: dict[str, Any] = {
        "held": held,
        "notify": lambda exc: view_model.sig_error.emit(ErrorNotice.from_error(exc)),
    }
    problem = session_problem(os.environ)
    if problem is not None and problem.code == "global_key_wayland" and text.strip():
        from desktop_agent.compose.portal_key import start_portal_key

        return start_portal_key(text, target, shortcut=portal_shortcut, **kwargs)
    from desktop_agent.compose.global_key import start_global_key

    return start_global_key(text, target, **kwargs)


def _show_dictation(window: Any, view_model: Any) -> None:
    """Dictation's steps in the status bar: seen and read by a screen reader, and never
    taking the focus from the window typed into. Runs on: GUI thread."""
    from PySide6.QtWidgets import QLabel

    label = QLabel()
    label.setAccessibleName("Dictation status")
    window.statusBar().addPermanentWidget(label)
    view_model.sig_dictation.connect(lambda status: label.setText(status.text))


def _serve(instance: Any) -> Any:
    """The control socket of the app that won ``instance`` (None without one)."""
    if instance is None:
        return None
    from desktop_agent.compose.single_instance import serve

    return serve(instance)


def _silent_audio() -> Any:
    """The sound card of an app that could not open one: silent, with no echo to cancel.

    A 50 ms clock (not 10 ms), digital silence (the VAD skips it) and no log of what was
    played: it runs for hours and must cost about what an idle app costs (bench idle
    --no-sound-server).
    """
    from desktop_agent.audio.virtual import VirtualAudio

    return VirtualAudio(block_s=0.05, noise_db=None, record_speaker=False)


def _show_indexing(window: Any, indexing: Any) -> None:
    """Indexing progress in the status bar; saved Settings re-index. Runs on: GUI thread."""
    from PySide6.QtWidgets import QLabel

    label = QLabel()
    label.setAccessibleName("Indexing status")
    window.statusBar().addPermanentWidget(label)
    indexing.sig_status.connect(label.setText)
    window.sig_settings_saved.connect(lambda s: indexing.follow(s.knowledge_folders))


def _set_identity(app: Any) -> None:
    """The window's icon, and the name that ties it to the menu entry (Wayland app id).

    Runs on: GUI thread.
    """
    from PySide6.QtGui import QIcon

    from desktop_agent.adapters.paths import APP_ID, app_resource

    app.setDesktopFileName(APP_ID)  # APP_ID.desktop (install-desktop-entry)
    icon = QIcon()
    for name in ("desktop-agent.png", "desktop-agent.svg"):
        if app_resource(name).is_file():
            icon.addFile(str(app_resource(name)))
    app.setWindowIcon(icon)
