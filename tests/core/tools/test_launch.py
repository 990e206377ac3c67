"""The open tools' rules (core.tools.launch): entries, Exec lines, matching, addresses."""

from __future__ import annotations

import pytest

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.launch import (
    DesktopEntry,
    best_app,
    exec_argv,
    open_app_args,
    open_location_action,
    open_location_args,
    parse_desktop_entry,
    spoken_address,
)
from desktop_agent.core.tools.write_actions import WriteContext

ABACUS = """[Desktop Entry]
Type=Application
Name=Abacus Pro
Name[de]=Abakus Profi
GenericName=Calculator
Keywords=maths;sums;
Exec=abacus-pro --new-window %U

[Desktop Action Private]
Name=Private
Exec=abacus-pro --private
"""


def test_an_entry_is_read_unlocalised_and_its_exec_without_field_codes() -> None:
    entry = parse_desktop_entry(ABACUS, "abacus.desktop")
    assert entry == DesktopEntry("abacus.desktop", "Abacus Pro", "abacus-pro --new-window %U",
                                 "Calculator", ("maths", "sums"), False)
    assert exec_argv(entry.exec_line) == ["abacus-pro", "--new-window"]
    assert exec_argv('sh -c "echo 100%% done" %f') == ["sh", "-c", "echo 100% done"]
    assert parse_desktop_entry("[Desktop Entry]\nType=Link\nName=x\nURL=y\n", "x") is None
    assert exec_argv("viewer -caption \"%c\" %i %U", _entry("My Viewer", icon="view")) == [
        "viewer", "-caption", "My Viewer", "--icon", "view"]
    assert exec_argv("viewer %i", _entry("V")) == ["viewer"]  # no icon: no --icon
    assert exec_argv("run\\sviewer --x") == ["run", "viewer", "--x"]  # escapes before quoting
    with pytest.raises(AgentError) as broken:
        exec_argv('sh -c "echo', _entry("Broken"))
    assert broken.value.code == "app_bad_entry" and "Broken" in broken.value.message
    hidden = parse_desktop_entry(ABACUS.replace("Type=", "NoDisplay=true\nType="), "a")
    assert hidden is not None and hidden.hidden


def test_the_menu_s_own_rules_say_where_an_entry_is_shown() -> None:
    entry = parse_desktop_entry(
        "[Desktop Entry]\nType=Application\nName=Settings\nExec=gnome-control-center\n"
        "OnlyShowIn=GNOME;Unity;\nTryExec=gnome-control-center\nTerminal=false\n", "s")
    assert entry is not None and entry.try_exec == "gnome-control-center"
    assert entry.shown_in(["GNOME"]) and entry.shown_in(["ubuntu", "GNOME"])
    assert not entry.shown_in(["KDE"]) and not entry.shown_in([""])
    top = parse_desktop_entry("[Desktop Entry]\nType=Application\nName=top\nExec=top\n"
                              "Terminal=true\nNotShowIn=KDE;\n", "t")
    assert top is not None and top.terminal and top.shown_in([]) and not top.shown_in(["KDE"])


def _entry(name: str, generic: str = "", keywords: tuple[str, ...] = (),
           hidden: bool = False, icon: str = "") -> DesktopEntry:
    return DesktopEntry(f"{name}.desktop", name, name.lower(), generic, keywords, hidden,
                        icon=icon)


def test_the_best_match_by_words() -> None:
    apps = [_entry("Abacus"), _entry("Abacus Pro", "Calculator"),
            _entry("Gedit", "Text Editor", ("text", "edit")),
            _entry("Notes", "", ("text",)), _entry("Secret Abacus Pro", hidden=True)]
    assert best_app(apps, "Abacus Pro").name == "Abacus Pro"  # type: ignore[union-attr]
    assert best_app(apps, "abacus").name == "Abacus"  # type: ignore[union-attr]
    assert best_app(apps, "the text editor").name == "Gedit"  # type: ignore[union-attr]
    assert best_app(apps, "calculator").name == "Abacus Pro"  # type: ignore[union-attr]
    assert best_app(apps, "spreadsheet") is None
    assert best_app([_entry("Secret", hidden=True)], "secret") is None  # NoDisplay: never


@pytest.mark.parametrize(("said", "url"), [
    ("example dot org", "https://example.org"), ("example.org", "https://example.org"),
    ("bbc dot co dot uk slash news", "https://bbc.co.uk/news"),
    ("https://example.org", "https://example.org"), ("the tax folder", None),
    ("calculator", None), ("javascript:alert(1)", None),
    ("the readme.md file", None), ("report.pdf in my documents", None),
])
def test_spoken_addresses(said: str, url: str | None) -> None:
    assert spoken_address(said) == url


@pytest.mark.parametrize(("text", "app", "target"), [
    ("open Abacus Pro", {"app": "Abacus Pro"}, None),
    ("start the text editor", {"app": "text editor"}, None),
    ("Could you open the calculator for me?", {"app": "calculator"}, None),
    ("Open example dot org in the browser.", None, {"target": "example dot org"}),
    ("open my tax folder", None, {"target": "tax folder"}),
    ("open the file called budget 2024", None, {"target": "budget 2024"}),
    ("open the folder named invoices", None, {"target": "invoices"}),
    ("open the door", None, None), ("start a conversation", None, None),
    ("open my notes", None, None), ("what time is it", None, None),
])
def test_the_words_rules(text: str, app: object, target: object) -> None:
    assert open_app_args(text) == app
    assert open_location_args(text) == target


def test_an_address_is_read_back_as_it_will_open() -> None:
    ctx = WriteContext(None, None, None)  # type: ignore[arg-type]
    action = open_location_action({"target": "example dot org"}, ctx)
    assert action.read_back == "Open https://example.org in your browser?"
    assert action.args == {"target": "example dot org", "url": "https://example.org"}
