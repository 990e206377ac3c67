"""Open an application, an address, a folder: the real turn machine, the real desk, real files.

Private XDG folders hold a throw-away application (``Abacus Pro``, whose Exec is a script
that records each launch), a hidden entry that must never be opened, and a URL and folder
handler chosen through ``mimeapps.list`` that records what ``xdg-open`` hands it. The turn
machine (``tests/core/turns/write_rig.py``) reads each action back; the desk
(``DesktopDesk``) runs only after "yes". The display is a private Xvfb: xdg-open opens
nothing without one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop_agent.adapters.desktop.desktop_desk import DesktopDesk
from desktop_agent.adapters.desktop.desktop_tools import add_desktop_tools
from desktop_agent.adapters.desktop.launcher import Launcher
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.args import arguments_from_words
from desktop_agent.core.tools.launch import exec_argv
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.turns import commands as c
from desktop_agent.core.turns import events as e
from desktop_agent.core.turns.states import ToolMode
from desktop_agent.core.turns.tool_desk import respond
from tests.adapters.desktop.test_x11_global_key import Xvfb
from tests.core.turns.write_rig import Rig

WAIT_S = 20.0
_DROP = ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "XDG_CURRENT_DESKTOP", "DESKTOP_SESSION",
         "XDG_SESSION_DESKTOP", "KDE_FULL_SESSION", "GNOME_DESKTOP_SESSION_ID")
_RECORD = '#!/bin/sh\nprintf "%s\\n" "$*" >> "{marker}"\n'


@dataclass
class Desktop:
    env: dict[str, str]
    app_marker: Path
    handler_marker: Path
    tax: Path


@pytest.fixture
def desktop(tmp_path: Path) -> Iterator[Desktop]:
    if not Path("/usr/bin/xdg-open").exists():
        from tests.needs import unavailable

        unavailable("xdg-open", "not installed (apt-get install xdg-utils, or bash "
                                "scripts/setup.sh test)")
    xvfb = Xvfb(tmp_path)
    try:
        data, config, home = tmp_path / "data", tmp_path / "config", tmp_path / "home"
        apps = data / "applications"
        apps.mkdir(parents=True)
        config.mkdir()
        tax = home / "Documents" / "Tax 2025"
        tax.mkdir(parents=True)
        (home / "Documents" / "taxi receipts.txt").write_text("x")
        (config / "user-dirs.dirs").write_text('XDG_DOCUMENTS_DIR="$HOME/Documents"\n')
        app_marker, handler_marker = tmp_path / "app-launches", tmp_path / "handler-opens"
        for name, marker in (("abacus", app_marker), ("handler", handler_marker)):
            script = tmp_path / f"{name}.sh"
            script.write_text(_RECORD.format(marker=marker))
            script.chmod(0o755)
        (apps / "abacus-pro.desktop").write_text(
            f"[Desktop Entry]\nType=Application\nName=Abacus Pro\nGenericName=Calculator\n"
            f"Exec={tmp_path}/abacus.sh --fresh %U\n")
        (apps / "secret.desktop").write_text(
            f"[Desktop Entry]\nType=Application\nName=Secret Abacus\nNoDisplay=true\n"
            f"Exec={tmp_path}/abacus.sh --secret\n")
        (apps / "test-handler.desktop").write_text(
            f"[Desktop Entry]\nType=Application\nName=Test Handler\nNoDisplay=true\n"
            f"Exec={tmp_path}/handler.sh %u\nMimeType=x-scheme-handler/https;inode/directory;\n")
        (config / "mimeapps.list").write_text(
            "[Default Applications]\nx-scheme-handler/https=test-handler.desktop\n"
            "x-scheme-handler/http=test-handler.desktop\ninode/directory=test-handler.desktop\n")
        shared = tmp_path / "no-system-apps"  # the system's MIME database, none of its apps:
        shared.mkdir()  # xdg-mime reads a file's type from it when `mimetype` is installed
        if Path("/usr/share/mime").is_dir():
            (shared / "mime").symlink_to("/usr/share/mime")
        env = {k: v for k, v in os.environ.items() if k not in _DROP}
        env.update(HOME=str(home), XDG_DATA_HOME=str(data), XDG_CONFIG_HOME=str(config),
                   XDG_DATA_DIRS=str(shared), DISPLAY=xvfb.display)
        yield Desktop(env, app_marker, handler_marker, tax)
    finally:
        xvfb.close()


def _lines(path: Path, count: int) -> list[str]:
    """The file's lines once it has ``count`` of them (waits for the detached child)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        lines = path.read_text().splitlines() if path.exists() else []
        if len(lines) >= count:
            return lines
        assert time.monotonic() < deadline, f"{path.name}: {lines}, wanted {count} lines"
        time.sleep(0.01)


class DeskRig(Rig):
    """The write rig with the real registry and the real desktop desk behind its tools."""

    desk: DesktopDesk

    def _tool(self, command: c.RunTool) -> e.ToolResult:
        if command.mode is ToolMode.EXECUTE:
            self.executed.append(command)
        answer = respond(add_desktop_tools(ToolRegistry()), self.desk, command)
        return e.ToolResult(turn_id=command.turn_id, job=command.job, call_id="",
                            content=answer.content, is_error=answer.is_error,
                            action=answer.action, final=answer.final, at_s=self.t)


def _model(user: str) -> ToolCall | str:
    for tool in ("open_app", "open_location"):
        args = arguments_from_words(tool, user)
        if args:
            return ToolCall(tool, args, "c1")
    return "Okay."


