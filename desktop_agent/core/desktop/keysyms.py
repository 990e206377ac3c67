"""The X keysym that types a character: what XTest and the portal's keyboard are sent.

``keysym_of("a") == 0x61``: Latin-1 characters are their own code points, a line break is
Return (``RETURN``), a tab is Tab (``TAB``), and every other character is its Unicode keysym
(``0x01000000`` + the code point). X's keysyms are xkbcommon's, so the same numbers serve
X11 (``adapters/desktop/x11_typing.py``) and Wayland's RemoteDesktop portal
(``adapters/desktop/portal_keyboard.py``). Pure.
"""

from __future__ import annotations

from typing import Final

RETURN: Final = 0xFF0D
TAB: Final = 0xFF09
UNICODE_BASE: Final = 0x01000000


def keysym_of(char: str) -> int:
    """The X keysym that types ``char`` (Return for a line break, Tab for a tab)."""
    code = ord(char)
    if char == "\n":
        return RETURN
    if char == "\t":
        return TAB
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    return UNICODE_BASE + code
