"""The global key's text: Qt's words -> modifiers and an X keysym, refusals with a fix."""

from __future__ import annotations

import pytest

from desktop_agent.core.desktop.shortcut import GlobalShortcut, parse_shortcut
from desktop_agent.core.errors import DesktopError


@pytest.mark.parametrize(
    ("text", "canonical", "modifiers", "keysym"),
    [
        ("Ctrl+Alt+Space", "Ctrl+Alt+Space", ("Control", "Alt"), "space"),
        ("ctrl+alt+space", "Ctrl+Alt+Space", ("Control", "Alt"), "space"),
        ("Alt+Ctrl+Space", "Ctrl+Alt+Space", ("Control", "Alt"), "space"),
        (" Ctrl + Shift + F9 ", "Ctrl+Shift+F9", ("Control", "Shift"), "F9"),
        ("F9", "F9", (), "F9"),
        ("f24", "F24", (), "F24"),
        ("Super+F9", "Super+F9", ("Super",), "F9"),
        ("Meta+F9", "Super+F9", ("Super",), "F9"),  # Qt's word for the Super key
        ("Win+F9", "Super+F9", ("Super",), "F9"),
        ("Shift+F9", "Shift+F9", ("Shift",), "F9"),
        ("Control+Shift+Meta+Alt+F1", "Ctrl+Alt+Shift+Super+F1",
         ("Control", "Alt", "Shift", "Super"), "F1"),
        ("Ctrl+Ctrl+F9", "Ctrl+F9", ("Control",), "F9"),
        ("Ctrl+A", "Ctrl+A", ("Control",), "a"),  # X names a letter key by its lower case
        ("Alt+7", "Alt+7", ("Alt",), "7"),
        ("Ctrl+Alt+PageUp", "Ctrl+Alt+PgUp", ("Control", "Alt"), "Prior"),
        ("Ctrl+Alt+pgdown", "Ctrl+Alt+PgDown", ("Control", "Alt"), "Next"),
        ("Ctrl+Escape", "Ctrl+Esc", ("Control",), "Escape"),
        ("Super+Return", "Super+Return", ("Super",), "Return"),
        ("Ctrl+Backspace", "Ctrl+Backspace", ("Control",), "BackSpace"),
        ("Ctrl+Alt+F13", "Ctrl+Alt+F13", ("Control", "Alt"), "F13"),
        ("Ctrl+Alt+Shift+F9", "Ctrl+Alt+Shift+F9", ("Control", "Alt", "Shift"), "F9"),
        ("Ctrl+,", "Ctrl+,", ("Control",), "comma"),
        ("Ctrl+Alt+\\", "Ctrl+Alt+\\", ("Control", "Alt"), "backslash"),
        ("Pause", "Pause", (), "Pause"),
        ("ScrollLock", "ScrollLock", (), "Scroll_Lock"),
        ("Print", "Print", (), "Print"),
        ("Menu", "Menu", (), "Menu"),
    ],
)
def test_a_shortcut_parses_to_modifiers_and_a_keysym(
        text: str, canonical: str, modifiers: tuple[str, ...], keysym: str) -> None:
    assert parse_shortcut(text) == GlobalShortcut(canonical, modifiers, keysym)


def test_the_canonical_text_parses_to_itself() -> None:
    for text in ("Ctrl+Alt+Space", "Super+F9", "Ctrl+Alt+Shift+Super+PgUp", "Ctrl+,"):
        assert parse_shortcut(parse_shortcut(text).text).text == text


@pytest.mark.parametrize(
    ("text", "code", "says"),
    [
        ("", "shortcut_empty", "empty"),
        ("   ", "shortcut_empty", "empty"),
        ("Ctrl++", "shortcut_malformed", "empty part"),
        ("+F9", "shortcut_malformed", "empty part"),
        ("Ctrl+Alt", "shortcut_malformed", "only modifiers"),
        ("Shift", "shortcut_malformed", "only modifiers"),
        ("Ctrl+A+B", "shortcut_malformed", "two keys (A and B)"),
        ("Ctrl+K, Ctrl+C", "shortcut_malformed", "sequence of key presses"),
        ("Ctrl+Foo", "shortcut_unknown_key", "no key called 'Foo'"),
        ("Ctrl+F36", "shortcut_unknown_key", "no key called 'F36'"),
        ("Ctrl+CapsLock", "shortcut_unknown_key", "no key called 'CapsLock'"),
        ("Hyper+F9", "shortcut_unknown_modifier", "'Hyper' in 'Hyper+F9' is not a modifier"),
    ],
)
def test_malformed_text_is_refused_with_its_code(text: str, code: str, says: str) -> None:
    with pytest.raises(DesktopError) as info:
        parse_shortcut(text)
    assert info.value.code == code
    assert says in info.value.message
    assert "Ctrl+Alt+Space" in info.value.fix  # every refusal shows a shortcut that works


@pytest.mark.parametrize(
    "text", ["Space", "space", "A", "7", "Shift+Space", "Shift+A", "Tab", "Return", ",",
             "Backspace", "Left", "Home", "PgUp", "Del", "Esc"])
def test_a_typing_key_without_ctrl_alt_or_super_is_refused(text: str) -> None:
    with pytest.raises(DesktopError) as info:
        parse_shortcut(text)
    err = info.value
    assert err.code == "shortcut_needs_modifier"
    assert "taken from every program you type in" in err.message
    assert "add Ctrl, Alt or Super" in err.fix and "F9" in err.fix


def test_the_bare_space_message_names_what_to_use_instead() -> None:
    with pytest.raises(DesktopError) as info:
        parse_shortcut("space")
    assert info.value.describe() == (
        "[shortcut_needs_modifier] Space would be taken from every program you type in. "
        "Fix: add Ctrl, Alt or Super to it (e.g. Ctrl+Alt+Space), or use a function key such "
        "as F9.")


@pytest.mark.parametrize("text", ["Ctrl+Alt+F1", "ctrl+alt+F9", "Alt+Ctrl+F12",
                                  "Ctrl+Alt+Backspace"])
def test_keys_the_x_server_keeps_for_itself_are_refused(text: str) -> None:
    # Under Xvfb, xdotool's Ctrl+Alt+F9 never reaches a grab: XKB switches console on it.
    with pytest.raises(DesktopError) as info:
        parse_shortcut(text)
    assert info.value.code == "shortcut_reserved"
    assert "no program receives it" in info.value.message
    assert "Ctrl+Alt+Space" in info.value.fix