def _rig(desktop: Desktop) -> DeskRig:
    rig = DeskRig(_model)
    rig.desk = DesktopDesk(None, launcher=Launcher(desktop.env))
    return rig


def test_an_app_opens_once_after_yes_and_never_after_no(desktop: Desktop) -> None:
    rig = _rig(desktop)
    assert rig.say("open Abacus Pro") == "Open Abacus Pro?"
    assert rig.say("no") != "" and not rig.executed
    assert rig.say("Could you open the calculator for me?") == "Open Abacus Pro?"
    assert rig.say("yes") == "Opening Abacus Pro."
    assert _lines(desktop.app_marker, 1) == ["--fresh"]  # the field code was dropped
    assert len(rig.executed) == 1


def test_a_hidden_entry_is_never_opened_by_name(desktop: Desktop) -> None:
    rig = _rig(desktop)
    runs = lambda: sum(isinstance(x, c.StartLlm) for x in rig.log)  # noqa: E731
    starts = runs()
    assert rig.say("open Secret Abacus") == (
        "There is no application called Secret Abacus in the menu, so I opened nothing.")
    assert runs() == starts + 1  # said as it is: the model is not asked again
    assert not rig.executed and not desktop.app_marker.exists()
    assert rig.say("open my spreadsheet folder") == (
        "I can't find anything called spreadsheet in your folders, so I opened nothing.")


def test_an_address_and_a_folder_open_with_the_default_handler(desktop: Desktop) -> None:
    rig = _rig(desktop)
    assert rig.say("Open example dot org in the browser.") == (
        "Open https://example.org in your browser?")
    assert rig.say("yes") == "Opening https://example.org."
    assert _lines(desktop.handler_marker, 1) == ["https://example.org"]
    assert rig.say("open my tax folder") == "Open the folder Tax 2025 in Documents?"
    assert rig.say("yes please") == f"Opening {desktop.tax}."
    assert _lines(desktop.handler_marker, 2)[1] == str(desktop.tax)


def test_no_display_is_a_spoken_answer(desktop: Desktop) -> None:
    env = {k: v for k, v in desktop.env.items() if k != "DISPLAY"}
    desk = DesktopDesk(None, launcher=Launcher(env))
    action = desk.prepare(ToolCall("open_location", {"target": "example dot org"}, "c1"))
    with pytest.raises(AgentError) as err:
        desk.execute(action, "k1")
    assert err.value.code == "no_display"
    assert err.value.message == "There is no desktop display here to open it on."


def test_a_place_is_never_a_launcher_or_a_program(tmp_path: Path) -> None:
    home = tmp_path / "home"
    downloads = home / "Downloads"
    downloads.mkdir(parents=True)
    (downloads / "invoice.desktop").write_text("[Desktop Entry]\nExec=sh -c 'rm -rf ~'\n")
    script = downloads / "invoice.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    launcher = Launcher({"HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert launcher.find_place("the invoice file") is None
    (downloads / "invoice.pdf").write_text("%PDF")
    assert launcher.find_place("the invoice file") == downloads / "invoice.pdf"


def test_the_menu_s_rules_and_a_program_that_fails_at_once(tmp_path: Path) -> None:
    apps = tmp_path / "data" / "applications"
    apps.mkdir(parents=True)
    entry = "[Desktop Entry]\nType=Application\nName={name}\nExec={exec}\n{more}\n"
    for name, exec_, more in (
            ("Gone Viewer", "gone-viewer", "TryExec=/nowhere/gone-viewer"),
            ("Gnome Settings", "true", "OnlyShowIn=GNOME;"),
            ("Broken Tool", "sh -c 'exit 3'", ""),
            ("Top Monitor", "top", "Terminal=true"),
            ("Where App", f"sh -c 'pwd > {tmp_path}/where'", "")):
        (apps / f"{name.split()[0].lower()}.desktop").write_text(
            entry.format(name=name, exec=exec_, more=more))
    own_bin = tmp_path / "bin"  # a terminal there is always one, whatever is installed
    own_bin.mkdir()
    (own_bin / "xterm").write_text("#!/bin/sh\n")
    (own_bin / "xterm").chmod(0o755)
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_DATA_DIRS": str(tmp_path / "none"), "XDG_CURRENT_DESKTOP": "KDE",
           "DISPLAY": ":99", "PATH": f"{own_bin}:{os.environ['PATH']}"}
    launcher = Launcher(env)
    assert launcher.find_app("gone viewer") is None  # its TryExec is not installed
    assert launcher.find_app("settings") is None  # shown in GNOME's menu only
    broken = launcher.find_app("broken tool")
    assert broken is not None
    with pytest.raises(AgentError) as failed:  # never "Opening Broken Tool." for it
        launcher.launch(exec_argv(broken.exec_line, broken))
    assert failed.value.code == "app_failed" and "exit code 3" in failed.value.message
    where = launcher.find_app("where app")
    assert where is not None
    launcher.launch(exec_argv(where.exec_line, where))
    assert _lines(tmp_path / "where", 1) == [str(tmp_path)]  # started in the user's home
    desk = DesktopDesk(None, launcher=launcher)
    top = desk.prepare(ToolCall("open_app", {"app": "top monitor"}, "c1"))
    assert top.args["argv"][-1] == "top" and len(top.args["argv"]) > 1  # in a terminal
    with pytest.raises(AgentError) as no_terminal:
        DesktopDesk(None, launcher=Launcher({**env, "PATH": str(tmp_path / "data")})).prepare(
            ToolCall("open_app", {"app": "top monitor"}, "c1"))
    assert no_terminal.value.code == "no_terminal"
