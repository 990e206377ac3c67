"""A global shortcut's text (Qt's key-sequence words) -> modifiers and an X keysym name.

``parse_shortcut("Ctrl+Alt+Space")`` returns ``GlobalShortcut(text="Ctrl+Alt+Space",
modifiers=("Control", "Alt"), keysym="space")``. The text is what Qt's
``QKeySequence.toString(PortableText)`` writes and what a person types in Settings: modifiers
and one key joined by ``+``, any case, spaces around the parts allowed. The key names are
Qt's (``Space``, ``F9``, ``PgUp``, ``A``, ``,``); ``Super`` (also ``Meta``, ``Win``) is the
Windows key. The result names modifiers, not X masks: which ``ModN`` carries Alt or Super
depends on the keyboard map, so the X11 adapter reads that from the server.

A key that types or edits text (Space, a letter, a digit, punctuation, Return, the arrows...)
is refused without Ctrl, Alt or Super: a global grab takes the key from every program, so
a bare Space would stop the user typing spaces anywhere (Shift does not help: Shift+A types
``A``). Function keys, Pause, Print, ScrollLock and Menu may stand alone. Ctrl+Alt+F1 to F12
and Ctrl+Alt+Backspace are refused too: X's own keyboard map switches console or ends the
session on them, and the key press never reaches a program.

Every refusal is a ``DesktopError`` with a stable code (``shortcut_empty``,
``shortcut_malformed``, ``shortcut_unknown_key``, ``shortcut_unknown_modifier``,
``shortcut_needs_modifier``, ``shortcut_reserved``), a message naming the text, and a fix.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Final

from desktop_agent.core.errors import DesktopError

MODIFIER_ORDER: Final = ("Control", "Alt", "Shift", "Super")
"""The modifiers a shortcut may hold, in the order its text names them."""
_MODIFIER_TEXT: Final = {"Control": "Ctrl", "Alt": "Alt", "Shift": "Shift", "Super": "Super"}
_MODIFIER_WORDS: Final = {
    "ctrl": "Control", "control": "Control", "alt": "Alt", "shift": "Shift",
    "super": "Super", "meta": "Super", "win": "Super",
}  # fmt: skip
_GUARDS: Final = frozenset({"Control", "Alt", "Super"})
"""Modifiers that keep a typing key from typing (Shift does not: Shift+A types 'A')."""

EXAMPLE: Final = "Ctrl+Alt+Space"
_FORMAT_FIX: Final = (f"write modifiers and one key joined by '+', e.g. {EXAMPLE}, Super+F9 or "
                      "F9 (modifiers: Ctrl, Alt, Shift, Super).")
_KEY_FIX: Final = ("use a key name such as F1-F35, Space, A-Z, 0-9, Home, End, PgUp, PgDown, "
                   f"Ins, Del, Pause or Print, with modifiers, e.g. {EXAMPLE}.")


@dataclass(frozen=True, slots=True)
class _Key:
    text: str
    """Qt's name of the key, as the canonical text writes it."""
    keysym: str
    """The X keysym name (Xlib's XStringToKeysym spelling)."""
    types: bool
    """True for a key that types or edits text: refused without Ctrl, Alt or Super."""


def _keys() -> dict[str, _Key]:
    """Every key name the parser knows, lower-cased -> the key."""
    keys: dict[str, _Key] = {}

    def add(names: tuple[str, ...], keysym: str, types: bool) -> None:
        for name in names:
            keys[name.lower()] = _Key(names[0], keysym, types)

    for n in range(1, 36):
        add((f"F{n}",), f"F{n}", False)
    for letter in string.ascii_uppercase:
        add((letter,), letter.lower(), True)
    for digit in string.digits:
        add((digit,), digit, True)
    for names, keysym in (
        (("Space",), "space"), (("Tab",), "Tab"), (("Return",), "Return"),
        (("Enter",), "KP_Enter"), (("Backspace",), "BackSpace"), (("Esc", "Escape"), "Escape"),
        (("Ins", "Insert"), "Insert"), (("Del", "Delete"), "Delete"), (("Home",), "Home"),
        (("End",), "End"), (("Left",), "Left"), (("Right",), "Right"), (("Up",), "Up"),
        (("Down",), "Down"), (("PgUp", "PageUp"), "Prior"), (("PgDown", "PageDown"), "Next"),
        ((",",), "comma"), ((".",), "period"), (("/",), "slash"), ((";",), "semicolon"),
        (("'",), "apostrophe"), (("[",), "bracketleft"), (("]",), "bracketright"),
        (("\\",), "backslash"), (("-",), "minus"), (("=",), "equal"), (("`",), "grave"),
    ):  # fmt: skip
        add(names, keysym, True)
    for names, keysym in ((("Pause",), "Pause"), (("Print",), "Print"),
                          (("ScrollLock",), "Scroll_Lock"), (("Menu",), "Menu")):
        add(names, keysym, False)
    return keys


_KEYS: Final = _keys()
_RESERVED_WITH_CTRL_ALT: Final = {
    **{f"F{n}": "switch to another console" for n in range(1, 13)},
    "BackSpace": "end the X session (where enabled)",
}
"""Keys XKB's standard map gives actions with exactly Ctrl+Alt (the server eats the press)."""


@dataclass(frozen=True, slots=True)
class GlobalShortcut:
    """One key with its modifiers, parsed from a shortcut's text."""

    text: str
    """The canonical text, e.g. 'Ctrl+Alt+Space' (what messages and the settings file say)."""
    modifiers: tuple[str, ...]
    """Names from ``MODIFIER_ORDER`` ('Control', 'Alt', 'Shift', 'Super'), in that order."""
    keysym: str
    """The X keysym name of the key, e.g. 'space', 'F9', 'a', 'Prior'."""


def parse_shortcut(text: str) -> GlobalShortcut:
    """Parse a shortcut's text, e.g. 'Ctrl+Alt+Space', 'F9' or 'super+f9'.

    Args:
        text: modifiers and one key joined by '+', in Qt's key-sequence words.

    Returns:
        The shortcut, with its canonical text ('super+f9' -> 'Super+F9').

    Raises:
        DesktopError: with the code of what is wrong (see the module docstring) and a fix.
    """
    stripped = text.strip()
    if not stripped:
        raise DesktopError("shortcut_empty", "The global key is empty.", _FORMAT_FIX)
    if ", " in stripped:  # Qt writes a multi-chord sequence as 'Ctrl+K, Ctrl+C'
        raise DesktopError("shortcut_malformed",
                           f"{stripped!r} is a sequence of key presses; a global key is one.",
                           _FORMAT_FIX)
    parts = [p.strip() for p in stripped.split("+")]
    if any(not p for p in parts):
        raise DesktopError("shortcut_malformed", f"{stripped!r} has an empty part.", _FORMAT_FIX)
    *mod_words, key_word = parts
    if key_word.lower() in _MODIFIER_WORDS:
        raise DesktopError("shortcut_malformed",
                           f"{stripped!r} has only modifiers; it needs a key too.", _FORMAT_FIX)
    modifiers: set[str] = set()
    for word in mod_words:
        name = _MODIFIER_WORDS.get(word.lower())
        if name is None:
            if word.lower() in _KEYS:
                raise DesktopError("shortcut_malformed",
                                   f"{stripped!r} names two keys ({word} and {key_word}); a "
                                   "global key is one key with modifiers.", _FORMAT_FIX)
            raise DesktopError("shortcut_unknown_modifier",
                               f"{word!r} in {stripped!r} is not a modifier.", _FORMAT_FIX)
        modifiers.add(name)
    key = _KEYS.get(key_word.lower())
    if key is None:
        raise DesktopError("shortcut_unknown_key",
                           f"There is no key called {key_word!r} (in {stripped!r}).", _KEY_FIX)
    ordered = tuple(m for m in MODIFIER_ORDER if m in modifiers)
    canonical = "+".join([*(_MODIFIER_TEXT[m] for m in ordered), key.text])
    if key.types and not modifiers & _GUARDS:
        raise DesktopError(
            "shortcut_needs_modifier",
            f"{canonical} would be taken from every program you type in.",
            f"add Ctrl, Alt or Super to it (e.g. Ctrl+Alt+{key.text}), or use a function key "
            "such as F9.")
    if ordered == ("Control", "Alt") and key.keysym in _RESERVED_WITH_CTRL_ALT:
        raise DesktopError(
            "shortcut_reserved",
            f"{canonical} is X's own key to {_RESERVED_WITH_CTRL_ALT[key.keysym]}; no program "
            "receives it.", f"use another, e.g. {EXAMPLE} or Super+{key.text}.")
    return GlobalShortcut(canonical, ordered, key.keysym)
